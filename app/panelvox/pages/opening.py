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
    from panelvox.analysis.lettering_direction import LetteringDirection
    from panelvox.analysis.pipeline import default_stages
    from panelvox.analysis.text_stage import TextStage
    from panelvox.names.book_names import BookNames

    stages = default_stages(read_dense=True) if read_dense else default_stages()
    text = next((s for s in stages if isinstance(s, TextStage)), None)
    # a book that says nothing of its direction is sampled with the text stage's own models
    lettering = LetteringDirection.with_default_cache(None if text is None else lambda: text.engine)
    with open_book(book_path, direction_override=direction, lettering=lettering) as book:
        pages = PageService(
            book,
            PageAnalyzer.with_default_cache(stages),
            BookNames.for_book(book, store if store is not None else NameStore()),
        )
        try:
            yield pages
        finally:
            pages.save_names()
