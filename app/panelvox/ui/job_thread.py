"""Worker threads: page analysis and page pictures, off the UI thread.

Each ``JobThread`` takes jobs from a Qt-free :class:`AnalysisJobs` list and sends every
result back with a queued signal, so the UI thread only ever receives finished work. Page
analysis itself runs in a worker process (:class:`~panelvox.reader.analysis_worker.ProcessAnalyzer`,
which the reader closes when it closes); its thread here only waits on a pipe and names the
page, so the UI process holds the GIL for little of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtGui import QImage

from panelvox.errors import PanelvoxError
from panelvox.reader.analysis_jobs import Job, WorkQueue

log = logging.getLogger(__name__)

Work = Callable[[Any], object]


class JobThread(QThread):
    """Runs ``make_work()`` once on the thread (model loading is slow), then every job."""

    done = Signal(object)

    def __init__(
        self, jobs: WorkQueue[Any], make_work: Callable[[], Work], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.make_work = make_work

    def run(self) -> None:
        work = self.make_work()
        while not self.jobs.closed:
            job = self.jobs.take(timeout=0.2)
            if job is None:
                continue
            try:
                result = work(job)
            except Exception:  # a worker bug must not end reading; the page stays unanalysed
                log.exception("worker failed on %r", job)
                continue
            self.done.emit(result)

    def stop(self) -> None:
        self.jobs.close()
        self.wait(10_000)


class PageImage:
    """A decoded page picture (QImage is safe to build off the UI thread, QPixmap is not)."""

    def __init__(self, token: int, page: int, image: QImage | None, error: str | None) -> None:
        self.token, self.page, self.image, self.error = token, page, image, error


def load_image(job: Job) -> PageImage:
    try:
        pil = job.book.load_page(job.page)
    except PanelvoxError as exc:
        return PageImage(job.token, job.page, None, exc.message)
    data = pil.tobytes("raw", "RGB")
    image = QImage(data, pil.width, pil.height, pil.width * 3, QImage.Format.Format_RGB888).copy()
    return PageImage(job.token, job.page, image, None)


class Poster(QObject):
    """Runs callables on the thread this object lives in (the UI thread)."""

    call = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.call.connect(self._run)

    def _run(self, fn: object) -> None:
        if callable(fn):
            fn()

    def post(self, fn: Callable[[], None]) -> None:
        self.call.emit(fn)
