"""Names that depend on the book, put on a page after its (cached) analysis.

The pipeline is built once and its results are cached per page, so it cannot know the
book. Two things do: the ComicInfo ``Characters`` list (spellings, and names that are also
English words, such as "CURT", count from one mention) and the names the user gave
(:class:`NameStore`). :class:`BookNames` applies both to an analysed page; it is cheap
(text rules, and a colour descriptor per figure only when the user renamed someone on
another page), so it runs every time a page is shown or narrated and a rename takes effect
at once, without re-analysing anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from panelvox.analysis.lettering import WordList
from panelvox.analysis.name_store import NameStore
from panelvox.analysis.names import name_page
from panelvox.analysis.pipeline import Image
from panelvox.model import PageAnalysis


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
        self._words = words

    @classmethod
    def for_book(cls, content_hash: str, characters: str | None, store: NameStore | None = None) -> BookNames:
        """For a book with ComicInfo ``Characters`` ``characters`` (None when it has none)."""
        return cls(content_hash, comicinfo_names(characters), store if store is not None else NameStore())

    @property
    def words(self) -> WordList:
        if self._words is None:
            self._words = WordList.load()
        return self._words

    def apply(self, analysis: PageAnalysis, load_image: Callable[[], Image] | None = None) -> PageAnalysis:
        """``analysis`` with the book's names: learned again with ComicInfo, then the user's.

        ``load_image`` is called only when a rename made on another page must be matched
        by look on this one.
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
        if self.store is None or not user:
            return out
        image = None
        prefix = f"p{analysis.page}:"
        if load_image is not None and any(
            not k.startswith(prefix) for k in self.store.looks(self.content_hash)
        ):
            image = load_image()
        return self.store.apply(self.content_hash, out, image)
