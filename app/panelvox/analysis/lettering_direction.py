"""Which way a book reads, told by its lettering: vertical Japanese columns read right to left.

A manga CBZ without ComicInfo is the common case, and reading it left to right puts every
scene's opening line last. When neither the user nor the book's ComicInfo says which way it
reads (see :func:`panelvox.books.direction.decide_direction`), a few of its pages are
sampled: the text detector's boxes say how many lines are tall columns, and the longest
columns are read to check that they are Japanese (a tall box may be a Latin "I!" or a sound
effect lettered top to bottom). A book whose sampled lettering is mostly vertical Japanese
reads right to left.

It costs one detector pass per sampled page and one recognition batch (see
docs/benchmarks.md, "Manga (issue 31)"); the verdict is kept per book (content hash) in the
cache folder, so a book is sampled once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from panelvox import paths
from panelvox.analysis.lettering import script_of
from panelvox.errors import PanelvoxError
from panelvox.jsonfile import read_json_object, write_json_atomic
from panelvox.model import Image
from panelvox.models.ocr import OcrConfig, OcrEngine, crop_quad

log = logging.getLogger(__name__)

#: bump when the sampling or the verdict changes: stored verdicts of another version are redone
PROBE_VERSION = 1
_FORMAT = "panelvox.lettering/1"
#: pages sampled per book, and columns read per page
SAMPLE_PAGES = 3
READS_PER_PAGE = 4
#: pages are sampled at this longer side (pixels; a 1,200-pixel page's lettering stays
#: 15 pixels or more a character)
PROBE_SIDE = 800
#: detections thinner than this (pixels) are specks, not lettering (as the text stage has it)
_MIN_SIDE = 6


class SampledBook(Protocol):
    """What the probe needs of a book (:class:`panelvox.books.Book` and the eval's books)."""

    @property
    def content_hash(self) -> str: ...

    @property
    def page_count(self) -> int: ...

    def load_page_array(self, index: int) -> Image: ...


@dataclass(frozen=True, slots=True)
class LetteringCount:
    """What the sampled pages' lettering is made of."""

    lines: int = 0  # text boxes found
    columns: int = 0  # of them, tall boxes (vertical columns or tall words)
    read: int = 0  # columns read
    japanese: int = 0  # of those read, the ones read as Japanese

    def __add__(self, other: LetteringCount) -> LetteringCount:
        return LetteringCount(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def vertical_japanese(self) -> bool:
        """Mostly vertical Japanese: most lines are columns and most columns read are Japanese."""
        return 2 * self.columns > self.lines and 2 * self.japanese > self.read > 0


def sample_indices(page_count: int, n: int = SAMPLE_PAGES) -> list[int]:
    """``n`` pages spread through the book (0-based). The cover is left out where there are
    other pages: its lettering is a title, often set horizontally on manga too."""
    inner = range(1, page_count) if page_count > 1 else range(page_count)
    if len(inner) <= n:
        return list(inner)
    return sorted({inner[(2 * k + 1) * len(inner) // (2 * n)] for k in range(n)})


def count_page(engine: OcrEngine, image: Image, reads: int = READS_PER_PAGE) -> LetteringCount:
    """The lettering of one page: its lines, its columns, and ``reads`` of its longest
    columns read as vertical text (the longest are the likeliest to be lettering)."""
    # a page's lettering keeps its shape at a smaller size than the text stage reads it at,
    # and the detector's time goes with the pixels
    scale = PROBE_SIDE / max(image.shape[:2])
    if scale < 1:
        image = np.asarray(
            cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), dtype=np.uint8
        )
    found = engine.detect(image, min_side=PROBE_SIDE, outlines=False)
    dets = [d for d in found if min(d.width, d.height) >= _MIN_SIDE]
    tall = [d for d in dets if d.height >= engine.config.vertical_ratio * d.width]
    chosen = sorted(tall, key=lambda d: -d.height)[:reads]
    recs = engine.recognize([crop_quad(image, d.quad, vertical=True) for d in chosen]) if chosen else []
    japanese = sum(1 for r in recs if script_of(r.text) == "japanese")
    return LetteringCount(len(dets), len(tall), len(recs), japanese)


class LetteringDirection:
    """The probe a book is given (``open_book(..., lettering=...)``): called with the book,
    True when its lettering is mostly vertical Japanese. Never raises: a page that cannot
    be read is left out, and without the text models the answer is False (logged)."""

    def __init__(
        self,
        engine: OcrEngine | Callable[[], OcrEngine] | None = None,
        *,
        store: Path | None = None,
        pages: int = SAMPLE_PAGES,
    ) -> None:
        #: the engine, or how to get it (the text stage's, so a book's models load once)
        self._engine = engine
        self._lock = threading.Lock()
        #: where verdicts are kept by book content hash; None: nothing is kept (the eval)
        self.store = store
        self.pages = pages

    @classmethod
    def with_default_cache(
        cls, engine: OcrEngine | Callable[[], OcrEngine] | None = None
    ) -> LetteringDirection:
        """A probe keeping its verdicts in the user's cache folder."""
        return cls(engine, store=paths.cache_dir() / "lettering.json")

    @property
    def engine(self) -> OcrEngine:
        with self._lock:
            if self._engine is None:
                self._engine = OcrEngine(OcrConfig())
            elif not isinstance(self._engine, OcrEngine):
                self._engine = self._engine()
            return self._engine

    def count(self, book: SampledBook, indices: Sequence[int] | None = None) -> LetteringCount:
        """The lettering of the book's sampled pages (or of ``indices``)."""
        total = LetteringCount()
        for index in sample_indices(book.page_count, self.pages) if indices is None else indices:
            try:
                image = book.load_page_array(index)
            except PanelvoxError as exc:  # a damaged page is one sample fewer
                log.info("lettering sample: page %d left out: %s", index + 1, exc.detail or exc.message)
                continue
            total += count_page(self.engine, image)
        return total

    def __call__(self, book: SampledBook) -> bool:
        kept = self._kept(book.content_hash)
        if kept is not None:
            return kept
        try:
            count = self.count(book)
        except PanelvoxError as exc:  # no text models: the book keeps the default direction
            log.warning("the lettering could not be sampled: %s", exc.detail or exc.message)
            return False
        log.info("lettering of %s: %s", book.content_hash[:12], count)
        self._keep(book.content_hash, count.vertical_japanese)
        return count.vertical_japanese

    def _kept(self, content_hash: str) -> bool | None:
        if self.store is None:
            return None
        entry = read_json_object(self.store).get("books", {}).get(content_hash)
        if not isinstance(entry, dict) or entry.get("version") != PROBE_VERSION:
            return None
        value = entry.get("vertical_japanese")
        return value if isinstance(value, bool) else None

    def _keep(self, content_hash: str, vertical_japanese: bool) -> None:
        if self.store is None:
            return
        books = read_json_object(self.store).get("books")
        if not isinstance(books, dict):
            books = {}
        books[content_hash] = {"version": PROBE_VERSION, "vertical_japanese": vertical_japanese}
        try:
            write_json_atomic(self.store, {"format": _FORMAT, "books": books}, durable=False)
        except OSError as exc:  # a read-only cache costs a second sampling next time, nothing more
            log.warning("lettering verdict not kept: %r", exc)
