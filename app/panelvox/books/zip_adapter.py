"""CBZ / ZIP books (standard library :mod:`zipfile`)."""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Sequence
from pathlib import Path

from panelvox.books.adapter import (
    PARSER_ERRORS,
    BookFormat,
    Entry,
    damaged,
    damaged_entry,
    read_capped,
    too_many_entries,
)
from panelvox.books.limits import Limits

_ERRORS: tuple[type[BaseException], ...] = (zipfile.BadZipFile, *PARSER_ERRORS)


class ZipAdapter:
    format = BookFormat.ZIP

    def __init__(self, path: Path, limits: Limits) -> None:
        try:
            count = _count_directory(path, limits.max_entries)
            if count > limits.max_entries:
                raise too_many_entries(count, limits.max_entries)
            self._zip = zipfile.ZipFile(path)
        except _ERRORS as exc:
            raise damaged(f"{path}: not a readable ZIP: {exc!r}") from exc
        # a damaged central directory can name a member "" (zipfile's is_dir() then fails)
        infos = [i for i in self._zip.infolist() if i.filename and not i.is_dir()]
        self._infos = infos
        self._entries = [
            # Bit 0 of the flags marks an encrypted member (PKWARE or AES).
            Entry(ident=n, name=i.filename, size=i.file_size, encrypted=bool(i.flag_bits & 0x1))
            for n, i in enumerate(infos)
        ]

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        info = self._infos[entry.ident]
        try:
            with self._zip.open(info) as fh:
                return read_capped(fh, limit, entry.name)
        except _ERRORS as exc:
            raise damaged_entry(f"{entry.name}: {exc!r}") from exc

    def close(self) -> None:
        self._zip.close()


_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # one central directory header (46 bytes)


def _count_directory(path: Path, stop_after: int) -> int:
    """Entries of every kind in the central directory, counted (up to ``stop_after`` + 1)
    before :mod:`zipfile` makes an object of each: a million-entry ZIP costs it seconds and
    hundreds of megabytes. Finds the directory as zipfile does; 0 when it cannot."""
    with path.open("rb") as fh:
        endrec = zipfile._EndRecData(fh)  # type: ignore[attr-defined]
        if not endrec:
            return 0
        size_cd, location = endrec[5], endrec[9]
        start = location - size_cd
        if endrec[0] == b"PK\x06\x06":  # a ZIP64 end record and its locator precede
            start -= 56 + 20
        if start < 0:
            return 0
        fh.seek(start)
        directory = fh.read(size_cd)
    count, pos = 0, 0
    while pos + _CENTRAL.size <= len(directory) and count <= stop_after:
        fields = _CENTRAL.unpack_from(directory, pos)
        if fields[0] != b"PK\x01\x02":
            break
        count += 1
        pos += _CENTRAL.size + fields[12] + fields[13] + fields[14]
    return count
