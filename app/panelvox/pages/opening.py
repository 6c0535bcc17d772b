"""A book's page service as the commands and the exports build it: the default pipeline with
the disk cache, the book's names with the user's store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from panelvox.books import Book, open_book
from panelvox.model import ReadingDirection
from panelvox.names.stores import NameStore
from panelvox.pages.page_service import PageService


@contextmanager
def open_book_pages(
    book_path: Path,
    *,
    direction: ReadingDirection | None = None,
    store: NameStore | None = None,
    read_dense: bool = False,
) -> Iterator[PageService[Book]]:
    """The book at ``book_path`` read through the page service; learned names are kept on exit.
    ``read_dense``: pages of running text are read in full, not only announced."""
    from panelvox.analysis.cache import PageAnalyzer
    from panelvox.analysis.pipeline import default_stages
    from panelvox.names.book_names import BookNames

    with open_book(book_path, direction_override=direction) as book:
        pages = PageService(
            book,
            PageAnalyzer.with_default_cache(
                default_stages(read_dense=True) if read_dense else default_stages()
            ),
            BookNames.for_book(book, store if store is not None else NameStore()),
        )
        try:
            yield pages
        finally:
            pages.save_names()
