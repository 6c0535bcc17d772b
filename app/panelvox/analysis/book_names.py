"""Names that depend on the book, put on a page after its (cached) analysis.

The pipeline is built once and its results are cached per page, so it cannot know the
book. Two things do: the ComicInfo ``Characters`` list (spellings, and names that are also
English words, such as "CURT", count from one mention) and the names the user gave
(:class:`NameStore`); and names the text gave on other pages ("DOUGAL, COME HERE!"),
carried by look (:class:`LearnedNames`). :class:`BookNames` applies all three to an analysed page; it is cheap
(text rules, and a colour descriptor per figure only when the user renamed someone on
another page), so it runs every time a page is shown or narrated and a rename takes effect
at once, without re-analysing anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from panelvox.analysis.lettering import WordList
from panelvox.analysis.name_store import LearnedNames, NameStore, character_key, character_look
from panelvox.analysis.names import name_evidence, name_page
from panelvox.model import Image, PageAnalysis

if TYPE_CHECKING:  # only for annotations: naming a page needs no book reader
    from panelvox.books import Book


def comicinfo_names(characters: str | None) -> tuple[str, ...]:
    """The names of a ComicInfo ``Characters`` field ("Steenie, Dougal MacCallum")."""
    if not characters:
        return ()
    parts = (" ".join(p.split()) for p in re.split(r"[,;\n]", characters))
    return tuple(dict.fromkeys(p for p in parts if p))


class BookNames:
    """ComicInfo names and the user's renames for one book."""

    def __init__(
        self,
        content_hash: str,
        known_names: Sequence[str] = (),
        store: NameStore | None = None,
        words: WordList | None = None,
    ) -> None:
        self.content_hash = content_hash
        self.known_names = tuple(known_names)
        self.store = store
        self.learned = LearnedNames.beside(store) if store is not None else None
        self._words = words

    @classmethod
    def for_book(cls, book: Book, store: NameStore | None = None) -> BookNames:
        """For ``book``: its ComicInfo ``Characters`` and the user's names for it."""
        characters = book.metadata.characters if book.metadata else None
        return cls(
            book.content_hash, comicinfo_names(characters), store if store is not None else NameStore()
        )

    @property
    def words(self) -> WordList:
        if self._words is None:
            self._words = WordList.load()
        return self._words

    def apply(self, analysis: PageAnalysis, load_image: Callable[[], Image] | None = None) -> PageAnalysis:
        """``analysis`` with the book's names: learned again with ComicInfo, then the user's.

        With ``load_image`` (called at most once, and only when a look is needed), names
        the text gave on this page are kept with their looks (:class:`LearnedNames`) and
        names learned on other pages go to look-alikes here that the page's own text left
        unnamed; the user's renames come last and always win.
        """
        if not analysis.characters:
            return analysis  # nobody to name (and an unreadable page is never loaded again)
        out = analysis
        user = self.store.names(self.content_hash) if self.store is not None else {}
        known = (*self.known_names, *user.values())
        if known and analysis.speakers:
            # learned names are redone with the book's spellings and the names the user taught
            cleared = tuple(replace(c, name=None) for c in analysis.characters)
            out = name_page(replace(analysis, characters=cleared), self.words, known_names=known)
        image: Image | None = None

        def page_image() -> Image | None:
            nonlocal image
            if image is None and load_image is not None:
                image = load_image()
            return image

        if self.learned is not None and load_image is not None:
            out = self._learn_and_carry(self.learned, out, page_image, known)
        if self.store is None or not user:
            return out
        prefix = f"p{analysis.page}:"
        if any(not k.startswith(prefix) for k in self.store.looks(self.content_hash)):
            page_image()
        return self.store.apply(self.content_hash, out, image)

    def _learn_and_carry(
        self,
        learned: LearnedNames,
        analysis: PageAnalysis,
        page_image: Callable[[], Image | None],
        known: Sequence[str],
    ) -> PageAnalysis:
        """Keep the names this page's text gave (with looks); carry other pages' names here.

        Only the figures a mention points at are kept, not the rest of their identity
        cluster: a cluster that joined two people would carry one's name to the other's
        look on every page.
        """
        page = analysis.page
        pointed = {(e.character, e.name) for e in name_evidence(analysis, self.words, known)}
        all_named = [c for c in analysis.characters if c.name and c.kind != "face"]
        named = [c for c in all_named if (c.id, c.name) in pointed]
        if {character_key(page, c): c.name for c in named} != learned.page_names(self.content_hash, page):
            image = page_image()
            if image is not None:
                found = {
                    character_key(page, c): (c.name or "", character_look(image, analysis, c).tolist())
                    for c in named
                }
                learned.learn(self.content_hash, page, found)
        prefix = f"p{page}:"
        if len(all_named) == sum(c.kind != "face" for c in analysis.characters) or not any(
            not k.startswith(prefix) for k in learned.entries(self.content_hash)
        ):
            return analysis
        image = page_image()
        return analysis if image is None else learned.carry(self.content_hash, analysis, image)
