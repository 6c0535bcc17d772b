"""A whole library exported: every book of a folder, one output per book, in worker
processes (``workers``) or on a Dask ``distributed`` cluster (``scheduler``).

Resumable: a book's output appears only when complete (:mod:`panelvox.export.package`), so
a finished book is skipped on the next run and an interrupted one starts again cleanly. A
book that cannot be exported is reported with its one-sentence reason; the batch goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from panelvox import paths
from panelvox.books.naming import natural_key
from panelvox.errors import PanelvoxError
from panelvox.export.book_export import ExportFormat, ExportOptions, export_pages
from panelvox.i18n import _
from panelvox.pages.opening import open_book_pages

log = logging.getLogger(__name__)

#: file endings of the books a library folder may hold (folders of images count too)
BOOK_SUFFIXES = frozenset({".cbz", ".cbr", ".cb7", ".cbt", ".zip", ".rar", ".7z", ".tar", ".pdf"})


@dataclass(frozen=True, slots=True)
class BookJob:
    book: Path
    out: Path
    options: ExportOptions


@dataclass(frozen=True, slots=True)
class BookResult:
    book: Path
    pages: int
    seconds: float
    error: str | None = None  # the one sentence that says why the book was skipped

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class LibraryReport:
    done: tuple[BookResult, ...]
    skipped: tuple[BookResult, ...]  # bad books, with their reason
    already: tuple[Path, ...]  # finished in an earlier run


def find_books(folder: Path, exclude: Path | None = None) -> list[Path]:
    """The books in ``folder`` (not its sub-folders' contents), in natural order: archives and
    PDFs by their ending, and sub-folders (a folder of page images is a book)."""
    out = []
    for entry in folder.iterdir():
        if entry.name.startswith(".") or (exclude is not None and entry.resolve() == exclude.resolve()):
            continue
        if entry.is_dir() or entry.suffix.lower() in BOOK_SUFFIXES:
            out.append(entry)
    return sorted(out, key=lambda p: natural_key(p.name))


def is_library(folder: Path) -> bool:
    """Whether ``folder`` holds books (rather than being a book of page images itself)."""
    return folder.is_dir() and any(
        e.suffix.lower() in BOOK_SUFFIXES or e.is_dir()
        for e in folder.iterdir()
        if not e.name.startswith(".")
    )


def output_for(book: Path, out_dir: Path, fmt: ExportFormat) -> Path:
    return out_dir / f"{book.stem if book.is_file() else book.name}{fmt.suffix()}"


def export_one(job: BookJob) -> BookResult:
    """Export one book; never raises for a bad book (it comes back with its reason).

    A module-level function: worker processes and Dask workers run it by name.
    """
    _log_to_file()
    start = time.monotonic()
    count = 0

    def seen(number: int) -> None:
        nonlocal count
        count = number

    try:
        with open_book_pages(job.book, direction=job.options.direction) as pages:
            export_pages(pages, job.out, job.options, on_page=seen)
    except PanelvoxError as exc:
        log.warning("%s skipped: %s (%s)", job.book, exc.message, exc.detail)
        return BookResult(job.book, count, time.monotonic() - start, exc.message)
    except Exception as exc:  # a hostile book must never stop the batch (logged in full)
        log.exception("%s skipped after an unexpected error", job.book)
        # Translators: why a book of a library export was skipped after an unexpected failure.
        return BookResult(
            job.book,
            count,
            time.monotonic() - start,
            _("Something went wrong: {error}.").format(error=type(exc).__name__),
        )
    return BookResult(job.book, count, time.monotonic() - start)


def _log_to_file() -> None:
    """In a worker process (or on a Dask worker) that logs nowhere yet: the details of a bad
    book go to the log file, never to the terminal a screen reader is reading."""
    root = logging.getLogger()
    if root.handlers:
        return
    try:
        folder = paths.state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(folder / "panelvox.log", encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def plan(books: list[Path], out_dir: Path, options: ExportOptions) -> tuple[list[BookJob], list[Path]]:
    """(books still to export, books whose output is already there)."""
    todo, already = [], []
    for book in books:
        out = output_for(book, out_dir, options.format)
        if out.exists():
            already.append(book)
        else:
            todo.append(BookJob(book, out, options))
    return todo, already


def run_jobs(jobs: list[BookJob], *, workers: int = 1, scheduler: str | None = None) -> Iterator[BookResult]:
    """The jobs' results as they finish: here, in ``workers`` processes, or on the cluster."""
    if scheduler is not None:
        yield from _on_cluster(jobs, scheduler)
    elif workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield export_one(job)
    else:
        # spawn: a forked child would inherit the parent's ONNX and speech threads half-way
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(export_one, job) for job in jobs]
            for future in as_completed(futures):
                yield future.result()


def _on_cluster(jobs: list[BookJob], address: str) -> Iterator[BookResult]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError as exc:
        raise LibraryError(
            # Translators: spoken when --scheduler is used without Dask installed.
            _("A cluster export needs Dask's distributed package (pip install 'panelvox[cluster]')."),
            detail=repr(exc),
        ) from exc
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise LibraryError(
            # Translators: spoken when the Dask scheduler cannot be reached; {address} e.g. tcp://host:8786.
            _("Cannot reach the cluster at {address}.").format(address=address),
            detail=repr(exc),
        ) from exc
    with client:
        futures = client.map(export_one, jobs, pure=False)
        for future in dask_completed(futures):
            yield future.result()


class LibraryError(PanelvoxError):
    """The library batch cannot run at all (no such folder, no cluster)."""


class Progress:
    """Books and pages done and the time left, one line per finished book; silent unless
    asked (a screen reader would read every update)."""

    def __init__(self, total: int, say: Callable[[str], None] | None) -> None:
        self.total, self.say = total, say
        self.books = self.pages = 0
        self.start = time.monotonic()

    def step(self, result: BookResult) -> None:
        self.books += 1
        self.pages += result.pages
        if self.say is None:
            return
        left = self.total - self.books
        eta = (time.monotonic() - self.start) / self.books * left
        # Translators: progress of a library export; {books}/{total} books, {pages} pages, {minutes} left.
        self.say(
            _("{books} of {total} books, {pages} pages done, about {minutes} minutes left.").format(
                books=self.books, total=self.total, pages=self.pages, minutes=max(0, round(eta / 60))
            )
        )


def export_library(
    folder: Path,
    out_dir: Path,
    options: ExportOptions,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[str], None] | None = None,
    on_skip: Callable[[BookResult], None] | None = None,
) -> LibraryReport:
    """Export every book of ``folder`` into ``out_dir`` (see the module's docstring)."""
    if not folder.is_dir():
        raise LibraryError(
            # Translators: spoken when the library folder does not exist.
            _("Cannot find the folder {name}.").format(name=folder.name),
            detail=str(folder),
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs, already = plan(find_books(folder, exclude=out_dir), out_dir, options)
    counter = Progress(len(jobs), progress)
    done, skipped = [], []
    for result in run_jobs(jobs, workers=workers, scheduler=scheduler):
        counter.step(result)
        if result.ok:
            done.append(result)
        else:
            skipped.append(result)
            if on_skip is not None:
                on_skip(result)
    return LibraryReport(tuple(done), tuple(skipped), tuple(already))
