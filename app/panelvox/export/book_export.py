"""One book exported in one format, read through the page service page by page."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from panelvox.export.audiobook_export import write_audiobook
from panelvox.export.book_content import PageReader, book_meta, export_prefs, read_book
from panelvox.export.divina_export import write_divina
from panelvox.export.epub_export import write_epub
from panelvox.export.html_export import write_html
from panelvox.export.page_audio import PageRenderer
from panelvox.model import ReadingDirection
from panelvox.narration.prefs import NarrationPrefs, load_prefs


class ExportFormat(Enum):
    DIVINA = "divina"
    HTML = "html"
    EPUB = "epub"
    AUDIOBOOK = "audiobook"

    def suffix(self) -> str:
        """The file name ending of a book exported in this format (in a library batch)."""
        if self is ExportFormat.AUDIOBOOK:
            return ".ogg" if shutil.which("sox") else ".wav"
        return f".{self.value}"


@dataclass(frozen=True, slots=True)
class ExportOptions:
    format: ExportFormat
    audio: bool = False  # DiViNa: an audio file per page, an audioref per block
    backend: str | None = None  # the voice engine for audio ("piper", "pyttsx3"); None: the first
    direction: ReadingDirection | None = None


def export_pages(
    pages: PageReader,
    out: Path,
    options: ExportOptions,
    *,
    prefs: NarrationPrefs | None = None,
    on_page: Callable[[int], None] | None = None,
) -> list[Path]:
    """Write the book ``pages`` reads as ``options.format`` at ``out``; returns the files."""
    prefs = export_prefs(prefs if prefs is not None else load_prefs())
    meta = book_meta(pages.book)
    content = read_book(pages, prefs, on_page=on_page)
    fmt = options.format
    if fmt is ExportFormat.HTML:
        return [write_html(content, meta, out)]
    if fmt is ExportFormat.EPUB:
        return [write_epub(content, meta, out)]
    renderer = (
        PageRenderer(prefs, backend=options.backend)
        if (options.audio or fmt is ExportFormat.AUDIOBOOK)
        else None
    )
    try:
        if fmt is ExportFormat.DIVINA:
            return [write_divina(content, meta, out, renderer)]
        assert renderer is not None
        return write_audiobook(content, meta, out, renderer)
    finally:
        if renderer is not None:
            renderer.close()
