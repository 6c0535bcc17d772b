"""Page analysis in a separate worker process, so the reader's process never runs it.

Native calls of the pipeline (OpenCV, onnxruntime, numpy) hold the GIL for tens of
milliseconds; run in a thread of the UI process they make the UI late. Here the UI side
(:class:`ProcessAnalyzer`, the page service's analyzer, called on the view's analysis thread) sends a small
:class:`PageRequest` — the book's path, content hash, page and reading direction, never the
book itself — to one worker process started with the ``spawn`` method (a Qt process must
never fork). The worker opens the book itself, builds ``default_stages()`` once (the OCR
sessions load once), analyses through the shared on-disk :class:`PageAnalyzer` cache and
answers with ``PageAnalysis.to_json()``. The book's names are applied on the reader's side,
by the page service (they depend on the user's store and the pages read so far). A request
to read a page's running text (T) is analysed by the same stages with the text stage's
``read_dense``, sharing its models, under that pipeline's own cache fingerprint.

A worker that dies (a crash in native code, the out-of-memory killer) costs the page it was
on — announced as not analysable — and a new worker starts on the next request. A worker
left idle for ``idle_exit_s`` ends by itself, giving back the memory of its models (one
model set per process); the next request starts a new one, and a request that crosses its
exit is sent again to a new one. Waiting is
a pipe poll: the UI process holds no lock while the worker works. Qt-free.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panelvox.analysis.cache import PageImages
from panelvox.errors import AnalysisError, BookError, PanelvoxError, SchemaError
from panelvox.i18n import _
from panelvox.model import PageAnalysis, ReadingDirection
from panelvox.reader.position import page_index, page_number

if TYPE_CHECKING:
    from panelvox.pages import PageSource

log = logging.getLogger(__name__)

_POLL_S = 0.1
_JOIN_S = 5.0
#: seconds without a request after which the worker ends to free its memory
IDLE_EXIT_S = 120.0


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What the worker needs to analyse one page: plain values, cheap to send."""

    book_path: str
    content_hash: str  # the book the UI opened; a different file at the path is refused
    page: int  # 0-based page index
    direction: str  # ReadingDirection value (the user's override included)
    read_text: bool = False  # running text read in full (T), cached under its own key


@dataclass(frozen=True, slots=True)
class PageReply:
    page: int
    analysis: dict[str, Any] | None  # PageAnalysis.to_json()
    error: str | None  # one spoken sentence
    seconds: float


class WorkerGone(Exception):
    """The worker process ended or stopped answering."""


class _EndedIdle(Exception):
    """The worker ended by itself (idle) just as a request was sent."""


def _not_analysable(page: int) -> str:
    # Translators: said when the analysis of a page failed unexpectedly; {n} is the page number.
    return _("Page {n} could not be analysed.").format(n=page_number(page))


# -- the worker process -------------------------------------------------------------------


#: how much less CPU priority the worker takes than the reader (POSIX nice increment)
WORKER_NICENESS = 10


def lower_priority(step: int = WORKER_NICENESS) -> int:
    """Give this process less CPU priority than the reader's, so a key press is answered
    while a book is analysed on a busy machine; returns the niceness now (0 where the
    platform has none)."""
    nice = getattr(os, "nice", None)
    if nice is None:  # Windows: left as it is
        return 0
    try:
        return int(nice(step))
    except OSError as exc:
        log.info("analysis worker keeps its priority: %r", exc)
        return int(nice(0))


def worker_main(conn: Connection, cache_dir: str | None, idle_exit_s: float | None = None) -> None:
    """The worker process: build the pipeline once, then answer requests until told to stop
    or left idle for ``idle_exit_s`` seconds (None: never). It runs at a lower priority than
    the reader (:func:`lower_priority`)."""
    lower_priority()
    from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint
    from panelvox.analysis.pipeline import default_stages
    from panelvox.books import Book, open_book
    from panelvox.reader.text_reading import text_analyzer

    stages = default_stages()
    cache = AnalysisCache(Path(cache_dir), pipeline_fingerprint(stages)) if cache_dir else None
    analyzer = PageAnalyzer(stages, cache)
    reading: PageSource | None = None  # the same stages reading running text: made on first T
    book: Book | None = None
    try:
        while True:
            try:
                if idle_exit_s is not None and not conn.poll(idle_exit_s):
                    log.info("analysis worker idle for %.0f s: ending to free its memory", idle_exit_s)
                    return
                request = conn.recv()
            except (EOFError, OSError):  # the reader is gone
                return
            if not isinstance(request, PageRequest):
                return  # None: a clean shutdown
            start = time.perf_counter()
            direction = ReadingDirection(request.direction)
            try:
                if (
                    book is None
                    or str(book.path) != request.book_path
                    or book.content_hash != request.content_hash
                ):
                    if book is not None:
                        book.close()
                        book = None
                    book = open_book(Path(request.book_path), direction_override=direction)
                if book.content_hash != request.content_hash:
                    # Translators: said when a book's file was replaced while it was being read.
                    raise BookError(_("This book changed on disk. Open it again."), detail=request.book_path)
                source: PageSource = analyzer
                if request.read_text:
                    source = reading = reading or text_analyzer(analyzer)
                analysis = source.analyze_page(book, page_number(request.page), direction)
                reply = PageReply(request.page, analysis.to_json(), None, time.perf_counter() - start)
            except PanelvoxError as exc:
                log.warning("page %d not analysed: %s", page_number(request.page), exc.detail or exc.message)
                reply = PageReply(request.page, None, exc.message, time.perf_counter() - start)
            except Exception:  # a pipeline bug costs this page, not the worker
                log.exception("worker failed on page %d of %s", page_number(request.page), request.book_path)
                reply = PageReply(
                    request.page, None, _not_analysable(request.page), time.perf_counter() - start
                )
            conn.send(reply)
    finally:
        if book is not None:
            book.close()
        conn.close()


# -- the reader's side --------------------------------------------------------------------


class ProcessAnalyzer:
    """Runs analysis jobs in one worker process, started on first need and after a crash.

    Call it (one job at a time) from a worker thread of the reader: it blocks that thread,
    not the UI. ``cancelled()`` is polled while waiting, so quitting never waits for a page;
    :meth:`close` ends the worker.
    """

    def __init__(
        self,
        cache_dir: Path | None,
        *,
        cancelled: Callable[[], bool] = lambda: False,
        reply_timeout: float = 600.0,
        idle_exit_s: float | None = IDLE_EXIT_S,
    ) -> None:
        self.cache_dir = cache_dir  # None: no cache
        self.cancelled = cancelled
        self.reply_timeout = reply_timeout
        self.idle_exit_s = idle_exit_s
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self.started = 0  # workers started so far (a crash makes it grow)
        self.working_on: int | None = None  # the page sent and not yet answered (0-based)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.is_alive() else None

    def start(self) -> None:
        """Start the worker now (it loads the pipeline while the reader opens a book)."""
        conn = self._conn
        if self._proc is not None and self._proc.is_alive() and conn is not None:
            try:
                if not conn.poll(0):  # an idle worker has nothing to say: readable means it died
                    return
            except OSError:
                log.debug("analysis worker's pipe is closed")
        self._discard()
        ours, theirs = self._ctx.Pipe()
        cache = str(self.cache_dir) if self.cache_dir is not None else None
        proc = self._ctx.Process(
            target=worker_main,
            args=(theirs, cache, self.idle_exit_s),
            name="panelvox-analysis",
            daemon=True,
        )
        proc.start()
        theirs.close()  # only the worker holds its end: its death reads as end of file here
        self._proc, self._conn = proc, ours
        self.started += 1
        log.info("analysis worker %d started", proc.pid)

    def reading_text(self) -> PageSource:
        """This worker as the analyzer that reads running text too (T)."""
        return _ReadingText(self)

    def analyze_page(
        self, book: PageImages, page: int, direction: ReadingDirection, *, read_text: bool = False
    ) -> PageAnalysis:
        """Page ``page`` (1-based) of ``book``, analysed by the worker (``read_text``: its
        running text read too); :class:`AnalysisError` (one spoken sentence) when it cannot
        be, the worker lost included."""
        index = page_index(page)
        request = PageRequest(str(book.path), book.content_hash, index, direction.value, read_text)
        try:
            return self._analyze(request)
        except _EndedIdle:  # it ended by itself as the request went out: a new one takes it
            log.info("analysis worker ended idle as page %d was asked; asking a new one", page)
            self._discard()
        try:
            return self._analyze(request)
        except _EndedIdle as exc:
            self._discard()
            raise AnalysisError(_not_analysable(index), detail="two workers ended idle") from exc

    def _analyze(self, request: PageRequest) -> PageAnalysis:
        index, page = request.page, page_number(request.page)
        try:
            self.start()
            assert self._conn is not None
            self._conn.send(request)
            self.working_on = index
            try:
                reply = self._wait(self._conn)
            finally:
                self.working_on = None
            if reply.analysis is None:
                raise AnalysisError(
                    reply.error or _not_analysable(index), detail="the worker could not read it"
                )
            return PageAnalysis.from_json(reply.analysis)
        except (WorkerGone, EOFError, OSError) as exc:
            proc = self._proc
            if proc is not None:
                proc.join(_POLL_S)
                if proc.exitcode == 0:  # a clean end, not asked for: it was idle
                    raise _EndedIdle from exc
            log.error("analysis worker lost on page %d: %s", page, exc)
            self._discard()
            raise AnalysisError(_not_analysable(index), detail=repr(exc)) from exc
        except SchemaError as exc:
            log.error("analysis worker sent a bad page %d: %s", page, exc.detail)
            raise AnalysisError(_not_analysable(index), detail=exc.detail) from exc

    def _wait(self, conn: Connection) -> PageReply:
        deadline = time.monotonic() + self.reply_timeout
        while not conn.poll(_POLL_S):
            proc = self._proc
            if proc is None or not proc.is_alive():
                raise WorkerGone(f"worker exited with code {proc.exitcode if proc else None}")
            if self.cancelled():
                raise WorkerGone("cancelled: the reader is closing")
            if time.monotonic() > deadline:
                raise WorkerGone(f"no answer in {self.reply_timeout:.0f} s")
        reply = conn.recv()
        if not isinstance(reply, PageReply):
            raise WorkerGone(f"unexpected answer {type(reply).__name__}")
        return reply

    def _discard(self) -> None:
        """Forget the worker, ending it if it still runs (hung, or cancelled mid-page)."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            conn.close()
        if proc is not None:
            if proc.is_alive():
                proc.kill()
            proc.join(_JOIN_S)

    def close(self) -> None:
        """End the worker: asked politely first, then killed."""
        proc, conn = self._proc, self._conn
        if conn is not None and proc is not None and proc.is_alive():
            try:
                conn.send(None)
            except OSError:
                log.debug("analysis worker already gone")
            proc.join(_JOIN_S)
        self._discard()


class _ReadingText:
    """A :class:`ProcessAnalyzer` asked to read running text too: the same worker."""

    def __init__(self, process: ProcessAnalyzer) -> None:
        self.process = process

    def analyze_page(self, book: PageImages, page: int, direction: ReadingDirection) -> PageAnalysis:
        return self.process.analyze_page(book, page, direction, read_text=True)
