"""The book's names pass: who is called what, put on a page after its (cached) analysis.

The pipeline's stages are pure and cached per page, so they cannot know the book. The
names pass does, and it is one explicit step that every consumer gets through the page
service (:class:`panelvox.pages.PageService`). In order, for one page:

1. names the page's own words give (:func:`~panelvox.names.evidence.name_page`: vocatives,
   self-introductions, captions), spelled and trusted as the book's ComicInfo
   ``Characters`` say;
2. names the words of the book's *other analysed pages* gave, carried to a figure here
   that looks like the one named there (:func:`~panelvox.names.stores.match_by_look`),
   said as a guess;
3. the user's renames (:class:`~panelvox.names.stores.NameStore`), which always win;
4. the labels the listener hears (:func:`~panelvox.names.labels.label_page`).

What step 2 knows is a function of the set of pages analysed so far: each page adds its
own entries (key -> name and look), computed from that page alone, so reading the pages in
any order gives the same names once the same pages have been read. Nothing is written
while a page is read; :meth:`BookNames.save` keeps the learned entries for the next session
and only the page service calls it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from panelvox.analysis.identity import Descriptor
from panelvox.analysis.lettering import WordList
from panelvox.model import Character, Image, PageAnalysis
from panelvox.names.evidence import name_evidence, name_page
from panelvox.names.labels import label_page
from panelvox.names.stores import (
    BY_LOOK_CONFIDENCE,
    CARRY_STRICTNESS,
    LearnedNames,
    NameStore,
    character_key,
    character_look,
    match_by_look,
)

if TYPE_CHECKING:  # only for annotations: naming a page needs no book reader
    from panelvox.books import Book

ImageLoader = Callable[[], Image]


def comicinfo_names(characters: str | None) -> tuple[str, ...]:
    """The names of a ComicInfo ``Characters`` field ("Steenie, Dougal MacCallum")."""
    if not characters:
        return ()
    parts = (" ".join(p.split()) for p in re.split(r"[,;\n]", characters))
    return tuple(dict.fromkeys(p for p in parts if p))


class BookNames:
    """The names pass of one book: ComicInfo names, learned names and the user's renames.

    ``store`` holds the user's renames; ``learned`` (optional) keeps what the pages' words
    gave between sessions. Thread-safe: the reader names pages on its analysis thread while
    the user renames on the UI thread.
    """

    def __init__(
        self,
        content_hash: str,
        known_names: Sequence[str],
        store: NameStore,
        learned: LearnedNames | None = None,
        words: WordList | None = None,
    ) -> None:
        self.content_hash = content_hash
        self.known_names = tuple(known_names)
        self.store = store
        self.learned = learned
        self.words = words if words is not None else WordList.load()
        self._lock = threading.Lock()
        # page -> {key: (name, look)}: the names each analysed page's own words gave
        self._pages: dict[int, dict[str, tuple[str, Descriptor]]] = {}
        if learned is not None:
            for key, entry in learned.load(content_hash).items():
                page = _page_of(key)
                if page is not None:
                    self._pages.setdefault(page, {})[key] = entry

    @classmethod
    def for_book(cls, book: Book, store: NameStore, words: WordList | None = None) -> BookNames:
        """For ``book``: its ComicInfo ``Characters``, the user's names in ``store`` and the
        names learned from its pages, kept beside ``store``."""
        characters = book.metadata.characters if book.metadata else None
        return cls(book.content_hash, comicinfo_names(characters), store, LearnedNames.beside(store), words)

    # -- the pass ------------------------------------------------------------------------
    def apply(self, analysis: PageAnalysis, load_image: ImageLoader | None = None) -> PageAnalysis:
        """``analysis`` as the listener should hear it: named (steps 1-3 above) and labelled.

        ``load_image`` is called at most once, and only when a look is needed; without it
        the page keeps what its own words and the user's renames on it say.
        """
        if not analysis.characters:
            return analysis  # nobody to name (and an unreadable page is never loaded again)
        user = self.store.names(self.content_hash)
        known = (*self.known_names, *user.values())
        cleared = tuple(replace(c, name=None, name_confidence=1.0, label=None) for c in analysis.characters)
        out = name_page(replace(analysis, characters=cleared), self.words, known_names=known)
        image: Image | None = None

        def page_image() -> Image | None:
            nonlocal image
            if image is None and load_image is not None:
                image = load_image()
            return image

        if load_image is not None:
            self._learn(out, page_image, known)
            out = self._carry(out, page_image)
        if user:
            prefix = f"p{analysis.page}:"
            if any(not k.startswith(prefix) for k in self.store.looks(self.content_hash)):
                page_image()
            out = self.store.apply(self.content_hash, out, image)
        return label_page(out)

    def _learn(
        self, analysis: PageAnalysis, page_image: Callable[[], Image | None], known: Sequence[str]
    ) -> None:
        """Keep the names this page's words gave, with their looks (replacing the page's old ones).

        Only the figures a mention points at are kept, not the rest of their identity
        cluster: a cluster that joined two people would carry one's name to the other's
        look on every page.
        """
        page = analysis.page
        pointed = {(e.character, e.name) for e in name_evidence(analysis, self.words, known)}
        named = [c for c in analysis.characters if c.name and c.kind != "face" and (c.id, c.name) in pointed]
        wanted = {character_key(page, c): c.name for c in named}
        with self._lock:
            had = {k: n for k, (n, _look) in self._pages.get(page, {}).items()}
        if wanted == had:
            return
        found: dict[str, tuple[str, Descriptor]] = {}
        if named:
            image = page_image()
            if image is None:
                return
            found = {
                character_key(page, c): (c.name or "", character_look(image, analysis, c)) for c in named
            }
        with self._lock:
            if found:
                self._pages[page] = found
            else:
                self._pages.pop(page, None)

    def _carry(self, analysis: PageAnalysis, page_image: Callable[[], Image | None]) -> PageAnalysis:
        """Names learned on other pages given to unnamed look-alikes here, as guesses.

        A name the page already has (from its own words) is never carried onto another
        figure of it; the name spreads to the figure's identity cluster on the page.
        """
        unnamed = [c for c in analysis.characters if c.kind != "face" and not c.name]
        on_page = {c.name for c in analysis.characters if c.name}
        with self._lock:
            looks = {
                key: entry
                for page, entries in sorted(self._pages.items())
                if page != analysis.page
                for key, entry in sorted(entries.items())
                if entry[0] not in on_page
            }
        if not unnamed or not looks:
            return analysis
        image = page_image()
        if image is None:
            return analysis
        given = {c.id: c.name for c in analysis.characters if c.name}
        threshold = self.store.threshold * CARRY_STRICTNESS
        found = match_by_look(analysis, image, looks, given, threshold)
        if not found:
            return analysis
        named_clusters = {c.cluster for c in analysis.characters if c.name and c.cluster}
        by_cluster = {
            c.cluster: found[c.id]
            for c in analysis.characters
            if c.id in found and c.cluster and c.cluster not in named_clusters
        }
        return replace(
            analysis, characters=tuple(_carried(c, found, by_cluster) for c in analysis.characters)
        )

    # -- the user's names -----------------------------------------------------------------
    def rename(self, analysis: PageAnalysis, character: Character, name: str, image: Image | None) -> str:
        """Store the user's ``name`` for ``character`` of ``analysis`` (empty: forget it).

        With ``image`` the character's look is kept too, so the name reaches the same person
        on the book's other pages. Returns the store key (``p4:c2``); OSError when the
        name cannot be saved.
        """
        key = character_key(analysis.page, character)
        look = character_look(image, analysis, character).tolist() if image is not None else None
        self.store.rename(self.content_hash, key, name, look)
        return key

    def user_keys(self) -> frozenset[str]:
        """The keys the user renamed in this book."""
        return frozenset(self.store.names(self.content_hash))

    # -- keeping ---------------------------------------------------------------------------
    def save(self) -> None:
        """Keep what the pages' words gave for the next session; OSError when it cannot."""
        if self.learned is None:
            return
        with self._lock:
            entries = {k: (n, look.tolist()) for e in self._pages.values() for k, (n, look) in e.items()}
        self.learned.save(self.content_hash, entries)


def _carried(c: Character, found: dict[str, str], by_cluster: dict[str, str]) -> Character:
    if c.name:
        return c
    name = found.get(c.id) or (by_cluster.get(c.cluster) if c.cluster else None)
    return c if name is None else replace(c, name=name, name_confidence=BY_LOOK_CONFIDENCE)


def _page_of(key: str) -> int | None:
    m = re.match(r"^p(\d+):", key)
    return int(m.group(1)) if m else None
