"""The one small interface every book format implements, its shared helpers, and format detection.

An adapter lists entries, reads one entry's bytes (with a size cap) and closes. It never
extracts anything to disk: entry names are only labels. The format is chosen by the file's
content (magic bytes), so a ``.cbz`` that is really a RAR still opens. The adapters live in
``*_adapter.py`` modules, found by :mod:`panelvox.books.adapter_discovery`; this module
imports none of them.
"""

from __future__ import annotations

import io
import lzma
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from panelvox.books.limits import Limits
from panelvox.errors import BookError, PasswordProtected, ResourceLimitExceeded, UnreadablePage
from panelvox.i18n import _

#: What third-party parsers raise on hostile or damaged bytes. Listed explicitly (not a
#: blind ``except Exception``) so a programming error in Panelvox still surfaces.
PARSER_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    EOFError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    AssertionError,
    NotImplementedError,
    RuntimeError,
    OverflowError,
    MemoryError,
    RecursionError,
    struct.error,
    zlib.error,
    lzma.LZMAError,
)

_CHUNK = 1024 * 1024


class BookFormat(Enum):
    ZIP = "zip"
    RAR = "rar"
    SEVEN_ZIP = "7z"
    TAR = "tar"
    PDF = "pdf"
    FOLDER = "folder"

    def describe(self) -> str:
        if self is BookFormat.ZIP:
            # Translators: a book format.
            return _("ZIP archive (CBZ)")
        if self is BookFormat.RAR:
            # Translators: a book format.
            return _("RAR archive (CBR)")
        if self is BookFormat.SEVEN_ZIP:
            # Translators: a book format.
            return _("7-Zip archive (CB7)")
        if self is BookFormat.TAR:
            # Translators: a book format.
            return _("TAR archive (CBT)")
        if self is BookFormat.PDF:
            # Translators: a book format.
            return _("PDF document")
        # Translators: a book format: a folder holding one image per page.
        return _("folder of images")


@dataclass(frozen=True, slots=True)
class Entry:
    """One member of a book. ``ident`` is the adapter's own handle for it."""

    ident: int
    name: str
    #: Declared uncompressed size in bytes; -1 where the format does not say.
    size: int
    encrypted: bool = False


class BookAdapter(Protocol):
    format: BookFormat

    def entries(self) -> Sequence[Entry]:
        """Every file entry (not folders), in the archive's own order."""
        ...

    def read(self, entry: Entry, limit: int) -> bytes:
        """The entry's bytes; :class:`ResourceLimitExceeded` past ``limit`` bytes."""
        ...

    def close(self) -> None: ...


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


def read_capped(stream: Readable, limit: int, name: str) -> bytes:
    """Read a stream to its end, refusing (without reading on) once past ``limit`` bytes."""
    buf = io.BytesIO()
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return buf.getvalue()
        total += len(chunk)
        if total > limit:
            raise ResourceLimitExceeded(
                # Translators: spoken when a part of a book is bigger than is safe to read.
                _("This part of the book is too large to open safely."),
                detail=f"{name}: more than {limit} bytes when decompressed",
            )
        buf.write(chunk)


def damaged_entry(detail: str) -> UnreadablePage:
    """One entry cannot be read; the book turns this into a message naming the page."""
    # Translators: spoken when one part of a book is damaged.
    return UnreadablePage(_("This page is damaged and cannot be shown."), detail=detail)


def password_protected(detail: str) -> PasswordProtected:
    # Translators: spoken when a book needs a password Panelvox does not have.
    return PasswordProtected(_("This book is password protected."), detail=detail)


def damaged(detail: str) -> BookError:
    # Translators: spoken when a book's file is damaged and cannot be opened.
    return BookError(_("This book is damaged and cannot be opened."), detail=detail)


def sniff(path: Path) -> BookFormat | None:
    """Format from content: magic bytes first, then (for plain tar) the ustar marker."""
    if path.is_dir():
        return BookFormat.FOLDER
    with path.open("rb") as fh:
        head = fh.read(1024)
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return BookFormat.ZIP
    if head.startswith(b"Rar!\x1a\x07"):
        return BookFormat.RAR
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return BookFormat.SEVEN_ZIP
    if b"%PDF-" in head:
        return BookFormat.PDF
    if head[257:262] == b"ustar":
        return BookFormat.TAR
    # Compressed tarballs: only when the name says tar, since gzip alone is not a book.
    low = path.name.casefold()
    if head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")) and low.endswith(
        (".cbt", ".tar", ".tgz", ".tar.gz", ".tbz2", ".tar.bz2", ".txz", ".tar.xz")
    ):
        return BookFormat.TAR
    # Old v7 tar has no magic: trust the extension, tarfile's checksum confirms it.
    if low.endswith((".cbt", ".tar")) and len(head) >= 512:
        return BookFormat.TAR
    return None


def check_unpacked_size(path: Path, unpacked: int, limits: Limits) -> None:
    """Refuse a solid archive whose blocks unpack to more than the book's budget: reaching
    its last page decompresses everything before it (a solid 7z or RAR "bomb" puts
    gigabytes of zeros before the first page)."""
    budget = limits.decompression_budget(path.stat().st_size)
    if unpacked > budget:
        raise too_large(f"{path}: unpacks to {unpacked} bytes, budget {budget}")


def too_large(detail: str) -> ResourceLimitExceeded:
    """The whole book costs too much to open (declared sizes, a decompression budget)."""
    # Translators: spoken when a book is too big to open safely.
    return ResourceLimitExceeded(_("This book is too large to open safely."), detail=detail)


def too_many_entries(count: int, limit: int) -> ResourceLimitExceeded:
    return ResourceLimitExceeded(
        # Translators: spoken when a book lists more files than is safe to handle.
        _("This book has too many files to open safely."),
        detail=f"{count} entries, limit {limit}",
    )
