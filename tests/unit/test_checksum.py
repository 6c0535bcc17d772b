"""The one sha256 helper: chunked, with progress."""

from __future__ import annotations

import hashlib
from pathlib import Path

from panelvox.checksum import CHUNK_BYTES, sha256_of


def test_sha256_of_reads_in_chunks_and_reports_progress(tmp_path: Path) -> None:
    data = bytes(range(256)) * (CHUNK_BYTES // 256 + 3)  # a little over one chunk
    path = tmp_path / "blob"
    path.write_bytes(data)
    seen: list[int] = []
    assert sha256_of(path, seen.append) == hashlib.sha256(data).hexdigest()
    assert seen == [CHUNK_BYTES, len(data) - CHUNK_BYTES]
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert sha256_of(empty) == hashlib.sha256(b"").hexdigest()
