"""T: a page announced as a page of text, read in full on request.

The analysis announces small running text (credits, a letters page, an advertisement)
with its size and leaves it unread (:func:`panelvox.analysis.text_stage.dense_text`). On
such a page T has the page analysed again with the running text recognised, in the
analysis worker like every page, and reads the result from its first block as Space does.
The read analysis is another pipeline (the text stage's ``read_dense``), so it has its own
entry in the analysis cache (another fingerprint) and its own slot in the reader's
results: the announced page and the read one never replace each other.

The announcement is told apart by its sentence (:func:`~panelvox.analysis.text_stage.is_dense_notice`),
which is in the running language: a page with notices is never written to the analysis
cache, so an announcement is always made by the running reader.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from panelvox.books import Book
from panelvox.i18n import _
from panelvox.model import PageAnalysis, ReadingDirection
from panelvox.pages import PageService, PageSource
from panelvox.reader.analysis_jobs import Job, JobResult
from panelvox.reader.commands import Command, keymap
from panelvox.reader.position import Level, Position
from panelvox.reader.reader_speech import ReaderSpeech

if TYPE_CHECKING:
    from panelvox.analysis.pipeline import Stage
    from panelvox.reader.page_results import Here, PageResults


def announces_text(analysis: PageAnalysis) -> bool:
    """Whether the page was announced as holding running text it did not read."""
    from panelvox.analysis.text_stage import announces_text as said

    return said(analysis.notices)


def offer_reading(analysis: PageAnalysis) -> PageAnalysis:
    """``analysis`` with the key that reads its running text told after the announcement."""
    from panelvox.analysis.text_stage import is_dense_notice

    key = next(b.spoken_keys for b in keymap() if b.command is Command.READ_TEXT)
    # Translators: said after "A page of text, about 2,000 words."; {key} is the key, "T".
    offer = _("Press {key} to read it.").format(key=key)
    notices = tuple(f"{n} {offer}" if is_dense_notice(n) else n for n in analysis.notices)
    return replace(analysis, notices=notices) if notices != analysis.notices else analysis


def text_stages(stages: Sequence[Stage]) -> tuple[Stage, ...]:
    """``stages`` with the text stage reading running text too; the copy shares its
    recognition engine and word list, so no model is loaded twice."""
    from panelvox.analysis.text_stage import TextStage

    out: list[Stage] = []
    for stage in stages:
        if isinstance(stage, TextStage) and not stage.read_dense:
            _loaded = stage.engine, stage.lexicon  # made once, here, for both
            stage = copy.copy(stage)
            stage.read_dense = True
        out.append(stage)
    return tuple(out)


def text_analyzer(analyzer: PageSource) -> PageSource:
    """The analyzer that reads running text, for ``analyzer``: the worker's own mode, or
    in-process stages with their text stage reading it (cached under their own key)."""
    from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint

    reading: Callable[[], PageSource] | None = getattr(analyzer, "reading_text", None)
    if reading is not None:
        return reading()
    if isinstance(analyzer, PageAnalyzer):
        stages = text_stages(analyzer.stages)
        cache = analyzer.cache
        if cache is not None:
            cache = AnalysisCache(cache.root, pipeline_fingerprint(stages))
        return PageAnalyzer(stages, cache)
    return analyzer


class TextReading:
    """The T key: which page's reading the user waits for, and the service that reads it."""

    def __init__(
        self,
        results: PageResults,
        voice: ReaderSpeech,
        analyzer: PageSource,
        interrupt: Callable[[], None],
        read_from: Callable[[Position], None],
    ) -> None:
        self.results = results
        self.voice = voice
        self._interrupt = interrupt
        self._read_from = read_from  # say all from a position
        self._analyzer = analyzer
        self._reader: PageSource | None = None  # made on first use
        self._service: PageService[Book] | None = None
        #: the page whose text is read as soon as it arrives (0-based); None: none asked
        self.waiting: int | None = None

    def _text_pages(self, pages: PageService[Book]) -> PageService[Book]:
        """The open book read through the text-reading analyzer, with the same names."""
        if self._service is None or self._service.book is not pages.book:
            if self._reader is None:
                self._reader = text_analyzer(self._analyzer)
            self._service = PageService(pages.book, self._reader, pages.names)
        return self._service

    def ask(self, here: Here | None, pages: PageService[Book] | None, direction: ReadingDirection) -> None:
        """T at ``here`` (None: no book, already said), the book read in ``direction``: the
        page's text read out from its first block, once the worker has read it; on another
        page, a short sentence why not."""
        if here is None or pages is None:
            return
        self._interrupt()
        page = here.position.page
        if self.results.text_read(page):
            self._read_from(self._start(page))
            return
        announced = self.results.announced(page)
        if announced is None:
            if here.outline.ready:  # could not be analysed: its own sentence says why
                self.voice.say(here.outline.heading)
            else:
                self.voice.say_page_pending(here.outline)
            return
        if not announces_text(announced):
            # Translators: said when T (read the page of text) is pressed on a comic page.
            self.voice.say(_("This is not a page of text."))
            return
        self.waiting = page
        self.results.ask_text(Job(here.token, self._text_pages(pages), page, direction, text=True))
        # Translators: said while a page of small running text is recognised, before it is read.
        self.voice.say(_("Reading the page of text…"))

    def _start(self, page: int) -> Position:
        """Where reading a read page starts: its first block (its heading when it has none)."""
        return Position(page, 0, Level.BALLOON) if self.results.outline(page).steps else Position(page)

    def arrived(self, result: JobResult) -> bool:
        """A read page arrived (after :meth:`PageResults.accept`): when the user waits for
        it, it is read out now (True); a page that could not be read says why."""
        if not result.text or self.waiting != result.page:
            return False
        self.waiting = None
        if result.analysis is None:
            self.voice.say(result.error or "")
        else:
            self._read_from(self._start(result.page))
        return True

    def remind(self) -> None:
        """Said every few seconds while the user waits (a long page takes a minute): the
        silence is work, not a hang."""
        if self.waiting is not None:
            # Translators: repeated every few seconds while a page of running text is recognised.
            self.voice.say(_("Still reading the page of text."))

    def stop(self) -> None:
        """Any key: the text still arrives and is kept, but is not read out by itself."""
        self.waiting = None
