"""Books: open any comic book safely (archive adapters, natural page order, ComicInfo.xml,
reading direction). Qt-free; nothing happens at import time."""

from __future__ import annotations

from panelvox.books.adapter import BookFormat
from panelvox.books.book import Book, LetteringProbe, PageCheck, PageRef
from panelvox.books.comicinfo import ComicInfo, ComicPageInfo, Manga, PageType, parse_comicinfo
from panelvox.books.direction import DirectionDecision, DirectionSource, decide_direction
from panelvox.books.direction_store import DirectionOverrides
from panelvox.books.limits import Limits
from panelvox.books.opener import open_book

__all__ = [
    "Book",
    "BookFormat",
    "ComicInfo",
    "ComicPageInfo",
    "DirectionDecision",
    "DirectionOverrides",
    "DirectionSource",
    "LetteringProbe",
    "Limits",
    "Manga",
    "PageCheck",
    "PageRef",
    "PageType",
    "decide_direction",
    "open_book",
    "parse_comicinfo",
]
