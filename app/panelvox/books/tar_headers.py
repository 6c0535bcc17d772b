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


def check_headers(stream: BudgetedStream, limits: Limits) -> None:
    """Walk every header once, as tarfile will; raise before anything costs too much.

    Stops where tarfile stops (the end, a zero block, a header it cannot parse). Leaves
    the stream at its start.
    """
    headers = 0
    pending_size: int | None = None  # an extended header's "size" for the next member
    global_size: int | None = None
    while True:
        block = stream.read(_BLOCK)
        if len(block) < _BLOCK:
            break
        try:
            info = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        except tarfile.HeaderError:
            break  # the end, or damage: tarfile stops here too
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
            if kind in _EXTENDED:
                size = _pax_size(data)
                if kind == tarfile.XGLTYPE:
                    global_size = size if size is not None else global_size
                else:
                    pending_size = size
            continue
        size = pending_size if pending_size is not None else global_size
        pending_size = None
        if size is None:
            size = info.size
        if kind not in _NO_DATA and size:
            stream.seek(_padded(size), 1)
    stream.seek(0)


def _padded(size: int) -> int:
    return -(-size // _BLOCK) * _BLOCK


def _pax_size(data: bytes) -> int | None:
    """The ``size`` a pax header sets (None: it sets none); refuses a malformed one.

    Records are ``"<length> <key>=<value>\\n"``, parsed here in one linear pass.
    """
    if _LONG_DIGITS.search(data):
        raise damaged("TAR: a pax header with a long run of digits")
    size: int | None = None
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
        pos = end
    return size
