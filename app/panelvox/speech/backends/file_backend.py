"""File export as a backend: what would be spoken is rendered into PCM and kept, so the
same script that is read aloud can be saved as a WAV (see :mod:`panelvox.export`)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

import numpy as np

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.backend import (
    Capabilities,
    CheckResult,
    PcmBackend,
    SpeechBackend,
    SpeechRequest,
    resample,
)
from panelvox.speech.language_voices import LanguageVoices, Part

log = logging.getLogger(__name__)

#: silence between two utterances in exported audio, in seconds
GAP_S = 0.35
#: between the runs of one utterance said by two voices ("Character 1 says:" | the words)
PART_GAP_S = 0.12


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a tagged utterance starts in the rendered audio (for chapters and cue sheets)."""

    tag: str
    sample: int


@dataclass(frozen=True, slots=True)
class Heard:
    """One run of rendered speech and the voice that said it (what tests and logs check)."""

    tag: str
    text: str
    language: str
    backend: str
    voice: str | None
    notice: bool = False


class FileBackend(SpeechBackend):
    """Renders speech through a PCM engine into memory; :meth:`take` hands the audio over."""

    name = "file"
    # Translators: description of the speech output that writes audio files.
    description = _("Audio file (WAV) export")

    def __init__(self, engine: PcmBackend | None = None, *, languages: LanguageVoices | None = None) -> None:
        self.engine = engine if engine is not None else _first_engine()
        #: voices for lettering in languages the engine does not speak (PCM engines only)
        self.languages = languages
        self._lock = threading.Lock()
        self._chunks: list[np.ndarray] = []
        self._marks: list[Mark] = []
        self._heard: list[Heard] = []
        self._length = 0

    @classmethod
    def check(cls) -> CheckResult:
        for engine_cls in _engine_classes():
            if engine_cls.check_engine():
                return CheckResult(True)
        # Translators: spoken when no voice that can write audio files is installed.
        return CheckResult(False, _("No voice that can write audio files is installed."))

    @property
    def capabilities(self) -> Capabilities:
        caps = self.engine.capabilities
        return Capabilities(
            can_stream=False,
            writes_files=True,
            per_utterance_voice=caps.per_utterance_voice,
            can_tone=True,
            voices=caps.voices,
            rate_range=caps.rate_range,
            pitch_range=caps.pitch_range,
            volume_range=caps.volume_range,
            sample_rate=caps.sample_rate,
            languages=caps.languages,
        )

    @property
    def sample_rate(self) -> int:
        return self.engine.capabilities.sample_rate

    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        rate = self.sample_rate
        languages = self.languages
        parts = (
            languages.plan(request, self.engine) if languages is not None else [Part(request, self.engine)]
        )
        pieces: list[np.ndarray] = []
        heard: list[Heard] = []
        part_gap = np.zeros(int(rate * PART_GAP_S), dtype=np.int16)
        while parts:
            part = parts.pop(0)
            engine = part.backend
            if not isinstance(engine, PcmBackend):
                raise TypeError(f"{engine.name} cannot render audio for a file")
            try:
                pcm = engine.render(part.request.clamped(engine.capabilities), cancel)
            except (BackendUnavailable, OSError, RuntimeError, ValueError) as exc:
                if engine is self.engine or languages is None:
                    raise
                log.warning("language voice %s failed (%r)", engine.name, exc)
                languages.drop(engine)
                parts[:0] = languages.plan(part.request, self.engine)
                continue
            if cancel.is_set():
                return False
            if pieces:
                pieces.append(part_gap)
            pieces.append(resample(pcm, engine.capabilities.sample_rate, rate))
            req = part.request
            heard.append(Heard(request.tag, req.text, req.language, engine.name, req.voice, part.notice))
        pcm = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int16)
        gap = np.zeros(int(rate * GAP_S), dtype=np.int16)
        with self._lock:
            if request.tag:
                self._marks.append(Mark(request.tag, self._length))
            self._chunks.extend((pcm, gap))
            self._heard.extend(heard)
            self._length += pcm.size + gap.size
        return True

    def take(self) -> tuple[np.ndarray, list[Mark]]:
        """The audio rendered so far and its marks; the backend starts empty again."""
        with self._lock:
            audio = np.concatenate(self._chunks) if self._chunks else np.zeros(0, dtype=np.int16)
            marks = list(self._marks)
            self._chunks, self._marks, self._length = [], [], 0
        return audio, marks

    def take_heard(self) -> list[Heard]:
        """Who said each run since the last call (the voice of every language run)."""
        with self._lock:
            heard, self._heard = self._heard, []
        return heard

    def terminate(self) -> None:
        self.engine.terminate()
        if self.languages is not None:
            self.languages.terminate()


def _engine_classes() -> list[type[PcmBackend]]:
    """The engines that can write a book's audio, best first: the reading-aloud preference
    (Piper's neural voice before espeak-ng), so a file gets the best installed voice."""
    # Imported here: the engines are siblings found by discovery, not dependencies of export.
    from panelvox.speech.discovery import FALLBACK_ORDER, discover_backends

    classes = discover_backends()
    return [
        cls
        for name in FALLBACK_ORDER
        if (cls := classes.get(name)) is not None and issubclass(cls, PcmBackend)
    ]


def _first_engine() -> PcmBackend:
    for engine_cls in _engine_classes():
        if engine_cls.check_engine():
            return engine_cls()
    raise BackendUnavailable(_("No voice that can write audio files is installed."), detail="no PCM engine")


def engine_by_name(name: str) -> PcmBackend:
    """A PCM engine by backend name ("pyttsx3" or "piper"), checked."""
    for engine_cls in _engine_classes():
        if engine_cls.name == name:
            result = engine_cls.check_engine()
            if not result:
                raise BackendUnavailable(result.reason, detail=f"{name} engine unavailable")
            return engine_cls()
    raise BackendUnavailable(
        # Translators: spoken when the user asks for a voice that cannot write audio files.
        _("The voice {name} cannot write audio files.").format(name=name),
        detail=f"no PCM engine named {name}",
    )
