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
    #: Most entries an archive may list, counting every kind (folders, links, a TAR's
    #: extended headers), not only files: a listing costs time and memory per entry.
    max_entries: int = 100_000
    #: Largest TAR extended header (pax) or GNU long name: real ones are a few hundred bytes.
    max_header_bytes: int = 64 * 1024
    #: Decompressed bytes a compressed TAR, or one solid block of a 7z or RAR, may cost per
    #: pass, as a multiple of the file's size (pages are JPEG or PNG: they hardly compress)...
    max_expansion: int = 16
    #: ... and never less than this, so a small book of uncompressed pages still opens.
    min_decompression_budget: int = 256 * MiB
    #: Largest page in pixels (width × height), checked from the header before decoding.
    #: Below Pillow's own bomb warning (about 89 M pixels) so it never has to fire.
    max_pixels: int = 64_000_000
    #: Largest ComicInfo.xml.
    max_comicinfo_bytes: int = 2 * MiB
    #: Memory given to decoded pages kept for quick return (RGB bytes).
    cache_bytes: int = 96 * MiB
    #: Long side, in pixels, at which PDF pages are rendered for analysis.
    pdf_render_long_side: int = 1800
    #: A PDF page whose drawing instructions are stored in more bytes than this is drawn by
    #: a child process with the two limits below (a scanned page's are a few dozen bytes).
    pdf_inline_instruction_bytes: int = 16 * 1024
    pdf_page_seconds: float = 8.0
    pdf_page_memory: int = 1536 * MiB
    #: Deepest folder nesting followed in a folder book.
    max_folder_depth: int = 8

    def decompression_budget(self, file_size: int) -> int:
        """Bytes a pass over a compressed or solid book of ``file_size`` bytes may decompress."""
        return min(self.max_total_bytes, max(self.min_decompression_budget, self.max_expansion * file_size))
