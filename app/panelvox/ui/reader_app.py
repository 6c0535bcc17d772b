"""Build and run the reader: speech, analysis workers, controller and window."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from panelvox.analysis.cache import PageAnalyzer, default_cache_dir
from panelvox.analysis.lettering_direction import LetteringDirection
from panelvox.books import Book
from panelvox.i18n import _
from panelvox.narration.prefs import load_prefs
from panelvox.reader.analysis_jobs import AnalysisJobs, Job, run_job
from panelvox.reader.analysis_worker import ProcessAnalyzer
from panelvox.reader.reader_controller import ReaderController
from panelvox.reader.reader_settings import load_reader_settings
from panelvox.reader.screen_reader_pace import ScreenReaderPace
from panelvox.speech.backend import Priority, SpeechBackend
from panelvox.speech.language_voices import LanguageVoices
from panelvox.speech.queue import SpeechQueue
from panelvox.speech.voices import load_manifest
from panelvox.ui.job_thread import JobThread, PageImage, Poster, Work, load_image
from panelvox.ui.main_window import MainWindow

log = logging.getLogger(__name__)


#: how often a user waiting for a page of text hears that the work goes on
REMIND_MS = 10_000


@dataclass
class Reader:
    """Everything one reader window owns; :meth:`close` releases it all."""

    window: MainWindow
    controller: ReaderController
    speech: SpeechQueue
    analysis_thread: JobThread
    image_thread: JobThread
    image_jobs: AnalysisJobs
    poster: Poster
    analyzer: ProcessAnalyzer | None = None  # the worker process (None: in-process stages)
    reminder: QTimer | None = None  # says "still reading" while T's page of text is read

    def close(self) -> None:
        if self.reminder is not None:
            self.reminder.stop()
        self.controller.close()
        self.image_jobs.close()
        self.analysis_thread.stop()
        self.image_thread.stop()
        if self.analyzer is not None:
            self.analyzer.close()  # after its thread stopped: nothing waits on the worker any more
        self.speech.close()


def build_reader(
    *,
    backends: list[SpeechBackend] | None = None,
    backend: str | None = None,
    analyzer_factory: Callable[[], PageAnalyzer] | None = None,
    screen_reader: bool | None = None,
    persist_settings: bool = True,
    cache_dir: Path | None = None,
    languages: LanguageVoices | None = None,
) -> Reader:
    """Make the window and its workers (a QApplication must exist).

    By default pages are analysed by the default pipeline in a worker process, cached in
    ``cache_dir`` (the user's cache folder when None); ``analyzer_factory`` runs injected
    stages in the analysis thread instead (tests with cheap stages).
    """
    from panelvox.speech.backends.screenreader_backend import screen_reader_running
    from panelvox.speech.discovery import build_chain, language_voices

    prefs = load_prefs()
    if screen_reader is None:
        screen_reader = screen_reader_running()
    chain = backends if backends is not None else build_chain(backend or prefs.backend)
    # Lettering in another language goes to a voice of that language (``languages``: the
    # installed ones; an injected chain in tests keeps to itself unless given some).
    if languages is None and backends is None:
        languages = language_voices()
    speech = SpeechQueue(chain, languages=languages)
    poster = Poster()
    process = None
    if analyzer_factory is None:
        process = ProcessAnalyzer(cache_dir or default_cache_dir(), cancelled=lambda: jobs_closed())
    analyzer = process if process is not None else analyzer_factory() if analyzer_factory else None
    assert analyzer is not None

    def later(seconds: float, fn: Callable[[], None]) -> None:
        QTimer.singleShot(round(seconds * 1000), fn)

    controller = ReaderController(
        speech,
        analyzer,
        prefs=prefs,
        settings=load_reader_settings(),
        manifest=load_manifest(),
        post=poster.post,
        moves_by_focus=screen_reader,
        persist_settings=persist_settings,
        # a book that says nothing of its direction is sampled once (kept in the cache
        # folder); tests that inject cheap stages have no text models to sample with
        lettering=LetteringDirection.with_default_cache() if process is not None else None,
        # say all through the screen reader: each stop after the time it takes at its rate
        later=later,
        pace=ScreenReaderPace.of_orca() if screen_reader else None,
    )

    def jobs_closed() -> bool:
        return controller.jobs.closed

    image_jobs = AnalysisJobs()

    def analysis_work() -> Work:
        if process is not None:
            process.start()  # the worker loads the pipeline while the user picks a book
        return run_job

    def image_work() -> Work:
        return load_image

    analysis_thread = JobThread(controller.jobs, analysis_work)
    image_thread = JobThread(image_jobs, image_work)

    def request_image(page: int) -> None:
        book: Book | None = controller.book
        if book is None or controller.pages is None:
            return
        pages = [p for p in (page, page + 1) if p < book.page_count]
        image_jobs.set_wanted([Job(id(book), controller.pages, p, controller.direction) for p in pages])

    window = MainWindow(controller, request_image=request_image)
    analysis_thread.done.connect(controller.on_result, Qt.ConnectionType.QueuedConnection)
    image_thread.done.connect(_on_image(window), Qt.ConnectionType.QueuedConnection)
    analysis_thread.start()
    image_thread.start()
    reminder = QTimer(window)  # T on a long page of text: "still reading" while it works
    reminder.setInterval(REMIND_MS)
    reminder.timeout.connect(controller.text.remind)
    reminder.start()
    return Reader(
        window, controller, speech, analysis_thread, image_thread, image_jobs, poster, process, reminder
    )


def _on_image(window: MainWindow) -> Callable[[object], None]:
    def deliver(result: object) -> None:
        if isinstance(result, PageImage):
            window.on_image(result)

    return deliver


def greet(reader: Reader, book: Path | None, *, welcome_marker: Path | None = None) -> None:
    """What is said at start: the book's title when one is given, else how to open one.

    On the very first launch the one-sentence welcome comes first (or right after the
    book's title, without cutting it); see :mod:`panelvox.reader.first_launch`.
    """
    from panelvox.reader.first_launch import welcome_once

    # with a screen reader the welcome is its message, said after it has taken the window in
    hand_over = reader.controller.voice.announce
    if book is not None:
        reader.controller.open(book)
        welcome_once(reader.speech, welcome_marker, priority=Priority.NORMAL, hand_over=hand_over)
    elif not welcome_once(reader.speech, welcome_marker, hand_over=hand_over):
        # Translators: said when the reader starts with no book.
        reader.controller.say_message(_("Panelvox. Press Control O to open a book, F1 for the keys."))


def run_reader(book: Path | None = None, *, backend: str | None = None) -> int:
    """``panelvox`` / ``panelvox read BOOK``: the reader window until it is closed."""
    os.environ.setdefault("QT_ACCESSIBILITY", "1")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("panelvox")
    # Translators: the application's display name.
    app.setApplicationDisplayName(_("Panelvox"))
    reader = build_reader(backend=backend)
    reader.window.show()
    reader.window.activateWindow()
    reader.window.tree.setFocus()
    greet(reader, book)
    try:
        return app.exec()
    finally:
        reader.close()
