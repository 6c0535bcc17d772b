"""The pages of one book of an evaluation dataset, read as Panelvox reads a book.

``panelvox eval`` measures what the listener gets, so it reads each dataset page through the
page service (:class:`panelvox.pages.PageService`): the pipeline's stages, then the book's
names pass. The pages of one story (``GTPage.book``) form a book, read in page order, so a
name the text gives on one page reaches the story's later pages as it would in the reader.
The user's stores are never touched: renames come from an empty store in a temporary folder
and learned names stay in memory.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
from PIL import Image as PILImage

from panelvox.analysis.lettering import WordList
from panelvox.books.direction import DirectionDecision, DirectionSource, decide_direction
from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import GTPage
from panelvox.i18n import _
from panelvox.model import Image, ReadingDirection
from panelvox.names.book_names import BookNames
from panelvox.names.book_persons import PersonModel
from panelvox.names.stores import NameStore
from panelvox.pages import PageService, PageSource


def load_page_image(page: GTPage) -> Image:
    """The page as an RGB uint8 array."""
    try:
        with PILImage.open(page.image_path) as im:
            return np.asarray(im.convert("RGB"), dtype=np.uint8)
    except (OSError, ValueError) as exc:
        raise DatasetError(
            # Translators: printed when a page image of an evaluation dataset cannot be opened.
            _("A page image of the evaluation data cannot be opened."),
            detail=f"{page.image_path}: {exc!r}",
        ) from exc


class DatasetBook:
    """Ground-truth pages of one book, in order, as a book the page service can read."""

    def __init__(
        self, name: str, pages: Sequence[GTPage], lettering: Callable[[DatasetBook], bool] | None = None
    ) -> None:
        self.pages = tuple(pages)
        #: how a book that does not tell its direction is told by its pages (None: never)
        self.lettering = lettering
        # by content, as a book's: a cached analysis is never taken for a changed image
        digest = hashlib.sha256(name.encode())
        for page in self.pages:
            try:
                digest.update(page.image_path.read_bytes())
            except OSError:
                digest.update(page.page_id.encode())  # reported when the page is read
        self.content_hash = digest.hexdigest()
        self.path = pages[0].image_path.parent if pages else Path(name)
        self._last: tuple[int, Image] | None = None  # the stages and the names pass share a decode

    @property
    def declared(self) -> bool:
        """The dataset tells the book's direction and language, as a ComicInfo would."""
        return bool(self.pages) and self.pages[0].declared

    @functools.cached_property
    def direction_decision(self) -> DirectionDecision:
        """The direction the book is read in, and why: the dataset's where it tells it, else
        Panelvox's own decision for a book that says nothing (as for a user's folder book)."""
        if self.declared:
            return DirectionDecision(self.pages[0].direction, DirectionSource.COMICINFO)
        probe = self.lettering
        return decide_direction(None, None, None if probe is None else lambda: probe(self))

    @property
    def direction(self) -> ReadingDirection:
        return self.direction_decision.direction if self.pages else ReadingDirection.LTR

    @property
    def page_count(self) -> int:
        return len(self.pages)

    @property
    def language(self) -> str | None:
        """The dataset's language (its pages'), as a book's ComicInfo would give it; None for
        a book that does not tell it."""
        return self.pages[0].language if self.declared else None

    def load_page_array(self, index: int) -> Image:
        if self._last is None or self._last[0] != index:
            self._last = (index, load_page_image(self.pages[index]))
        return self._last[1]


def books_of(pages: Sequence[GTPage]) -> list[tuple[str, list[GTPage]]]:
    """The dataset's pages grouped into books (``GTPage.book``, else each page alone), in order."""
    books: dict[str, list[GTPage]] = {}
    for page in pages:
        books.setdefault(page.book or page.page_id, []).append(page)
    return [(name, sorted(group, key=lambda p: p.page_id)) for name, group in books.items()]


@contextmanager
def dataset_pages(
    name: str,
    pages: Sequence[GTPage],
    analyzer: PageSource,
    words: WordList | None = None,
    persons: PersonModel | None = None,
    lettering: Callable[[DatasetBook], bool] | None = None,
) -> Iterator[PageService[DatasetBook]]:
    """A page service over one dataset book: ``analyzer``'s stages, and the names pass with an
    empty store of its own (never the user's). ``lettering`` decides the direction of a book
    that does not tell it (:attr:`GTPage.declared`), as for a user's book."""
    book = DatasetBook(name, pages, lettering)
    with TemporaryDirectory(prefix="panelvox-eval-") as tmp:
        store = NameStore(Path(tmp) / "names.json")
        names = BookNames(book.content_hash, (), store, words=words, persons=persons)
        yield PageService(book, analyzer, names)
