"""Narration preferences (what to hear and how), persisted in settings.json.

The file is shared with other parts of Panelvox: narration owns its ``"narration"`` key
and rewrites the file atomically (temp file + rename), keeping the other keys.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field, fields, replace
from enum import Enum
from pathlib import Path
from typing import Any

from panelvox import paths
from panelvox.jsonfile import read_json_object, update_json_section

log = logging.getLogger(__name__)

SETTINGS_KEY = "narration"


class UtteranceKind(Enum):
    DIALOGUE = "dialogue"
    THOUGHT = "thought"
    CAPTION = "caption"
    SFX = "sfx"
    TEXT = "text"  # signs, credits, page numbers: lettering that is no one's speech
    DESCRIPTION = "description"  # scene descriptions (a local model, verified)
    NOTICE = "notice"  # Panelvox talking: problems, "no text on this page", order warnings


class ReadingUnit(Enum):
    PAGE = "page"
    PANEL = "panel"
    BALLOON = "balloon"


class Verbosity(Enum):
    TERSE = "terse"  # text only
    NORMAL = "normal"  # "Steenie: …"
    FULL = "full"  # "Panel 3. Steenie: …"


class UncertaintyCue(Enum):
    WORD = "word"  # the word "uncertain" before the text
    TONE = "tone"  # a short soft beep
    VOICE = "voice"  # a lower, slower voice


@dataclass(frozen=True, slots=True)
class NarrationPrefs:
    kinds: frozenset[UtteranceKind] = field(default_factory=lambda: frozenset(UtteranceKind))
    unit: ReadingUnit = ReadingUnit.PANEL
    verbosity: Verbosity = Verbosity.NORMAL
    #: None follows the verbosity (FULL announces panels; NORMAL and FULL name speakers)
    announce_panels: bool | None = None
    announce_speakers: bool | None = None
    rate: float = 1.0  # multiplier of the voice's normal speed
    pitch: float = 1.0
    volume: float = 1.0
    uncertainty_cue: UncertaintyCue = UncertaintyCue.WORD
    #: confidence below which a speaker's name is said as a guess ("probably"); the order
    #: cues follow their own calibrated cuts (:mod:`panelvox.narration.order_cue`)
    uncertainty_threshold: float = 0.5
    #: recognition confidence (a block's least sure line) below which its words get the cue:
    #: where, on the cib golden scripts, a line is wrong at least as often as right (below
    #: 0.7, both lines are; from 0.7 to 0.8, a third, once the sixth stop's lettering fixes
    #: mended many of them; see docs/benchmarks.md)
    text_threshold: float = 0.7
    auto_advance: bool = False
    character_voices: bool = True
    backend: str | None = None  # preferred speech backend; None: automatic
    voice: str | None = None

    @property
    def panels_announced(self) -> bool:
        return self.announce_panels if self.announce_panels is not None else self.verbosity is Verbosity.FULL

    @property
    def speakers_announced(self) -> bool:
        if self.announce_speakers is not None:
            return self.announce_speakers
        return self.verbosity is not Verbosity.TERSE

    def hears(self, kind: UtteranceKind) -> bool:
        return kind is UtteranceKind.NOTICE or kind in self.kinds

    # -- JSON ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["kinds"] = sorted(k.value for k in self.kinds)
        for key, value in out.items():
            if isinstance(value, Enum):
                out[key] = value.value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NarrationPrefs:
        """Read saved preferences; unknown keys and bad values fall back to defaults."""
        prefs = cls()
        types = {f.name: f for f in fields(cls)}
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key not in types:
                continue
            try:
                changes[key] = _coerce(key, value, getattr(prefs, key))
            except (ValueError, TypeError) as exc:
                log.warning("ignoring setting %s=%r: %r", key, value, exc)
        return replace(prefs, **changes)


def _coerce(key: str, value: Any, default: Any) -> Any:
    if key == "kinds":
        return frozenset(UtteranceKind(v) for v in value)
    if isinstance(default, Enum):
        return type(default)(value)
    if key in ("announce_panels", "announce_speakers"):
        return None if value is None else bool(value)
    if key in ("backend", "voice"):
        return None if value is None else str(value)
    if isinstance(default, bool):
        return bool(value)
    if isinstance(default, float):
        out = float(value)
        if not 0.0 <= out <= 4.0:
            raise ValueError("out of range")
        return out
    return value


def settings_path() -> Path:
    """settings.json in the platform's config folder ($XDG_CONFIG_HOME/panelvox on Linux)."""
    return paths.config_dir() / "settings.json"


def load_prefs(path: Path | None = None) -> NarrationPrefs:
    """The saved preferences, or the defaults when none are saved or the file is damaged."""
    section = read_json_object(path or settings_path()).get(SETTINGS_KEY)
    return NarrationPrefs.from_json(section) if isinstance(section, dict) else NarrationPrefs()


def save_prefs(prefs: NarrationPrefs, path: Path | None = None) -> Path:
    """Write ``prefs`` under the "narration" key, atomically, keeping other keys."""
    target = path or settings_path()
    update_json_section(target, SETTINGS_KEY, prefs.to_json())
    return target
