"""A book: pages in reading order, metadata, reading direction, lazily decoded pages."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np
from PIL import Image

from panelvox.books.adapter import BookAdapter, BookFormat, Entry
from panelvox.books.comicinfo import ComicInfo, PageType
from panelvox.books.direction import DirectionDecision, DirectionSource, decide_direction
from panelvox.books.limits import Limits
from panelvox.books.page_decoder import PageDecodeError, Problem, decode_page, read_header
from panelvox.errors import (
    BookError,
    PasswordProtected,
    ResourceLimitExceeded,
    UnreadablePage,
)
from panelvox.i18n import _
from panelvox.model import ReadingDirection

log = logging.getLogger(__name__)

#: told a book, says whether its pages are lettered mostly in vertical Japanese (the probe of
#: :mod:`panelvox.analysis.lettering_direction`, which the commands and the reader pass in)
LetteringProbe = Callable[["Book"], bool]


@dataclass(frozen=True, slots=True)
class PageRef:
    """One page of the book as listed (nothing decoded)."""

    #: Position in :attr:`Book.pages`, 0-based.
    index: int
    #: The entry's name inside the book: a label only, never used as a path on disk.
    label: str
    #: Position in the book's full sorted image list (what ComicInfo ``Page/@Image`` counts).
    image_index: int
    page_type: PageType | None = None
    double_page: bool = False


@dataclass(frozen=True, slots=True)
class PageCheck:
    """Result of a cheap header-only check of one page."""

    index: int
    width: int | None
    height: int | None
    #: One spoken sentence when the page cannot be read, else None.
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def _page_message(page_number: int, problem: Problem) -> str:
    if problem is Problem.EMPTY:
        # Translators: spoken when one page of a book is an empty file.
        return _("Page {n} is empty.").format(n=page_number)
    if problem is Problem.NOT_IMAGE:
        # Translators: spoken when one page of a book is not an image at all.
        return _("Page {n} is not a picture.").format(n=page_number)
    if problem is Problem.TOO_LARGE:
        # Translators: spoken when one page is too big to decode safely.
        return _("Page {n} is too large to open safely.").format(n=page_number)
    # Translators: spoken when one page of a book is damaged.
    return _("Page {n} is damaged and cannot be shown.").format(n=page_number)


class Book:
    """An open book. Not thread-hostile: page reads are serialised by an internal lock.

    Use :func:`open_book` to make one; close it (or use ``with``) to release the file.
    """

    def __init__(
        self,
        *,
        path: Path,
        adapter: BookAdapter,
        pages: tuple[PageRef, ...],
        entries: tuple[Entry, ...],
        metadata: ComicInfo | None,
        decision: DirectionDecision,
        content_hash: str,
        limits: Limits,
        lettering: LetteringProbe | None = None,
    ) -> None:
        self.path = path
        self.metadata = metadata
        self._decision = decision
        #: asked once, on the first question about the direction, when nothing else decided it
        self._lettering = lettering if decision.source is DirectionSource.DEFAULT else None
        self.content_hash = content_hash
        self.limits = limits
        self.pages = pages
        self._adapter = adapter
        self._entries = entries  # parallel to pages
        self._lock = threading.RLock()
        self._cache: OrderedDict[int, Image.Image] = OrderedDict()
        self._cache_bytes = 0
        self._unreadable: dict[int, str] = {}
        self._closed = False

    # -- description -------------------------------------------------------------------
    @property
    def format(self) -> BookFormat:
        return self._adapter.format

    @property
    def title(self) -> str:
        info = self.metadata
        if info is not None:
            if info.title:
                return info.title
            if info.series:
                return f"{info.series} {info.number}" if info.number else info.series
        return self.path.name if self.path.is_dir() else self.path.stem

    @property
    def direction_decision(self) -> DirectionDecision:
        """The reading direction and why. A book that says nothing (no override, no
        ComicInfo direction or language) is sampled by the lettering probe on first ask."""
        with self._lock:
            probe, self._lettering = self._lettering, None
            if probe is not None:
                self._decision = decide_direction(None, self.metadata, lambda: probe(self))
            return self._decision

    @property
    def direction(self) -> ReadingDirection:
        return self.direction_decision.direction

    @property
    def direction_source(self) -> DirectionSource:
        return self.direction_decision.source

    @property
    def page_count(self) -> int:
        return len(self.pages)

    @property
    def language(self) -> str | None:
        """The book's language from its ComicInfo (``LanguageISO``, "en"); None when unknown."""
        return self.metadata.language if self.metadata is not None else None

    @property
    def cached_bytes(self) -> int:
        """Memory held by decoded pages in the cache (RGB bytes)."""
        with self._lock:
            return self._cache_bytes

    @property
    def unreadable_pages(self) -> dict[int, str]:
        """Pages found unreadable so far (0-based index → spoken message)."""
        with self._lock:
            return dict(self._unreadable)

    # -- pages -------------------------------------------------------------------------
    def _ref(self, index: int) -> PageRef:
        if not 0 <= index < len(self.pages):
            raise BookError(
                # Translators: asked for a page number the book does not have.
                _("There is no page {n} in this book.").format(n=index + 1),
                detail=f"index {index} of {len(self.pages)}",
            )
        if self._closed:
            # Translators: a page was asked of a book that was already closed.
            raise BookError(_("This book is closed."), detail=str(self.path))
        return self.pages[index]

    def _read(self, index: int) -> bytes:
        entry = self._entries[index]
        n = index + 1
        if entry.size > self.limits.max_entry_bytes:
            raise self._unreadable_page(index, Problem.TOO_LARGE, f"declared {entry.size} bytes")
        try:
            return self._adapter.read(entry, self.limits.max_entry_bytes)
        except ResourceLimitExceeded as exc:
            raise self._unreadable_page(index, Problem.TOO_LARGE, exc.detail) from exc
        except PasswordProtected as exc:
            # Translators: spoken when one page is encrypted.
            message = _("Page {n} is password protected.").format(n=n)
            self._unreadable[index] = message
            raise UnreadablePage(message, detail=exc.detail) from exc
        except UnreadablePage as exc:
            raise self._unreadable_page(index, Problem.DAMAGED, exc.detail) from exc
        # Any other BookError (a missing unar, say) is about the whole book: it propagates.

    def _unreadable_page(self, index: int, problem: Problem, detail: str) -> UnreadablePage:
        message = _page_message(index + 1, problem)
        self._unreadable[index] = message
        log.warning("%s: page %d (%s) unreadable: %s", self.path, index + 1, self.pages[index].label, detail)
        return UnreadablePage(message, detail=f"{self.pages[index].label}: {detail}")

    def _decoded(self, index: int) -> Image.Image:
        """The cached decoded page (callers copy before handing it out)."""
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        data = self._read(index)
        try:
            image = decode_page(data, self.limits.max_pixels)
        except PageDecodeError as exc:
            raise self._unreadable_page(index, exc.problem, exc.detail) from exc
        finally:
            del data
        self._remember(index, image)
        return image

    def _remember(self, index: int, image: Image.Image) -> None:
        size = image.width * image.height * 3
        if size > self.limits.cache_bytes:
            return
        self._cache[index] = image
        self._cache_bytes += size
        while self._cache_bytes > self.limits.cache_bytes:
            _, old = self._cache.popitem(last=False)
            self._cache_bytes -= old.width * old.height * 3

    def load_page(self, index: int) -> Image.Image:
        """Page ``index`` (0-based) as an RGB image; :class:`UnreadablePage` for that page only."""
        with self._lock:
            self._ref(index)
            return self._decoded(index).copy()

    def load_page_array(self, index: int) -> np.ndarray:
        """Page ``index`` as a ``uint8`` array of shape (height, width, 3)."""
        with self._lock:
            self._ref(index)
            return np.array(self._decoded(index), dtype=np.uint8)

    def check_page(self, index: int) -> PageCheck:
        """Cheap check from the header only (size, format, truncation); decodes nothing."""
        with self._lock:
            self._ref(index)
            if index in self._cache:
                im = self._cache[index]
                return PageCheck(index, im.width, im.height, None)
            if self.format is BookFormat.PDF:
                size = self.native_size(index)
                return PageCheck(index, size[0] if size else None, size[1] if size else None, None)
            try:
                data = self._read(index)
                header = read_header(data, self.limits.max_pixels)
            except UnreadablePage as exc:
                return PageCheck(index, None, None, exc.message)
            except PageDecodeError as exc:
                err = self._unreadable_page(index, exc.problem, exc.detail)
                return PageCheck(index, None, None, err.message)
            return PageCheck(index, header.width, header.height, None)

    def native_size(self, index: int) -> tuple[int, int] | None:
        """The page's own size in pixels (for PDF: its largest image, else its size in points)."""
        with self._lock:
            self._ref(index)
            native = getattr(self._adapter, "native_size", None)
            if native is not None:
                size: tuple[int, int] | None = native(self._entries[index])
                return size
            try:
                header = read_header(self._read(index), self.limits.max_pixels)
            except (UnreadablePage, PageDecodeError):
                return None
            return header.width, header.height

    # -- lifetime ----------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._cache.clear()
                self._cache_bytes = 0
                self._adapter.close()

    def __enter__(self) -> Book:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Book({str(self.path)!r}, {self.format.value}, {self.page_count} pages)"
