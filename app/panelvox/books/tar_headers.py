"""A TAR's headers checked before :mod:`tarfile` parses them, and its decompression budget.

:mod:`tarfile` trusts what it reads: a GNU long name or a pax header is read whole at the
size it declares (a 2.6 MB file can make it allocate gigabytes), CPython before 3.11.10
parses a pax header of digits in quadratic time (CVE-2024-6232: 256 KB, a minute), a
listing counts every member however many, and a compressed tar is skipped through by
decompressing it (a gzip or bzip2 "skip bomb" declares one huge member of zeros). So one
linear pass here walks the headers first: every header counted, extended headers capped
in size and parsed strictly, sparse files refused, and every decompressed byte, read or
skipped, counted against a budget. Only then does :mod:`tarfile` see the stream, through
the same budget.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import tarfile
from dataclasses import dataclass
from typing import IO

from panelvox.books.adapter import damaged, too_large
from panelvox.books.limits import Limits

_BLOCK = tarfile.BLOCKSIZE
_EXTENDED = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_LONG_NAMES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
#: Types whose size tarfile does not skip (it skips data of regular and unknown types).
_NO_DATA = (
    tarfile.LNKTYPE,
    tarfile.SYMTYPE,
    tarfile.DIRTYPE,
    tarfile.FIFOTYPE,
    tarfile.CHRTYPE,
    tarfile.BLKTYPE,
)
#: What tarfile's ``isreg()`` accepts (sparse members are refused before this).
_REGULAR = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)
#: A longer run of digits is what makes tarfile's pax regexes quadratic; no real field has one.
_LONG_DIGITS = re.compile(rb"[0-9]{33}")


class BudgetedStream:
    """A decompressed stream that counts what it costs: every byte read, and for a
    compressed stream every byte a seek decompresses (forward: the distance; backward: from
    the start again). Past the allowance, :class:`ResourceLimitExceeded`."""

    def __init__(self, raw: IO[bytes], inner: IO[bytes], *, compressed: bool, budget: int) -> None:
        self._raw = raw
        self._inner = inner
        self._compressed = compressed
        self.budget = budget
        self._left = budget

    def allow(self, budget: int | None = None) -> None:
        """Start a new operation with a fresh allowance."""
        self._left = self.budget if budget is None else budget

    def _spend(self, n: int) -> None:
        self._left -= n
        if self._left < 0:
            raise too_large(f"TAR: more than {self.budget} bytes decompressed in one pass")

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = self._left + 1
        data = self._inner.read(min(size, self._left + 1))
        self._spend(len(data))
        return data

    def tell(self) -> int:
        return self._inner.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        here = self._inner.tell()
        target = {0: offset, 1: here + offset}.get(whence)
        if target is None:  # from the end: tarfile never asks; a compressed stream cannot
            raise OSError("seek from the end")
        if self._compressed:
            self._spend(target - here if target >= here else target)
        return self._inner.seek(target)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._raw.close()


def open_stream(raw: IO[bytes], file_size: int, limits: Limits) -> BudgetedStream:
    """The tar inside ``raw`` (gzip, bzip2, xz or plain), with the book's budget."""
    head = raw.read(6)
    raw.seek(0)
    inner: IO[bytes]  # kept open for the life of the book, like ``raw``
    if head.startswith(b"\x1f\x8b"):
        inner = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
    elif head.startswith(b"BZh"):
        inner = bz2.BZ2File(raw, mode="rb")
    elif head.startswith(b"\xfd7zXZ\x00"):
        inner = lzma.LZMAFile(raw, mode="rb")  # noqa: SIM115
    else:
        inner = raw
    budget = limits.decompression_budget(file_size)
    return BudgetedStream(raw, inner, compressed=inner is not raw, budget=budget)


@dataclass(frozen=True)
class Member:
    """A regular file of the TAR: its name as :mod:`tarfile` would give it, its size, and
    where its data starts in the decompressed stream."""

    name: str
    size: int
    offset: int


def list_members(stream: BudgetedStream, limits: Limits) -> list[Member]:
    """Walk every header once and list the regular files; raise before anything costs too much.

    The only pass over the headers (a second one by :mod:`tarfile` doubled the cost of a
    compressed book of long names). Names follow :mod:`tarfile`: a GNU long name or a pax
    ``path`` replaces the header's own (the outermost one wins), a global pax header applies
    to every member after it. Stops where tarfile stops (the end, a zero block, a header it
    cannot parse); a first header that is not one is no TAR, and a damaged header after a
    long name or a pax header is damage, as in tarfile.
    """
    members: list[Member] = []
    headers = 0
    pending_size: int | None = None  # an extended header's "size" for the next member
    pending_name: str | None = None  # a long name's or an extended header's "path"
    global_size: int | None = None
    global_name: str | None = None
    while True:
        offset = stream.tell()
        block = stream.read(_BLOCK)
        if len(block) == _BLOCK and block.count(0) == _BLOCK:
            break  # a zero block: the end
        try:
            info = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        except tarfile.HeaderError as exc:
            if offset == 0:
                raise damaged(f"TAR: no header at the start: {exc!r}") from exc
            if headers and (pending_name is not None or pending_size is not None):
                raise damaged(f"TAR: a damaged header after an extended one: {exc!r}") from exc
            break  # damage at the end: tarfile lists what came before it
        headers += 1
        if headers > limits.max_entries:
            raise too_large(f"TAR: more than {limits.max_entries} headers")
        kind = info.type
        if kind == tarfile.GNUTYPE_SPARSE:
            raise damaged("TAR: a sparse member")
        if kind in _EXTENDED or kind in _LONG_NAMES:
            if info.size > limits.max_header_bytes:
                raise too_large(f"TAR: a {kind!r} header of {info.size} bytes")
            data = stream.read(_padded(info.size))[: info.size]
            if kind == tarfile.GNUTYPE_LONGNAME and pending_name is None:
                pending_name = _decoded(data.split(b"\0", 1)[0])
            elif kind in _EXTENDED:
                size, path = _pax_fields(data)
                if kind == tarfile.XGLTYPE:
                    global_size = size if size is not None else global_size
                    global_name = path if path is not None else global_name
                else:
                    pending_size = size if pending_size is None else pending_size
                    pending_name = path if pending_name is None else pending_name
            continue
        size = next(s for s in (pending_size, global_size, info.size) if s is not None)
        name = next(n for n in (pending_name, global_name, info.name) if n is not None)
        pending_size = pending_name = None
        if kind in _REGULAR:
            members.append(Member(name=name, size=size, offset=offset + _BLOCK))
        if kind not in _NO_DATA and size:
            stream.seek(_padded(size), 1)
    return members


def _decoded(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _padded(size: int) -> int:
    return -(-size // _BLOCK) * _BLOCK


def _pax_fields(data: bytes) -> tuple[int | None, str | None]:
    """The ``size`` and ``path`` a pax header sets (None: it sets none); refuses a malformed one.

    Records are ``"<length> <key>=<value>\\n"``, parsed here in one linear pass.
    """
    if _LONG_DIGITS.search(data):
        raise damaged("TAR: a pax header with a long run of digits")
    size: int | None = None
    path: str | None = None
    pos = 0
    while pos < len(data) and data[pos] != 0:
        space = data.find(b" ", pos, pos + 21)
        length = int(data[pos:space]) if space > pos and data[pos:space].isdigit() else 0
        end = pos + length
        if space < 0 or end <= space + 1 or end > len(data) or data[end - 1] != 0x0A:
            raise damaged("TAR: a malformed pax record")
        key, eq, value = data[space + 1 : end - 1].partition(b"=")
        if not eq:
            raise damaged("TAR: a pax record without a value")
        if key.startswith(b"GNU.sparse"):
            raise damaged("TAR: a sparse member")
        if key == b"size":
            size = int(value) if value.isdigit() else 0  # what tarfile makes of a bad number
        elif key == b"path":
            path = _decoded(value)
        pos = end
    return size, path
