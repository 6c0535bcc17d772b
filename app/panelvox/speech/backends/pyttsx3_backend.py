"""pyttsx3: espeak-ng on Linux, SAPI5 on Windows, NSSpeechSynthesizer on macOS.

On Linux we drive espeak-ng through pyttsx3's own ctypes binding in synchronous mode and
take the PCM ourselves, sentence by sentence: pyttsx3's engine loop would synthesise the
whole text before playing any of it, and cannot render a WAV without printing to stdout.
Elsewhere the pyttsx3 engine speaks directly (no streaming, no export).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.audio_sink import AudioSink, find_player
from panelvox.speech.backend import Capabilities, CheckResult, PcmBackend, SpeechRequest, Voice
from panelvox.speech.language_voices import ESPEAK_LANGUAGES

log = logging.getLogger(__name__)

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")
#: espeak-ng variants give each character a different voice from one language voice.
VARIANTS: tuple[str, ...] = ("m1", "f2", "m3", "f3", "m4", "f4", "m7", "f1", "m2", "f5")
_NORMAL_WPM = 175


@dataclass
class _Espeak:
    """The espeak-ng library: one per process (it cannot be initialised twice)."""

    lib: ModuleType
    sample_rate: int
    lock: threading.Lock = field(default_factory=threading.Lock)
    chunks: list[np.ndarray] = field(default_factory=list)
    cancel: threading.Event | None = None

    def on_synth(self, wav: Any, numsamples: int, events: Any) -> int:
        if numsamples > 0:
            buf = ctypes.string_at(wav, numsamples * 2)
            self.chunks.append(np.frombuffer(buf, dtype=np.int16).copy())
        return 1 if self.cancel is not None and self.cancel.is_set() else 0


@functools.cache
def _espeak() -> _Espeak:
    # Cached because libespeak-ng is process-global state: initialising it twice breaks it.
    try:
        from pyttsx3.drivers import _espeak as lib
    except (ImportError, RuntimeError, OSError) as exc:
        raise BackendUnavailable(
            # Translators: spoken when the espeak-ng voice is not installed.
            _("The espeak-ng voice is not installed."),
            detail=repr(exc),
        ) from exc
    rate = lib.Initialize(lib.AUDIO_OUTPUT_SYNCHRONOUS, 60)
    if rate <= 0:
        raise BackendUnavailable(
            _("The espeak-ng voice is not installed."), detail="espeak_Initialize failed"
        )
    engine = _Espeak(lib, int(rate))
    lib.SetSynthCallback(engine.on_synth)
    return engine


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, so speech can start after the first one is synthesised."""
    return [s for s in _SENTENCE.split(text.strip()) if s]


class Pyttsx3Backend(PcmBackend):
    """The system voice through pyttsx3 (espeak-ng on Linux)."""

    name = "pyttsx3"
    # Translators: description of the espeak-ng / system voice output.
    description = _("System voice (espeak-ng, SAPI5 or macOS voices)")

    def __init__(self, sink: AudioSink | None = None, *, language: str = "en") -> None:
        super().__init__(sink)
        self.language = language
        self._engine: Any = None  # a pyttsx3.Engine on Windows and macOS

    @classmethod
    def check_engine(cls) -> CheckResult:
        """Can it synthesise here (for export), whatever the sound output?"""
        if sys.platform.startswith("linux"):
            try:
                _espeak()
            except BackendUnavailable as exc:
                return CheckResult(False, exc.message)
            return CheckResult(True)
        try:
            import pyttsx3  # noqa: F401
        except ImportError:
            # Translators: spoken when the pyttsx3 package is missing.
            return CheckResult(False, _("The system voice package pyttsx3 is not installed."))
        return CheckResult(True)

    @classmethod
    def check(cls) -> CheckResult:
        result = cls.check_engine()
        if result and sys.platform.startswith("linux") and find_player() is None:
            # Translators: spoken when speech could be made but not played.
            return CheckResult(False, _("No audio player is installed, so speech cannot be played."))
        return result

    @property
    def capabilities(self) -> Capabilities:
        if not sys.platform.startswith("linux"):
            return Capabilities(rate_range=(0.5, 3.0), volume_range=(0.0, 1.0), reports_done=True)
        return Capabilities(
            can_stream=True,
            writes_files=True,
            per_utterance_voice=True,
            can_tone=True,
            voices=self.voices(),
            rate_range=(0.45, 2.5),
            pitch_range=(0.3, 1.7),
            volume_range=(0.0, 1.0),
            sample_rate=_espeak().sample_rate,
            languages=ESPEAK_LANGUAGES,
        )

    def voices(self) -> tuple[Voice, ...]:
        """The language voice and its variants (distinct voices for characters)."""
        base = self.language or "en"
        return tuple(
            Voice(f"{base}+{v}", f"{base} {v}", base, "female" if v[0] == "f" else "male") for v in VARIANTS
        )

    def synthesize(self, request: SpeechRequest, cancel: threading.Event) -> Iterator[np.ndarray]:
        eng = _espeak()
        lib = eng.lib
        for sentence in split_sentences(request.text):
            if cancel.is_set():
                return
            with eng.lock:
                voice = request.voice or (request.language or self.language)
                if lib.SetVoiceByName(voice.encode("utf-8")) != 0:
                    lib.SetVoiceByName((request.language or "en").encode("utf-8"))
                lib.SetParameter(lib.RATE, round(_NORMAL_WPM * request.rate), 0)
                lib.SetParameter(lib.PITCH, round(50 * request.pitch), 0)
                lib.SetParameter(lib.VOLUME, round(100 * request.volume), 0)
                eng.chunks, eng.cancel = [], cancel
                lib.Synth(sentence, flags=lib.CHARS_UTF8 | lib.ENDPAUSE)
                chunks, eng.chunks, eng.cancel = eng.chunks, [], None
            if chunks:
                yield np.concatenate(chunks)

    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        if sys.platform.startswith("linux"):
            return super().speak(request, cancel)
        return self._speak_engine(request, cancel)

    def _speak_engine(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        import pyttsx3

        if self._engine is None:
            self._engine = pyttsx3.init()
        engine = self._engine
        engine.setProperty("rate", round(_NORMAL_WPM * request.rate))
        engine.setProperty("volume", request.volume)
        engine.say(request.text)
        engine.runAndWait()
        return not cancel.is_set()

    def stop(self) -> None:
        if self._engine is not None:
            self._engine.stop()
        super().stop()
