"""The speech driver contract, NVDA style.

A backend is a class with ``name``, ``description``, a ``check()`` classmethod ("can it run
here?"), its :class:`Capabilities` as data, a blocking :meth:`SpeechBackend.speak` that the
:class:`~panelvox.speech.queue.SpeechQueue` calls on its worker thread, :meth:`stop` (called
from any thread to silence it at once) and :meth:`terminate`.

Backends that synthesise audio themselves (espeak-ng, Piper) derive from :class:`PcmBackend`:
they yield 16-bit mono PCM chunks, which go to an :class:`~panelvox.speech.audio_sink.AudioSink`
when speaking, or into a WAV file when exporting.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np

from panelvox.i18n import _
from panelvox.speech.audio_sink import AudioSink, find_player


class Priority(IntEnum):
    """How urgently something must be heard (NVDA's speech priorities)."""

    NOW = 0  # interrupts whatever is speaking and drops the queue
    NEXT = 1  # spoken before anything NORMAL still waiting, without interrupting
    NORMAL = 2


@dataclass(frozen=True, slots=True)
class Voice:
    id: str
    name: str
    language: str = ""
    gender: str = ""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do, as data (calibre style), so callers never probe."""

    can_stream: bool = False  # audio starts before the whole text is synthesised
    writes_files: bool = False  # can render PCM for WAV export
    per_utterance_voice: bool = False  # voice may change between utterances (character voices)
    reports_done: bool = True  # speak() returns when the audio really ended
    can_tone: bool = False  # can play a short tone (the "uncertain" cue)
    voices: tuple[Voice, ...] = ()
    #: user-facing ranges: rate and pitch are multipliers of normal (1.0), volume 0..1
    rate_range: tuple[float, float] = (1.0, 1.0)
    pitch_range: tuple[float, float] = (1.0, 1.0)
    volume_range: tuple[float, float] = (1.0, 1.0)
    sample_rate: int = 0  # of the PCM it renders (0 when it renders none)
    #: languages it speaks as a reader would (ISO 639-1); "*": any, the text is passed on
    #: with its language (a screen reader) or not spoken at all (silence). A voice that
    #: would spell a script letter by letter ("Japanese letter") does not list its language.
    languages: tuple[str, ...] = ("*",)

    def speaks(self, language: str) -> bool:
        """Whether ``language`` (a BCP 47 tag or its primary subtag) is one it speaks."""
        primary = language.split("-")[0].lower()
        return "*" in self.languages or primary in self.languages


@dataclass(frozen=True, slots=True)
class SpeechRequest:
    """One thing to say, with how to say it."""

    text: str
    voice: str | None = None  # a Voice.id of the backend; None: its default
    rate: float = 1.0
    pitch: float = 1.0
    volume: float = 1.0
    language: str = "en"
    tone_before: bool = False  # play the uncertainty cue tone first
    tag: str = ""  # caller's id (e.g. the utterance's block id), echoed in done callbacks
    #: the speaker's voice variant ("f2", "m1": voices/manifest.json's palette), whatever the
    #: backend: a voice of another language picks its own voice for the speaker by it
    variant: str = ""

    def clamped(self, caps: Capabilities) -> SpeechRequest:
        """The same request with rate, pitch and volume inside what ``caps`` supports."""
        from dataclasses import replace

        return replace(
            self,
            rate=_clamp(self.rate, caps.rate_range),
            pitch=_clamp(self.pitch, caps.pitch_range),
            volume=_clamp(self.volume, caps.volume_range),
        )


def _clamp(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The answer of ``check()``: available or not, and why not in one plain sentence."""

    available: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.available


class SpeechBackend(ABC):
    """One output device for speech."""

    #: stable short name used in settings and on the command line
    name: ClassVar[str]
    #: one line shown to the user when choosing a voice output
    description: ClassVar[str]

    @classmethod
    @abstractmethod
    def check(cls) -> CheckResult:
        """Whether this backend can run on this machine now (cheap; no speech)."""

    @property
    @abstractmethod
    def capabilities(self) -> Capabilities: ...

    @abstractmethod
    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        """Say ``request``; block until it has been heard. Return False if cancelled.

        ``cancel`` is set (and :meth:`stop` called) when the queue is interrupted.
        """

    def stop(self) -> None:  # noqa: B027 - optional hook
        """Silence current speech at once. Called from any thread."""

    def terminate(self) -> None:  # noqa: B027 - optional hook
        """Release engines, sockets and processes."""


class PcmBackend(SpeechBackend):
    """A backend that synthesises 16-bit mono PCM itself and plays it through a sink."""

    #: the sink that plays speech; tests and benchmarks pass a recording sink
    sink: AudioSink | None

    def __init__(self, sink: AudioSink | None = None) -> None:
        self.sink = sink

    @classmethod
    def check_engine(cls) -> CheckResult:
        """Can it synthesise here (for export), whatever the sound output?"""
        return cls.check()

    @abstractmethod
    def synthesize(self, request: SpeechRequest, cancel: threading.Event) -> Iterator[np.ndarray]:
        """Yield int16 mono chunks at ``capabilities.sample_rate`` until done or cancelled."""

    def render(self, request: SpeechRequest, cancel: threading.Event | None = None) -> np.ndarray:
        """The whole utterance as one int16 array (for export), cue tone included."""
        ev = cancel or threading.Event()
        parts = [tone(self.capabilities.sample_rate)] if request.tone_before else []
        parts.extend(self.synthesize(request, ev))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)

    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        sink = self.sink
        if sink is None:
            from panelvox.speech.audio_sink import default_sink

            sink = self.sink = default_sink()
        rate = self.capabilities.sample_rate
        sink.open(rate)
        try:
            if request.tone_before:
                sink.write(tone(rate))
            for chunk in self.synthesize(request, cancel):
                if cancel.is_set():
                    break
                sink.write(chunk)
            if cancel.is_set():
                sink.abort()
                return False
            sink.drain(cancel)
            return not cancel.is_set()
        finally:
            sink.close()

    def stop(self) -> None:
        sink = self.sink
        if sink is not None:
            sink.abort()


class ChunkedPcmBackend(PcmBackend):
    """A voice that makes its audio a piece at a time (Kokoro, Open JTalk, Piper): :meth:`pieces`
    cuts a request into pieces (sentences, the line; never None), a lazy iterable may synthesise
    as it goes (Piper), and :meth:`samples` makes a piece's int16 samples."""

    #: silence between two pieces of one request, in seconds
    pause_s: ClassVar[float] = 0.0

    def __init__(self, sink: AudioSink | None = None) -> None:
        super().__init__(sink)
        self._lock = threading.Lock()  # the engines keep one session: one synthesis at a time

    @classmethod
    def check(cls) -> CheckResult:
        result = cls.check_engine()
        if result and find_player() is None:
            return CheckResult(False, _("No audio player is installed, so speech cannot be played."))
        return result

    @abstractmethod
    def pieces(self, request: SpeechRequest) -> Iterable[Any]: ...

    @abstractmethod
    def samples(self, piece: Any, request: SpeechRequest) -> np.ndarray: ...

    def synthesize(self, request: SpeechRequest, cancel: threading.Event) -> Iterator[np.ndarray]:
        pause = np.zeros(int(self.capabilities.sample_rate * self.pause_s), dtype=np.int16)
        pieces = iter(self.pieces(request))
        piece = next(pieces, None)
        # Cancel is checked before each piece is made, and the next piece asked for only once
        # this one is in the sink: the first is heard early, a key stops within the one heard.
        while piece is not None and not cancel.is_set():
            yield self.samples(piece, request)
            if (piece := next(pieces, None)) is not None and pause.size:
                yield pause


def tone(sample_rate: int, *, freq: float = 880.0, seconds: float = 0.09, volume: float = 0.3) -> np.ndarray:
    """A short soft beep followed by a little silence: the "uncertain" cue."""
    n = int(sample_rate * seconds)
    t = np.arange(n) / sample_rate
    envelope = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.01) if n else t
    wave = np.sin(2 * np.pi * freq * t) * envelope * volume
    gap = np.zeros(int(sample_rate * 0.06))
    return (np.concatenate([wave, gap]) * 32767).astype(np.int16)


@dataclass(frozen=True, slots=True)
class BackendInfo:
    """A discovered backend class and its check result, for listings."""

    name: str
    description: str
    check: CheckResult
    cls: type[SpeechBackend] = field(repr=False, compare=False)


def resample(pcm: np.ndarray, rate: int, to: int) -> np.ndarray:
    """16-bit mono ``pcm`` from ``rate`` to ``to`` Hz (voices of two engines in one file).

    Band-limited first when going down (a windowed-sinc low-pass under the new Nyquist
    frequency), then linear interpolation: plain speech needs no more."""
    if rate == to or pcm.size == 0:
        return pcm
    x = pcm.astype(np.float64)
    if to < rate:
        cutoff = 0.45 * to / rate  # of the input's sample rate
        n = np.arange(-32, 33)
        taps = 2 * cutoff * np.sinc(2 * cutoff * n) * np.hamming(n.size)
        x = np.convolve(x, taps / taps.sum(), mode="same")
    out_n = round(pcm.size * to / rate)
    y = np.interp(np.arange(out_n) * (rate / to), np.arange(pcm.size), x)
    return np.clip(np.round(y), -32768, 32767).astype(np.int16)
