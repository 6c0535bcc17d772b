"""CBZ / ZIP books (standard library :mod:`zipfile`)."""

from __future__ import annotations

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
            self._zip = zipfile.ZipFile(path)
        except _ERRORS as exc:
            raise damaged(f"{path}: not a readable ZIP: {exc!r}") from exc
        # a damaged central directory can name a member "" (zipfile's is_dir() then fails)
        infos = [i for i in self._zip.infolist() if i.filename and not i.is_dir()]
        if len(infos) > limits.max_entries:
            self._zip.close()
            raise too_many_entries(len(infos), limits.max_entries)
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
