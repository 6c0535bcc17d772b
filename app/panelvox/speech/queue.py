"""One speech queue with priorities and a single interruption point (Orca's
``interrupt_presentation``): :meth:`SpeechQueue.interrupt` silences the backend and drops
everything still waiting, together.

Speech runs on one worker thread (no Qt); done-callbacks are called on that thread, so a
UI must hand them to its own thread (e.g. a queued signal).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from panelvox.errors import PanelvoxError
from panelvox.speech.backend import Priority, SpeechBackend, SpeechRequest
from panelvox.speech.language_voices import LanguageVoices, Part

log = logging.getLogger(__name__)

#: Called when an item is finished: with True when it was heard to the end,
#: False when it was interrupted or dropped.
DoneCallback = Callable[[SpeechRequest, bool], None]
#: Called when the queue gives up a failing backend for the next one: (old, new, reason).
FallbackCallback = Callable[[str, str, str], None]


@dataclass(order=True, frozen=True, slots=True)
class _Item:
    priority: int
    seq: int
    request: SpeechRequest = field(compare=False)
    on_done: DoneCallback | None = field(compare=False, default=None)


class SpeechQueue:
    """Speaks requests through the first working backend of ``backends``, in priority order.

    ``backends`` is a fallback chain: when one fails while speaking, the queue logs it,
    moves to the next and says the item again; the chain should end in ``silence``.
    ``languages`` gives lettering in another language than the main voice speaks to a
    voice of that language (:class:`~panelvox.speech.language_voices.LanguageVoices`).
    """

    def __init__(
        self,
        backends: Sequence[SpeechBackend],
        *,
        on_fallback: FallbackCallback | None = None,
        languages: LanguageVoices | None = None,
    ) -> None:
        if not backends:
            raise ValueError("a speech queue needs at least one backend")
        self._chain = list(backends)
        self._languages = languages
        self._speaking: SpeechBackend | None = None  # the language voice saying a part now
        self._on_fallback = on_fallback
        self._cond = threading.Condition()
        self._heap: list[_Item] = []
        self._seq = itertools.count()
        self._current: _Item | None = None
        self._cancel = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None

    # -- public API ------------------------------------------------------------------
    @property
    def backend(self) -> SpeechBackend:
        """The backend speaking now (the first of the chain still working)."""
        return self._chain[0]

    def say(
        self,
        request: SpeechRequest | str,
        priority: Priority = Priority.NORMAL,
        on_done: DoneCallback | None = None,
    ) -> None:
        """Queue ``request``. NOW interrupts everything first; NEXT goes before NORMAL."""
        req = SpeechRequest(request) if isinstance(request, str) else request
        if priority is Priority.NOW:
            self.interrupt()
        with self._cond:
            if self._closed:
                raise RuntimeError("speech queue is closed")
            heapq.heappush(self._heap, _Item(int(priority), next(self._seq), req, on_done))
            self._ensure_worker()
            self._cond.notify_all()

    def interrupt(self) -> None:
        """Silence current speech and drop all queued items (their callbacks get False)."""
        with self._cond:
            dropped = [heapq.heappop(self._heap) for _ in range(len(self._heap))]
            self._cancel.set()
            backend = self._chain[0]
            speaking = self._speaking
        backend.stop()
        if speaking is not None and speaking is not backend:
            speaking.stop()
        for item in dropped:
            _notify(item, completed=False)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing is speaking or queued. False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._heap and self._current is None, timeout)

    def close(self) -> None:
        """Interrupt, stop the worker and terminate the backends."""
        self.interrupt()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5)
        for backend in self._chain:
            backend.terminate()
        if self._languages is not None:
            self._languages.terminate()

    def __enter__(self) -> SpeechQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- worker ------------------------------------------------------------------------
    def _ensure_worker(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="panelvox-speech", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._heap or self._closed)
                if self._closed:
                    return
                item = heapq.heappop(self._heap)
                self._current = item
                self._cancel = cancel = threading.Event()
            completed = self._speak(item, cancel)
            with self._cond:
                self._current = None
                self._cond.notify_all()
            _notify(item, completed=completed)

    def _speak(self, item: _Item, cancel: threading.Event) -> bool:
        while True:
            backend = self._chain[0]
            try:
                return self._speak_parts(item.request, backend, cancel)
            except (PanelvoxError, OSError, RuntimeError, ValueError) as exc:
                if len(self._chain) == 1:
                    log.error("last speech backend %s failed: %r", backend.name, exc)
                    return False
                with self._cond:
                    self._chain.pop(0)
                    new = self._chain[0]
                reason = exc.message if isinstance(exc, PanelvoxError) else str(exc)
                log.warning("speech backend %s failed (%r); falling back to %s", backend.name, exc, new.name)
                backend.terminate()
                if self._on_fallback is not None:
                    self._on_fallback(backend.name, new.name, reason)
                if cancel.is_set():
                    return False

    def _speak_parts(self, request: SpeechRequest, main: SpeechBackend, cancel: threading.Event) -> bool:
        """Say each language run by its voice; a failing language voice gives way to the next
        of its language (or to the once-only notice), a failing main voice raises."""
        languages = self._languages
        parts = languages.plan(request, main) if languages is not None else [Part(request, main)]
        while parts:
            part = parts.pop(0)
            with self._cond:
                self._speaking = part.backend
            if part.backend is not main:
                # which voice said which words: the record a listener's report (or a test) reads
                log.debug(
                    "language voice %s says %r (%s)",
                    part.backend.name,
                    part.request.text,
                    part.request.language,
                )
            try:
                if not part.backend.speak(part.request.clamped(part.backend.capabilities), cancel):
                    return False
            except (PanelvoxError, OSError, RuntimeError, ValueError) as exc:
                if part.backend is main or languages is None:
                    raise
                log.warning("language voice %s failed (%r)", part.backend.name, exc)
                languages.drop(part.backend)
                part.backend.terminate()
                parts[:0] = languages.plan(part.request, main)
            finally:
                with self._cond:
                    self._speaking = None
        return not cancel.is_set()


def _notify(item: _Item, *, completed: bool) -> None:
    if item.on_done is None:
        return
    try:
        item.on_done(item.request, completed)
    except Exception:  # a listener's bug must not stop speech
        log.exception("speech done-callback failed")
