"""CBT / TAR books (standard library :mod:`tarfile`); regular files only, never links.

Plain, gzip, bzip2 or xz. The headers are checked first and every decompressed byte is
budgeted (:mod:`panelvox.books.tar_headers`), so tarfile never meets a header that costs
more than its size, on any Python.
"""

from __future__ import annotations

import tarfile
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
from panelvox.books.tar_headers import BudgetedStream, check_headers, open_stream

_ERRORS: tuple[type[BaseException], ...] = (tarfile.TarError, *PARSER_ERRORS)


class TarAdapter:
    format = BookFormat.TAR

    def __init__(self, path: Path, limits: Limits) -> None:
        try:
            raw = path.open("rb")
        except OSError as exc:
            raise damaged(f"{path}: {exc!r}") from exc
        try:
            self._stream: BudgetedStream = open_stream(raw, path.stat().st_size, limits)
        except _ERRORS as exc:
            raw.close()
            raise damaged(f"{path}: not a readable TAR: {exc!r}") from exc
        try:
            self._members = self._list(path, limits)
        except BaseException:
            self._stream.close()
            raise
        self._entries = [Entry(ident=n, name=m.name, size=m.size) for n, m in enumerate(self._members)]

    def _list(self, path: Path, limits: Limits) -> list[tarfile.TarInfo]:
        try:
            check_headers(self._stream, limits)
            self._stream.allow()
            # Kept open for the life of the book; close() releases it.
            self._tar = tarfile.open(fileobj=self._stream, mode="r:")  # type: ignore[call-overload]  # noqa: SIM115
            members: list[tarfile.TarInfo] = []
            # Iterate rather than getmembers() so a huge listing stops at the limit.
            for count, member in enumerate(self._tar, start=1):
                if count > limits.max_entries:
                    raise too_many_entries(count, limits.max_entries)
                if member.isreg():
                    members.append(member)
        except _ERRORS as exc:
            raise damaged(f"{path}: TAR listing failed: {exc!r}") from exc
        # tarfile keeps every member it listed; the entries are all the book needs
        self._tar.members = []
        return members

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        member = self._members[entry.ident]
        try:
            self._stream.allow()
            fh = self._tar.extractfile(member)
            if fh is None:
                raise damaged_entry(f"{entry.name}: not a regular file")
            with fh:
                return read_capped(fh, limit, entry.name)
        except _ERRORS as exc:  # the budget's ResourceLimitExceeded is no parser error: it passes
            raise damaged_entry(f"{entry.name}: {exc!r}") from exc

    def close(self) -> None:
        tar = getattr(self, "_tar", None)
        if tar is not None:
            tar.close()
        self._stream.close()
