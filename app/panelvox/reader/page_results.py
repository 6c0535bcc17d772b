"""The open book's pages: which to analyse next, each page's result, the outline built from it.

The worker is always given the pages the reader needs next (the current one, those ahead,
then the one before), never pages the reader jumped away from. Results belong to one
opening of a book, told apart by a token: opening a book or switching its reading
direction starts a new one, and a result of an older opening, still on its way back from
the worker, is dropped. An outline is built from its page's result with the current
narration preferences and kept until a new result, new preferences or new names.

A page announced as a page of text and then read in full (T, :mod:`panelvox.reader.text_reading`)
keeps both results: the read one is what the reader shows and says from then on.

After the wanted pages, the worker learns the rest of the book in the background, in reading
order from the current page (:meth:`PageResults.background`), into the book's names through
the page service, as ``export`` does; only which pages were learned is kept here, never their
analyses. Every few pages (and after the last) the pages the reader holds are named again,
and a page whose persons, names or labels changed gets a new outline (:meth:`PageResults.relabel`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from panelvox.books import Book
from panelvox.model import PageAnalysis, ReadingDirection
from panelvox.pages import PageService
from panelvox.reader.analysis_jobs import AnalysisJobs, Job, JobResult, run_job
from panelvox.reader.page_outline import PageOutline, build_outline, pending_outline, unreadable_outline
from panelvox.reader.position import Position
from panelvox.reader.preferences import Preferences
from panelvox.reader.text_reading import offer_reading

#: the background pass names the held pages again after this many learned pages (naming
#: again redoes the book's persons over every learned page: not after each one)
RELABEL_EVERY = 8


@dataclass(frozen=True, slots=True)
class Here:
    """The reader's place in the open book, and what is known of its page so far."""

    token: int  # which opening of the book
    book: Book
    position: Position
    outline: PageOutline
    analysis: PageAnalysis | None  # None while the page is analysed, or when it could not be read


class PageResults:
    """The pages wanted from the worker, their results and outlines, by 0-based page index."""

    def __init__(self, preferences: Preferences, *, lookahead: int = 3, learn_book: bool = True) -> None:
        self.preferences = preferences
        #: pages analysed ahead of the reader
        self.lookahead = lookahead
        #: after the wanted pages, learn the rest of the book's pages into its names
        self.learn_book = learn_book
        #: pages learned in the background in this opening (0-based); their analyses are not kept
        self.learned: set[int] = set()
        #: held page -> how many pages the pass had learned when it was named (stale when fewer)
        self._named_at: dict[int, int] = {}
        #: the pages to analyse, most wanted first, taken by the view's analysis thread
        self.jobs = AnalysisJobs()
        #: which opening of which book the results belong to
        self.token = 0
        self._results: dict[int, JobResult] = {}
        self._texts: dict[int, JobResult] = {}  # pages read in full on request (T)
        self._text_asked: dict[int, Job] = {}  # reads asked and not back yet
        self._outlines: dict[int, PageOutline] = {}

    def start(self) -> None:
        """A new opening (a book opened, a new direction): earlier results are stale."""
        self.token += 1
        self.learned.clear()  # a new opening has new book names: the pass starts again
        self.clear()

    def clear(self) -> None:
        self._named_at.clear()
        self._results.clear()
        self._texts.clear()
        self._text_asked.clear()
        self._outlines.clear()

    def ahead(self, page: int, page_count: int) -> list[int]:
        """``page`` and the pages after it that are analysed ahead of the reader."""
        return list(range(page, min(page_count, page + 1 + self.lookahead)))

    def wanted(self, page: int, page_count: int) -> list[int]:
        """Pages still to analyse for a reader on ``page``: it, those ahead, then the one before."""
        return self.missing([*self.ahead(page, page_count), *([page - 1] if page > 0 else [])])

    def background(self, page: int, page_count: int) -> list[int]:
        """The pages still to learn for a reader on ``page``, in reading order from it (the
        pages after it, then those before): none that is wanted, held or learned already."""
        window = {*self.ahead(page, page_count), page - 1}
        order = [*range(page + 1, page_count), *range(page)]
        return [i for i in order if i not in window and i not in self._results and i not in self.learned]

    def want(self, pages: PageService[Book], direction: ReadingDirection, page: int, page_count: int) -> None:
        """Give the worker the pages wanted for a reader on ``page`` (and drop any others);
        the page's text read in full first, when asked (a read asked on another page is dropped);
        then, with :attr:`learn_book`, the rest of the book to learn, never before a wanted page."""
        self._text_asked = {i: job for i, job in self._text_asked.items() if i == page}
        jobs = [Job(self.token, pages, i, direction) for i in self.wanted(page, page_count)]
        rest = self.background(page, page_count) if self.learn_book else []
        window = [i for i in (*self.ahead(page, page_count), page - 1) if i >= 0]
        # named again: the pages around the reader, and every other page read in this opening
        held = (*window, *sorted(set(self._results) - set(window)))
        learn = [
            Job(
                self.token,
                pages,
                i,
                direction,
                learn=True,
                relabel=held if k % RELABEL_EVERY == RELABEL_EVERY - 1 or k == len(rest) - 1 else (),
            )
            for k, i in enumerate(rest)
        ]
        stale = [i for i in window if i in self._results and self._named_at.get(i, 0) < len(self.learned)]
        if self.learn_book and not learn and stale:
            # the pass is over, but these pages were named before its last pages: named again
            # after their own page is learned again (from the cache: nothing new to learn)
            learn = [Job(self.token, pages, stale[0], direction, learn=True, relabel=held)]
        self.jobs.set_wanted([*self._text_asked.values(), *jobs, *learn])

    def ask_text(self, job: Job) -> None:
        """Have ``job``'s page read in full, before any other page (once: T pressed again
        while it is read asks nothing more)."""
        if job.page not in self._text_asked:
            self._text_asked = {job.page: job}
            self.jobs.put_first(job)

    def accept(self, result: JobResult) -> bool:
        """Keep ``result`` unless it belongs to an earlier opening; True when kept. A background
        result keeps only that its page was learned (see :meth:`relabel` for its pages)."""
        if result.token != self.token:
            return False
        if result.learned:
            if result.page not in self._results:  # a held page learned again names, not learns
                self.learned.add(result.page)
            return True
        if result.text:
            self._text_asked.pop(result.page, None)
            if result.analysis is None:  # the announced page stays; the caller says why
                return True
            self._texts[result.page] = result
        else:
            self._results[result.page] = result
        self._named_at[result.page] = len(self.learned)
        self._outlines.pop(result.page, None)
        return True

    def relabel(self, result: JobResult) -> set[int]:
        """Take the held pages a background result named again; the pages whose persons,
        names or labels changed (their outlines are built again), 0-based."""
        if result.token != self.token:
            return set()
        changed: set[int] = set()
        for page in result.relabel:
            if page in self._results:
                self._named_at[page] = len(self.learned)
        for named in result.relabelled:
            page = named.page - 1
            for kept in (self._results, self._texts):
                held = kept.get(page)
                old = held.analysis if held is not None else None
                # only the same analysis named anew (not the announced page for one read with T)
                if held is None or old is None or old.characters == named.characters:
                    continue
                if replace(named, characters=old.characters) != old:
                    continue
                kept[page] = replace(held, analysis=named)
                self._outlines.pop(page, None)
                changed.add(page)
        return changed

    def missing(self, pages: Iterable[int]) -> list[int]:
        """Those of ``pages`` whose analysis is not back yet, in the same order."""
        return [i for i in pages if i not in self._results]

    def analysis(self, page: int) -> PageAnalysis | None:
        """The page's analysis; None while it is analysed or when it could not be read."""
        result = self._texts.get(page) or self._results.get(page)
        return result.analysis if result is not None else None

    def announced(self, page: int) -> PageAnalysis | None:
        """The page's analysis as first made (running text announced, not read)."""
        result = self._results.get(page)
        return result.analysis if result is not None else None

    def text_read(self, page: int) -> bool:
        """Whether the page's running text was read in full (T)."""
        return page in self._texts

    def here(self, book: Book, position: Position) -> Here:
        """The reader at ``position`` in ``book``, with what is known of that page."""
        return Here(self.token, book, position, self.outline(position.page), self.analysis(position.page))

    def run_pending(self, deliver: Callable[[JobResult], None], limit: int | None = None) -> int:
        """Run wanted jobs on this thread, each result to ``deliver`` (tests without a worker)."""
        done = 0
        while limit is None or done < limit:
            job = self.jobs.take(timeout=0)
            if job is None:
                break
            deliver(run_job(job))
            done += 1
        return done

    def outline(self, page: int) -> PageOutline:
        """The page's outline: built once its analysis is back, a pending one until then."""
        cached = self._outlines.get(page)
        if cached is not None:
            return cached
        result = self._texts.get(page) or self._results.get(page)
        if result is None:
            return pending_outline(page)
        if result.analysis is None:
            outline = unreadable_outline(page, result.error or "")
        else:
            analysis = result.analysis if result.text else offer_reading(result.analysis)
            outline = build_outline(page, analysis, self.preferences.prefs)
        self._outlines[page] = outline
        return outline

    def forget_outlines(self) -> None:
        """The narration preferences changed: outlines are built again, analyses kept."""
        self._outlines.clear()

    def forget_analyses(self, *, keep_outline: int) -> None:
        """The book's names changed: every page is read again through the page service.

        The outline of page ``keep_outline`` (the one shown) stays until its page is back
        with the new names, so the view does not fall back to "still being analysed".
        """
        keep = self._outlines.get(keep_outline)
        self.clear()
        if keep is not None:
            self._outlines[keep_outline] = keep
