"""The book's names pass: who is called what, put on a page after its (cached) analysis.

The pipeline's stages are pure and cached per page, so they cannot know the book. The
names pass does, and it is one explicit step that every consumer gets through the page
service (:class:`panelvox.pages.PageService`). Over the pages the book has *learned* (every
page read or analysed so far):

1. the names each page's words give its persons (:mod:`panelvox.names.persons`), with what
   the *book* knows: a name is usable once the book's analysed pages say it twice (a misread
   word is not said twice) or its ComicInfo ``Characters`` list it, which also gives the
   spelling;
2. the persons of the book (:mod:`panelvox.names.book_persons`): the pages' speaking persons
   grouped across pages, each with a ``person`` id, and the names decided for them from the
   whole book (said as fact where two pages hold it), and the user's renames, which always
   win: on the renamed person, and as a guess on the pages where the book believes that
   person speaks again, never on anyone else;
3. the labels the listener hears (:func:`~panelvox.names.labels.label_page`): a name, or
   "character N" with one number for a person of the book; a number once heard stays with
   the person it was said for.

Steps 1 and 2 are a function of the *set* of pages learned, so reading the pages in any order
gives the same persons and names once the same pages have been read. Nothing is written while
a page is read; :meth:`BookNames.save` keeps the mentions for the next session and only the
page service calls it.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from panelvox.analysis.lettering import WordList
from panelvox.model import Character, PageAnalysis
from panelvox.names.book_persons import (
    LinkKey,
    PagePerson,
    PersonModel,
    carries,
    group_book,
    name_book,
    page_persons,
)
from panelvox.names.evidence import Mention, NameSource, page_mentions
from panelvox.names.labels import label_page
from panelvox.names.persons import name_persons
from panelvox.names.stores import LearnedNames, NameStore, character_key

if TYPE_CHECKING:  # only for annotations: naming a page needs no book reader
    from panelvox.books import Book


@dataclass(frozen=True)
class _BookState:
    """The book's pages named and their persons grouped, for one set of learned pages."""

    #: the user's names it was made with
    signature: tuple[tuple[str, str], ...]
    pages: dict[int, PageAnalysis]

    @functools.cached_property
    def members(self) -> dict[str, tuple[tuple[int, str], ...]]:
        """Book person -> its page persons (page, key)."""
        out: dict[str, list[tuple[int, str]]] = {}
        for number, page in self.pages.items():
            for c in page.characters:
                if c.person is not None and (number, c.cluster or c.id) not in out.get(c.person, []):
                    out.setdefault(c.person, []).append((number, c.cluster or c.id))
        return {k: tuple(v) for k, v in out.items()}


def _user_idents(pages: dict[int, PageAnalysis], user: dict[str, str]) -> dict[tuple[int, str], str]:
    """The user's renames ("p4:c2" -> name) as page person idents ((4, "k1") -> name)."""
    out: dict[tuple[int, str], str] = {}
    for number, page in pages.items():
        for c in page.characters:
            name = user.get(character_key(number, c))
            if name:
                out[(number, c.cluster or c.id)] = name
    return out


def _elsewhere(total: Counter[str], here: Counter[str], key: str) -> int:
    """How often the book's other pages say a name key."""
    return total[key] - here[key]


def comicinfo_names(characters: str | None) -> tuple[str, ...]:
    """The names of a ComicInfo ``Characters`` field ("Steenie, Dougal MacCallum")."""
    if not characters:
        return ()
    parts = (" ".join(p.split()) for p in re.split(r"[,;\n]", characters))
    return tuple(dict.fromkeys(p for p in parts if p))


def _shipped_persons() -> PersonModel | None:
    """The shipped person link model (read once, by :meth:`PersonModel.shipped`); None where
    its file is damaged (refused with a log line): the book's pages are then named page by
    page, as they were before persons of the book, and never lost."""
    try:
        return PersonModel.shipped()
    except ValueError:
        return None


class BookNames:
    """The names pass of one book: ComicInfo names, the names its pages say, the user's renames.

    ``store`` holds the user's renames; ``learned`` (optional) keeps the pages' mentions
    between sessions. Thread-safe: the reader names pages on its analysis thread while the
    user renames on the UI thread.
    """

    def __init__(
        self,
        content_hash: str,
        known_names: Sequence[str],
        store: NameStore,
        learned: LearnedNames | None = None,
        words: WordList | None = None,
        persons: PersonModel | None = None,
    ) -> None:
        self.content_hash = content_hash
        self.known_names = tuple(known_names)
        self.store = store
        self.learned = learned
        self.words = words if words is not None else WordList.load()
        self._lock = threading.Lock()
        # page -> {name key: mentions}: what each analysed page's words say
        self._pages: dict[int, dict[str, int]] = learned.load(content_hash) if learned is not None else {}
        self.persons = persons  # None: the shipped model, read when first needed
        self._analyses: dict[int, PageAnalysis] = {}  # learned pages, names cleared
        self._mentions: dict[int, list[Mention]] = {}
        self._mentions_known: tuple[str, ...] = self._known()
        self._state: _BookState | None = None  # the book's persons and names; None: to redo
        self._numbers: dict[tuple[int, str], int] = {}  # page person -> its label number, once heard
        self._links: dict[LinkKey, float] = {}  # pair log-odds, kept while their pages stay the same

    @classmethod
    def for_book(cls, book: Book, store: NameStore, words: WordList | None = None) -> BookNames:
        """For ``book``: its ComicInfo ``Characters``, the user's names in ``store`` and the
        names its pages said in earlier sessions, kept beside ``store``."""
        characters = book.metadata.characters if book.metadata else None
        return cls(book.content_hash, comicinfo_names(characters), store, LearnedNames.beside(store), words)

    # -- the pass ------------------------------------------------------------------------
    def learn(self, analysis: PageAnalysis) -> None:
        """Add a page to what the book knows (its mentions and speaking persons), without
        naming it: what :meth:`apply` then says of any page depends on the set of pages
        learned, never on the order they came in."""
        if not analysis.characters:
            return
        cleared = tuple(
            replace(c, name=None, name_confidence=1.0, label=None, person=None) for c in analysis.characters
        )
        page = replace(analysis, characters=cleared)
        known = self._known()
        with self._lock:
            if known != self._mentions_known:
                self._state = None  # _book_state finds every page's mentions again
            if self._analyses.get(analysis.page) == page:
                return  # read again: nothing new (every read of a page comes through here)
        mentions = page_mentions(page, self.words, known)
        counts = Counter(m.key for m in mentions if m.source is not NameSource.SAID)
        with self._lock:
            if analysis.page in self._analyses:  # the page was analysed anew: its pairs too
                self._links = {
                    k: v for k, v in self._links.items() if analysis.page not in (k[0][0], k[1][0])
                }
            self._analyses[analysis.page] = page
            self._mentions[analysis.page] = mentions
            if counts:
                self._pages[analysis.page] = dict(counts)
            else:
                self._pages.pop(analysis.page, None)
            self._state = None

    def apply(self, analysis: PageAnalysis) -> PageAnalysis:
        """``analysis`` as the listener should hear it: its persons those of the book, named
        (steps 1-3 above) and labelled."""
        if not analysis.characters:
            return analysis  # nobody to name (and an unreadable page is never loaded again)
        self.learn(analysis)
        with self._lock:
            state = self._book_state()
            return self._labelled(state.pages[analysis.page])

    def named(self, page: int) -> PageAnalysis | None:
        """Learned page ``page`` as :meth:`apply` gives it now, with what the book has learned
        since it was read; None when the book has not learned it (a page nobody is on)."""
        with self._lock:
            if page not in self._analyses:
                return None
            return self._labelled(self._book_state().pages[page])

    def _known(self) -> tuple[str, ...]:
        return (*self.known_names, *self.store.names(self.content_hash).values())

    def _book_state(self) -> _BookState:
        """Every learned page named and its persons grouped into the book's (under the lock)."""
        user = self.store.names(self.content_hash)
        signature = tuple(sorted(user.items()))
        if self._state is not None and self._state.signature == signature:
            return self._state
        named, everyone = self._named_pages()
        model = self.persons if self.persons is not None else _shipped_persons()
        if model is None:  # no link model: every page person is a person of its own
            order = sorted(range(len(everyone)), key=lambda i: everyone[i].ident)
            rank = {i: k for k, i in enumerate(order)}
            groups = [rank[i] for i in range(len(everyone))]
            sure: Callable[[PagePerson, PagePerson], bool] = lambda u, v: False  # noqa: E731
        else:
            groups = group_book(everyone, model, self._links)
            sure = carries(model)
        pages = name_book(named, everyone, groups, _user_idents(named, user), sure)
        self._state = _BookState(signature, pages)
        return self._state

    def _named_pages(self) -> tuple[dict[int, PageAnalysis], list[PagePerson]]:
        """Every learned page named from its own words and the book's counts, and the page
        persons of all of them (under the lock)."""
        known = self._known()
        if known != self._mentions_known:  # the user named someone: their name is a word to find
            self._mentions = {n: page_mentions(a, self.words, known) for n, a in self._analyses.items()}
            self._mentions_known = known
        total = Counter[str]()
        for counts in self._pages.values():
            total.update(counts)
        named: dict[int, PageAnalysis] = {}
        everyone: list[PagePerson] = []
        for number, page in sorted(self._analyses.items()):
            counts = Counter(m.key for m in self._mentions[number] if m.source is not NameSource.SAID)
            named[number] = name_persons(
                page, self._mentions[number], counts, functools.partial(_elsewhere, total, counts), known
            )
            calls: dict[str, set[str]] = {}
            for m in self._mentions[number]:
                if m.source is NameSource.VOCATIVE:
                    calls.setdefault(m.block, set()).add(m.key)
            everyone += page_persons(named[number], {b: frozenset(k) for b, k in calls.items()})
        return named, everyone

    def page_persons(self) -> list[PagePerson]:
        """The speaking persons of every learned page (for training the link model)."""
        with self._lock:
            return self._named_pages()[1]

    def _labelled(self, analysis: PageAnalysis) -> PageAnalysis:
        """``analysis`` labelled, an unnamed person of the book called by one number on every
        page: the number first heard for any of its page persons (under the lock)."""
        numbers: dict[str, int] = {}
        for c in analysis.characters:
            if c.person is None or c.person in numbers:
                continue
            ident = (analysis.page, c.cluster or c.id)
            bound = self._numbers.get(ident)
            if bound is None:
                mates = self._state.members.get(c.person, ()) if self._state is not None else ()
                heard = sorted(self._numbers[m] for m in mates if m in self._numbers)
                bound = heard[0] if heard else max(self._numbers.values(), default=0) + 1
            if bound in numbers.values():  # two persons now where one was heard: a new number
                bound = max(self._numbers.values(), default=0) + 1
            self._numbers[ident] = bound
            numbers[c.person] = bound
        return label_page(analysis, numbers)

    # -- the user's names -----------------------------------------------------------------
    def rename(self, analysis: PageAnalysis, character: Character, name: str) -> str:
        """Store the user's ``name`` for ``character`` of ``analysis`` (empty: forget it); it
        reaches the person of the book ``character`` belongs to. Returns the store key
        (``p4:c2``); OSError when the name cannot be saved."""
        key = character_key(analysis.page, character)
        self.store.rename(self.content_hash, key, name)
        return key

    def balloons_named(self, name: str, page: int) -> tuple[int, int]:
        """How many dialogue balloons carry ``name``: on ``page``, and on every learned page."""
        with self._lock:
            state = self._book_state()
        counts = {
            number: sum(
                1
                for link in analysis.speakers
                if (voice := analysis.voice_of(link)) is not None and voice.name == name
            )
            for number, analysis in state.pages.items()
        }
        return counts.get(page, 0), sum(counts.values())

    def unlearned_rename_pages(self) -> list[int]:
        """Pages the user renamed someone on that the book has not learned yet: their persons
        are what a rename reaches on other pages."""
        pages = {int(m.group(1)) for k in self.user_keys() if (m := re.match(r"p(\d+):", k))}
        with self._lock:
            return sorted(pages - set(self._analyses))

    def user_keys(self) -> frozenset[str]:
        """The keys the user renamed in this book."""
        return frozenset(self.store.names(self.content_hash))

    # -- keeping ---------------------------------------------------------------------------
    def save(self) -> None:
        """Keep what the pages' words said for the next session; OSError when it cannot."""
        if self.learned is None:
            return
        with self._lock:
            pages = {page: dict(counts) for page, counts in self._pages.items()}
        self.learned.save(self.content_hash, pages)
