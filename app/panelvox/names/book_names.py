"""The book's names pass: who is called what, put on a page after its (cached) analysis.

The pipeline's stages are pure and cached per page, so they cannot know the book. The
names pass does, and it is one explicit step that every consumer gets through the page
service (:class:`panelvox.pages.PageService`). In order, for one page:

1. the names the page's words give its persons (:mod:`panelvox.names.persons`), with what
   the *book* knows: a name is usable once the book's analysed pages say it twice (a misread
   word is not said twice) or its ComicInfo ``Characters`` list it, which also gives the
   spelling;
2. the user's renames (:class:`~panelvox.names.stores.NameStore`), which always win: by key
   on their page, by look (said as a guess) on the others;
3. the labels the listener hears (:func:`~panelvox.names.labels.label_page`).

What step 1 knows of the book is a function of the set of pages analysed so far: each page
adds its own mentions (name -> how often its words say it), computed from that page alone,
so reading the pages in any order gives the same names once the same pages have been read.
Nothing is written while a page is read; :meth:`BookNames.save` keeps the mentions for the
next session and only the page service calls it.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from panelvox.analysis.lettering import WordList
from panelvox.model import Character, Image, PageAnalysis
from panelvox.names.evidence import page_mentions
from panelvox.names.labels import label_page
from panelvox.names.persons import name_persons
from panelvox.names.stores import LearnedNames, NameStore, character_key, character_look

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
    ) -> None:
        self.content_hash = content_hash
        self.known_names = tuple(known_names)
        self.store = store
        self.learned = learned
        self.words = words if words is not None else WordList.load()
        self._lock = threading.Lock()
        # page -> {name key: mentions}: what each analysed page's words say
        self._pages: dict[int, dict[str, int]] = learned.load(content_hash) if learned is not None else {}

    @classmethod
    def for_book(cls, book: Book, store: NameStore, words: WordList | None = None) -> BookNames:
        """For ``book``: its ComicInfo ``Characters``, the user's names in ``store`` and the
        names its pages said in earlier sessions, kept beside ``store``."""
        characters = book.metadata.characters if book.metadata else None
        return cls(book.content_hash, comicinfo_names(characters), store, LearnedNames.beside(store), words)

    # -- the pass ------------------------------------------------------------------------
    def apply(self, analysis: PageAnalysis, load_image: ImageLoader | None = None) -> PageAnalysis:
        """``analysis`` as the listener should hear it: named (steps 1-2 above) and labelled.

        ``load_image`` is called at most once, and only when a user's rename made on another
        page looks for the same person here.
        """
        if not analysis.characters:
            return analysis  # nobody to name (and an unreadable page is never loaded again)
        user = self.store.names(self.content_hash)
        known = (*self.known_names, *user.values())
        cleared = tuple(replace(c, name=None, name_confidence=1.0, label=None) for c in analysis.characters)
        out = replace(analysis, characters=cleared)
        mentions = page_mentions(out, self.words, known)
        counts = Counter(m.key for m in mentions)
        with self._lock:
            if counts:
                self._pages[analysis.page] = dict(counts)
            else:
                self._pages.pop(analysis.page, None)
            elsewhere = Counter[str]()  # name key -> how often the other analysed pages say it
            for page, page_counts in self._pages.items():
                if page != analysis.page:
                    elsewhere.update(page_counts)
        out = name_persons(out, mentions, counts, lambda key: elsewhere[key], known)
        if user:
            image: Image | None = None
            prefix = f"p{analysis.page}:"
            if load_image is not None and any(
                not k.startswith(prefix) for k in self.store.looks(self.content_hash)
            ):
                image = load_image()
            out = self.store.apply(self.content_hash, out, image)
        return label_page(out)

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
        """Keep what the pages' words said for the next session; OSError when it cannot."""
        if self.learned is None:
            return
        with self._lock:
            pages = {page: dict(counts) for page, counts in self._pages.items()}
        self.learned.save(self.content_hash, pages)
