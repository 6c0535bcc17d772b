"""PDF books (:mod:`pymupdf`): each page is rendered for analysis, long side about
:attr:`Limits.pdf_render_long_side` pixels; the native size is kept on the entry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from panelvox.books.adapter import (
    PARSER_ERRORS,
    BookFormat,
    Entry,
    damaged,
    damaged_entry,
    password_protected,
)
from panelvox.books.limits import Limits
from panelvox.books.pdf_render import TooCostly, draw, draw_apart, instruction_bytes
from panelvox.errors import EmptyBook, ResourceLimitExceeded
from panelvox.i18n import _

#: MuPDF's own errors (FzErrorFormat for a malformed or cyclic page tree, FzErrorArgument
#: for a page too thin to render, ...) all derive from FzErrorBase, not from RuntimeError.
_ERRORS: tuple[type[BaseException], ...] = (pymupdf.FileDataError, pymupdf.mupdf.FzErrorBase, *PARSER_ERRORS)


class PdfAdapter:
    format = BookFormat.PDF

    def __init__(self, path: Path, limits: Limits) -> None:
        self._path = path
        self._limits = limits
        self._long_side = limits.pdf_render_long_side
        # MuPDF prints repair warnings on stderr; they belong in the log, not the terminal.
        pymupdf.TOOLS.mupdf_display_errors(False)
        try:
            self._doc = pymupdf.open(path, filetype="pdf")
        except _ERRORS as exc:
            raise damaged(f"{path}: not a readable PDF: {exc!r}") from exc
        if self._doc.needs_pass:
            self._doc.close()
            raise password_protected(f"{path}: PDF is encrypted")
        self._max_pixels = limits.max_pixels
        try:
            count = self._doc.page_count
        except _ERRORS as exc:
            self._doc.close()
            raise damaged(f"{path}: page tree unreadable: {exc!r}") from exc
        if count == 0:
            self._doc.close()
            # Translators: spoken when a PDF has no pages at all.
            raise EmptyBook(_("This PDF has no pages."), detail=str(path))
        width = len(str(count))
        # Page sizes are read lazily (see native_size): opening stays cheap for long PDFs.
        self._entries = [Entry(ident=n, name=f"page {n + 1:0{width}d}", size=-1) for n in range(count)]

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def native_size(self, entry: Entry) -> tuple[int, int] | None:
        """Pixel size of the page's largest image (a scan), else its size in points."""
        try:
            page = self._doc.load_page(entry.ident)
            best: tuple[int, int] | None = None
            for img in page.get_images(full=False):
                w, h = int(img[2]), int(img[3])
                if best is None or w * h > best[0] * best[1]:
                    best = (w, h)
            if best is not None:
                return best
            rect = page.rect
            return round(rect.width), round(rect.height)
        except _ERRORS:
            return None

    def read(self, entry: Entry, limit: int) -> bytes:
        """The rendered page as PPM bytes (a raw RGB raster Pillow reads instantly)."""
        try:
            page = self._doc.load_page(entry.ident)
            self._check_images(page, entry)
            rect = page.rect
            long_side, short_side = max(rect.width, rect.height), min(rect.width, rect.height)
            zoom = self._long_side / long_side if long_side > 0 else 0.0
            if short_side * zoom < 1:  # MuPDF refuses a raster less than a pixel wide
                raise damaged_entry(f"{entry.name}: page box {rect.width} x {rect.height}")
            if instruction_bytes(self._doc, page) <= self._limits.pdf_inline_instruction_bytes:
                return draw(page, self._long_side)
            lim = self._limits
            return draw_apart(
                self._path, entry.ident, self._long_side, lim.pdf_page_seconds, lim.pdf_page_memory
            )
        except TooCostly as exc:
            raise ResourceLimitExceeded(
                _("This part of the book is too large to open safely."), detail=f"{entry.name}: {exc}"
            ) from exc
        except _ERRORS as exc:
            raise damaged_entry(f"{entry.name}: render failed: {exc!r}") from exc

    def _check_images(self, page: pymupdf.Page, entry: Entry) -> None:
        """Refuse a page whose pictures MuPDF would decode at full size before scaling down
        (a 40000 x 40000 image takes seconds and gigabytes to draw at any zoom)."""
        pixels = sum(max(int(img[2]), 0) * max(int(img[3]), 0) for img in page.get_images(full=False))
        if pixels > self._max_pixels:
            raise ResourceLimitExceeded(
                # Translators: spoken when a part of a book is bigger than is safe to read.
                _("This part of the book is too large to open safely."),
                detail=f"{entry.name}: images of {pixels} pixels in all, limit {self._max_pixels}",
            )

    def close(self) -> None:
        self._doc.close()
