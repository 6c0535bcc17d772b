"""Resource limits that keep a hostile book from exhausting memory or CPU."""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024
GiB = 1024 * MiB


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds checked before anything large is read or decoded.

    Declared sizes are checked first (cheap); every read is also streamed with a cap,
    because an archive may lie about its sizes.
    """

    #: Largest single entry (one page image, or ComicInfo.xml) read into memory.
    max_entry_bytes: int = 256 * MiB
    #: Largest declared total of all page entries: past this the book is refused.
    max_total_bytes: int = 16 * GiB
    #: Most entries an archive may list.
    max_entries: int = 100_000
    #: Largest page in pixels (width × height), checked from the header before decoding.
    #: Below Pillow's own bomb warning (about 89 M pixels) so it never has to fire.
    max_pixels: int = 64_000_000
    #: Largest ComicInfo.xml.
    max_comicinfo_bytes: int = 2 * MiB
    #: Memory given to decoded pages kept for quick return (RGB bytes).
    cache_bytes: int = 96 * MiB
    #: Long side, in pixels, at which PDF pages are rendered for analysis.
    pdf_render_long_side: int = 1800
    #: Deepest folder nesting followed in a folder book.
    max_folder_depth: int = 8
