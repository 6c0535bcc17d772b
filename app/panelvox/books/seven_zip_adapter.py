"""CB7 / 7z books (:mod:`py7zr`), decompressed into memory one entry at a time."""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import py7zr
import py7zr.exceptions
import py7zr.io

from panelvox.books.adapter import (
    PARSER_ERRORS,
    BookFormat,
    Entry,
    check_unpacked_size,
    damaged,
    damaged_entry,
    password_protected,
    too_many_entries,
)
from panelvox.books.limits import Limits
from panelvox.errors import ResourceLimitExceeded
from panelvox.i18n import _

_ERRORS: tuple[type[BaseException], ...] = (py7zr.exceptions.ArchiveError, *PARSER_ERRORS)

#: Bytes of following members kept from one pass over a solid block: reaching member N of a
#: solid 7z decompresses every member before it, so reading pages in order would otherwise
#: cost O(N²).
_READ_AHEAD_BYTES = 48 * 1024 * 1024


class _CappedWriter(py7zr.io.Py7zIO):
    """Keeps at most ``limit`` bytes and notes an overflow instead of growing."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.overflow = False
        self._buf = io.BytesIO()

    def write(self, s: bytes | bytearray) -> int:
        if self._buf.tell() + len(s) > self.limit:
            self.overflow = True
            return len(s)
        return self._buf.write(s)

    def read(self, size: int | None = None) -> bytes:
        return self._buf.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._buf.seek(offset, whence)

    def flush(self) -> None:
        return None

    def size(self) -> int:
        return len(self._buf.getbuffer())

    def value(self) -> bytes:
        return self._buf.getvalue()


class _Factory(py7zr.io.WriterFactory):
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.products: dict[str, _CappedWriter] = {}

    def create(self, filename: str) -> py7zr.io.Py7zIO:
        writer = _CappedWriter(self.limit)
        self.products[filename] = writer
        return writer


class SevenZipAdapter:
    format = BookFormat.SEVEN_ZIP

    def __init__(self, path: Path, limits: Limits) -> None:
        self._path = path
        try:
            self._sz = py7zr.SevenZipFile(path, mode="r")
        except py7zr.exceptions.PasswordRequired as exc:
            raise password_protected(f"{path}: {exc}") from exc
        except _ERRORS as exc:
            raise damaged(f"{path}: not a readable 7z: {exc!r}") from exc
        try:
            listed = self._sz.list()
            infos = [i for i in listed if not i.is_directory]
            encrypted = self._sz.needs_password()
            # what the blocks unpack to, as they declare it (what decompressing them costs)
            folders = getattr(getattr(self._sz.header, "main_streams", None), "unpackinfo", None)
            unpacked = sum(int(f.get_unpack_size()) for f in getattr(folders, "folders", None) or ())
        except _ERRORS as exc:
            self._sz.close()
            raise damaged(f"{path}: 7z listing failed: {exc!r}") from exc
        try:
            if len(listed) > limits.max_entries:
                raise too_many_entries(len(listed), limits.max_entries)
            check_unpacked_size(path, max(unpacked, sum(int(i.uncompressed or 0) for i in infos)), limits)
        except ResourceLimitExceeded:
            self._sz.close()
            raise
        self._entries = [
            Entry(ident=n, name=i.filename, size=int(i.uncompressed or 0), encrypted=encrypted)
            for n, i in enumerate(infos)
        ]
        self._ahead: OrderedDict[int, bytes] = OrderedDict()

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        kept = self._ahead.pop(entry.ident, None)
        if kept is not None:
            return kept
        # Ask for this member and the next ones (within a budget) in the same pass.
        wanted = [entry]
        budget = _READ_AHEAD_BYTES
        for nxt in self._entries[entry.ident + 1 :]:
            if nxt.size < 0 or nxt.size > min(budget, limit):
                break
            wanted.append(nxt)
            budget -= nxt.size
        factory = _Factory(limit)
        try:
            self._sz.reset()
            self._sz.extract(targets=[e.name for e in wanted], factory=factory)
        except py7zr.exceptions.PasswordRequired as exc:
            raise password_protected(f"{entry.name}: {exc}") from exc
        except _ERRORS as exc:
            raise damaged_entry(f"{entry.name}: {exc!r}") from exc
        writer = factory.products.get(entry.name)
        if writer is None:
            raise damaged_entry(f"{entry.name}: not produced by py7zr")
        if writer.overflow:
            raise ResourceLimitExceeded(
                # Translators: spoken when a part of a book is bigger than is safe to read.
                _("This part of the book is too large to open safely."),
                detail=f"{entry.name}: more than {limit} bytes when decompressed",
            )
        self._ahead.clear()
        for other in wanted[1:]:
            w = factory.products.get(other.name)
            if w is not None and not w.overflow and w.size() == other.size:
                self._ahead[other.ident] = w.value()
        return writer.value()

    def close(self) -> None:
        self._ahead.clear()
        self._sz.close()
