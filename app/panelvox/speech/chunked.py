"""The synthesise-and-chunk loop that Kokoro, Open JTalk and Piper share.

A request's text is cut into pieces (sentences, or the whole line); each piece becomes int16
samples only when the previous one has been handed on, so the first piece is heard while the
next is made, and an interruption stops the utterance before the next piece is made.
:class:`~panelvox.speech.backend.PcmBackend` plays the samples or joins them into a file.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

import numpy as np

from panelvox.i18n import _
from panelvox.speech.audio_sink import AudioSink, find_player
from panelvox.speech.backend import CheckResult, PcmBackend, SpeechRequest


class ChunkedPcmBackend(PcmBackend):
    """A voice that makes its audio a piece at a time: :meth:`pieces`, then :meth:`samples`."""

    #: silence between two pieces of one request, in seconds (0: none, not even an empty chunk)
    pause_s: ClassVar[float] = 0.0

    def __init__(self, sink: AudioSink | None = None) -> None:
        super().__init__(sink)
        # The engines keep one session in module or object state: one synthesis at a time.
        self._lock = threading.Lock()

    @classmethod
    @abstractmethod
    def check_engine(cls) -> CheckResult: ...

    @classmethod
    def check(cls) -> CheckResult:
        result = cls.check_engine()
        if result and find_player() is None:
            return CheckResult(False, _("No audio player is installed, so speech cannot be played."))
        return result

    @abstractmethod
    def pieces(self, request: SpeechRequest) -> Iterable[Any]:
        """The request's pieces in order; a lazy iterable may synthesise as it goes (Piper)."""

    @abstractmethod
    def samples(self, piece: Any, request: SpeechRequest) -> np.ndarray:
        """One piece as int16 mono samples at ``capabilities.sample_rate``."""

    def synthesize(self, request: SpeechRequest, cancel: threading.Event) -> Iterator[np.ndarray]:
        pause = int(self.capabilities.sample_rate * self.pause_s)
        pieces = iter(self.pieces(request))
        piece = next(pieces, _END)
        while piece is not _END:
            # Checked before each piece is made: a key press stops within the piece being heard.
            if cancel.is_set():
                return
            yield self.samples(piece, request)
            # The next piece is asked for only now, after this one has gone to the sink.
            piece = next(pieces, _END)
            if pause and piece is not _END:
                yield np.zeros(pause, dtype=np.int16)


_END = object()
