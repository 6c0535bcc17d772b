"""CBT / TAR books; regular files only, never links.

Plain, gzip, bzip2 or xz. One pass over the headers lists the pages, checking each header
and budgeting every decompressed byte (:mod:`panelvox.books.tar_headers`, which reads the
headers with :mod:`tarfile`'s own parser); a page is read from where that pass found it.
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
from panelvox.books.tar_headers import BudgetedStream, Member, list_members, open_stream

_ERRORS: tuple[type[BaseException], ...] = (tarfile.TarError, *PARSER_ERRORS)


class TarAdapter:
    format = BookFormat.TAR

    def __init__(self, path: Path, limits: Limits) -> None:
        try:
            raw = path.open("rb")
        except OSError as exc:
            raise damaged(f"{path}: {exc!r}") from exc
        try:
            # Kept open for the life of the book; close() releases it.
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

    def _list(self, path: Path, limits: Limits) -> list[Member]:
        try:
            members = list_members(self._stream, limits)
        except _ERRORS as exc:
            raise damaged(f"{path}: TAR listing failed: {exc!r}") from exc
        if len(members) > limits.max_entries:
            raise too_many_entries(len(members), limits.max_entries)
        return members

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        member = self._members[entry.ident]
        try:
            self._stream.allow()
            self._stream.seek(member.offset)
            data = read_capped(_Part(self._stream, member.size), limit, entry.name)
        except _ERRORS as exc:  # the budget's ResourceLimitExceeded is no parser error: it passes
            raise damaged_entry(f"{entry.name}: {exc!r}") from exc
        if len(data) < member.size:
            raise damaged_entry(f"{entry.name}: the book ends inside this page")
        return data

    def close(self) -> None:
        self._stream.close()


class _Part:
    """The ``size`` bytes of one page, read from where the stream stands."""

    def __init__(self, stream: BudgetedStream, size: int) -> None:
        self._stream = stream
        self._left = size

    def read(self, size: int = -1) -> bytes:
        want = self._left if size < 0 else min(size, self._left)
        data = self._stream.read(want) if want else b""
        self._left -= len(data)
        return data
