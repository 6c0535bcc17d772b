"""The pages a worker should analyse next, most wanted first, and how one is done.

The controller replaces the wanted list after every move (the current page first, then
the pages ahead), so pages the user jumped away from are never started; a worker thread
takes from it. Qt-free: the view runs :meth:`take` in a ``QThread`` and sends results back
with a queued signal. :func:`run_job` reads the page through the book's page service; the
service's analyzer is, in the reader, a worker process
(:mod:`panelvox.reader.analysis_worker`), and in tests that inject cheap stages, those
stages run in the thread itself.

Once the wanted pages are done, the rest of the book is *learned* in the background
(:attr:`Job.learn`): each page is analysed (or taken from the disk cache) into the book's
names through the page service, as ``export`` learns a book, and not kept here; then the
pages the reader holds are named again (:attr:`Job.relabel`), so the reader says the labels
the export says. Background jobs always come after the wanted ones: a move replaces the
list, so a wanted page waits for at most the one background page already being analysed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from panelvox.books import Book
from panelvox.errors import PanelvoxError
from panelvox.model import PageAnalysis, ReadingDirection
from panelvox.pages import PageService
from panelvox.reader.position import page_number

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Job:
    token: int  # which opening of which book (results for an old token are dropped)
    pages: PageService[Book]  # the open book's page service
    page: int  # 0-based page index
    direction: ReadingDirection
    #: the page analysed again with its running text read (T; ``pages`` reads it that way)
    text: bool = False
    #: background: the page is learned into the book's names, not read for the reader
    learn: bool = False
    #: after learning, these pages (0-based, those the reader holds) are named again
    relabel: tuple[int, ...] = ()

    @property
    def book(self) -> Book:
        return self.pages.book


@dataclass(frozen=True, slots=True)
class JobResult:
    token: int
    page: int
    analysis: PageAnalysis | None
    error: str | None  # one spoken sentence when the page cannot be read
    seconds: float
    text: bool = False  # the page read with its running text (see :class:`Job`)
    learned: bool = False  # a background job: the page was learned (or failed), not read
    #: the pages of :attr:`Job.relabel` as the page service names them now (those with anyone)
    relabelled: tuple[PageAnalysis, ...] = ()
    relabel: tuple[int, ...] = ()  # the pages asked to be named again (:attr:`Job.relabel`)


class WorkQueue(Generic[T]):
    """A replaceable, thread-safe list of work items, most wanted first."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: list[T] = []
        self._closed = False

    def set_wanted(self, jobs: Sequence[T]) -> None:
        with self._cond:
            self._pending = list(jobs)
            self._cond.notify_all()

    def put_first(self, job: T) -> None:
        """``job`` before every other (a page the user asked for by a key)."""
        with self._cond:
            self._pending.insert(0, job)
            self._cond.notify_all()

    def pending(self) -> int:
        with self._cond:
            return len(self._pending)

    def take(self, timeout: float | None = None) -> T | None:
        """The most wanted job, waiting up to ``timeout``; None when closed or timed out."""
        with self._cond:
            self._cond.wait_for(lambda: self._pending or self._closed, timeout)
            if self._closed or not self._pending:
                return None
            return self._pending.pop(0)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._pending.clear()
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        with self._cond:
            return self._closed


class AnalysisJobs(WorkQueue[Job]):
    """A replaceable, thread-safe list of pages to work on."""


def run_job(job: Job) -> JobResult:
    """Read one page through the book's page service; a bad page becomes a spoken sentence."""
    start = time.perf_counter()
    if job.learn:
        return _learn(job, start)
    try:
        analysis = job.pages.read(page_number(job.page), job.direction)
    except PanelvoxError as exc:
        log.warning("page %d not analysed: %s", page_number(job.page), exc.detail or exc.message)
        return JobResult(job.token, job.page, None, exc.message, time.perf_counter() - start, job.text)
    return JobResult(job.token, job.page, analysis, None, time.perf_counter() - start, job.text)


def _learn(job: Job, start: float) -> JobResult:
    """A background job: the page learned into the book's names (a page that cannot be read
    is logged and passed over, never the end of the pass), then the held pages named again."""
    learned = job.pages.learn(page_number(job.page))
    relabelled = tuple(a for i in job.relabel if (a := job.pages.named(page_number(i))) is not None)
    error = None if learned else "not learned"  # logged by the page service, never said
    return JobResult(
        job.token,
        job.page,
        None,
        error,
        time.perf_counter() - start,
        learned=True,
        relabelled=relabelled,
        relabel=job.relabel,
    )
