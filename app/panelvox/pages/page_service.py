"""The one way to read a page: the cached analysis of the pipeline, then the book's names.

Every part of Panelvox that shows, speaks, lists or measures a page reads it here: the
reader's analysis thread, ``panelvox analyze``, ``narrate``, ``names``, ``describe``,
``ask`` and ``panelvox eval``. So the page JSON, the narration, the reader and the eval
call the same person the same thing::

    pages = PageService(book, PageAnalyzer.with_default_cache(default_stages()),
                        BookNames.for_book(book, NameStore()))
    analysis = pages.read(4)        # page 4: analysed (or from the cache), named, labelled
    pages.save_names()              # keep what the pages' words taught, for the next session

``export``, ``narrate --text/--wav`` and the eval :meth:`~PageService.learn` every page before
they read the first; the reader learns the rest of the book in the background once the pages
it wants are done, and names the pages it holds again (:meth:`~PageService.named`), so all of
them say the same labels once the book is learned.

The analyzer is anything that analyses a page of the book (:class:`PageSource`): the
in-process :class:`~panelvox.analysis.cache.PageAnalyzer`, or the reader's worker process.
Stores are injected by the caller, never made here.
"""

from __future__ import annotations

import logging
from typing import Generic, Protocol, TypeVar

from panelvox.analysis.cache import PageImages
from panelvox.analysis.pipeline import STAGE_NAMES
from panelvox.errors import PanelvoxError
from panelvox.model import Character, Image, PageAnalysis, ReadingDirection
from panelvox.names.book_names import BookNames

log = logging.getLogger(__name__)


class PageBook(PageImages, Protocol):
    """What the service needs of a book: its pages' pictures and its reading direction."""

    @property
    def direction(self) -> ReadingDirection: ...

    @property
    def page_count(self) -> int: ...


class PageSource(Protocol):
    """Anything that analyses one page of a book (1-based), raising :class:`PanelvoxError`."""

    def analyze_page(self, book: PageImages, page: int, direction: ReadingDirection) -> PageAnalysis: ...


B = TypeVar("B", bound=PageBook)


class PageService(Generic[B]):
    """Reads the pages of one book as every consumer should see them."""

    def __init__(self, book: B, analyzer: PageSource, names: BookNames) -> None:
        self.book = book
        self.analyzer = analyzer
        self.names = names

    def read(self, number: int, direction: ReadingDirection | None = None) -> PageAnalysis:
        """Page ``number`` (1-based): analysed (or cached), then named and labelled.

        Raises :class:`PanelvoxError` (one short sentence) when the page cannot be read; a
        failure of the names pass never costs the page: it is read unnamed.
        """
        analysis = self.analyzer.analyze_page(self.book, number, direction or self.book.direction)
        for renamed in self.names.unlearned_rename_pages():  # so a rename reaches its person here
            if renamed != number and 1 <= renamed <= self.book.page_count:
                self.learn(renamed)
        try:
            return self.names.apply(analysis)
        except PanelvoxError as exc:  # the page decoded once already; a name must never cost it
            log.warning("names not applied to page %d: %s", number, exc.detail or exc.message)
            return analysis

    def learn(self, number: int) -> bool:
        """Analyse page ``number`` (or take it from the cache) and add it to what the book's
        persons and names know, without reading it out; False when it cannot be read."""
        try:
            self.names.learn(self.analyzer.analyze_page(self.book, number, self.book.direction))
        except PanelvoxError as exc:
            log.warning("page %d not learned: %s", number, exc.detail or exc.message)
            return False
        return True

    def named(self, number: int) -> PageAnalysis | None:
        """Page ``number`` as :meth:`read` would give it now, without analysing it again: the
        book's persons, names and labels as they stand after the pages learned since it was
        read; None when the book's names hold nothing of it (nobody on it, or not read)."""
        try:
            return self.names.named(number)
        except PanelvoxError as exc:  # as in read: a name never costs the page
            log.warning("names not applied to page %d: %s", number, exc.detail or exc.message)
            return None

    def read_or_notice(self, number: int) -> PageAnalysis:
        """Page ``number``, or, when it cannot be read, an empty page whose one notice says
        why in one sentence: a broken page never ends the book."""
        try:
            return self.read(number)
        except PanelvoxError as exc:
            log.warning("page %d unreadable: %s", number, exc.detail)
            # no stage looked at it: nothing may be said to be absent from it
            return PageAnalysis(number, 0, 0, self.book.direction, notices=(exc.message,), failed=STAGE_NAMES)

    def image(self, number: int) -> Image:
        """The picture of page ``number`` (1-based)."""
        return self.book.load_page_array(number - 1)

    def rename(self, analysis: PageAnalysis, character: Character, name: str) -> str:
        """Give ``character`` of a page read here the user's ``name`` for the whole book.

        Returns the store key (``p4:c2``). OSError when the name cannot be saved.
        """
        return self.names.rename(analysis, character, name)

    def save_names(self) -> bool:
        """Keep what the pages' words taught about names; False (logged) when it cannot."""
        try:
            self.names.save()
        except OSError as exc:  # a read-only or full home costs the learning, never the reading
            log.warning("learned names not saved: %r", exc)
            return False
        return True
