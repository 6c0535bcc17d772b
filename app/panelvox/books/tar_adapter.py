"""CBT / TAR books (standard library :mod:`tarfile`); regular files only, never links."""

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

_ERRORS: tuple[type[BaseException], ...] = (tarfile.TarError, *PARSER_ERRORS)


class TarAdapter:
    format = BookFormat.TAR

    def __init__(self, path: Path, limits: Limits) -> None:
        try:
            # Kept open for the life of the book; close() releases it.
            self._tar = tarfile.open(path, mode="r:*")  # noqa: SIM115
        except _ERRORS as exc:
            raise damaged(f"{path}: not a readable TAR: {exc!r}") from exc
        members: list[tarfile.TarInfo] = []
        try:
            # Iterate rather than getmembers() so a huge listing stops at the limit.
            for member in self._tar:
                if member.isreg():
                    members.append(member)
                    if len(members) > limits.max_entries:
                        self._tar.close()
                        raise too_many_entries(len(members), limits.max_entries)
        except _ERRORS as exc:
            self._tar.close()
            raise damaged(f"{path}: TAR listing failed: {exc!r}") from exc
        self._members = members
        self._entries = [Entry(ident=n, name=m.name, size=m.size) for n, m in enumerate(members)]

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        try:
            fh = self._tar.extractfile(self._members[entry.ident])
            if fh is None:
                raise damaged_entry(f"{entry.name}: not a regular file")
            with fh:
                return read_capped(fh, limit, entry.name)
        except _ERRORS as exc:
            raise damaged_entry(f"{entry.name}: {exc!r}") from exc

    def close(self) -> None:
        self._tar.close()
