"""The one sha256 helper: chunked, with progress."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from panelvox import checksum
from panelvox.checksum import CHUNK_BYTES, sha256_of, sha256_remembered


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


def test_a_remembered_sha256_is_read_once_and_again_when_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = tmp_path / "model.onnx", tmp_path / "cache" / "checksums.json"
    path.write_bytes(b"weights" * 1000)
    hashed: list[Path] = []
    real = checksum.sha256_of
    monkeypatch.setattr(checksum, "sha256_of", lambda p: hashed.append(p) or real(p))
    want = hashlib.sha256(b"weights" * 1000).hexdigest()
    assert sha256_remembered(path, store) == want
    assert sha256_remembered(path, store) == want
    assert len(hashed) == 1  # the second start reads the store, not the file
    # damaged in place: same size, its modification time set back; its change time moved
    stat = path.stat()
    path.write_bytes(b"WEIGHTS" * 1000)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert sha256_remembered(path, store) == hashlib.sha256(b"WEIGHTS" * 1000).hexdigest()
    assert len(hashed) == 2


def test_an_unusable_store_costs_the_hashing_not_the_answer(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"x")
    want = hashlib.sha256(b"x").hexdigest()
    damaged = tmp_path / "checksums.json"
    damaged.write_text("[1, 2", encoding="utf-8")
    assert sha256_remembered(path, damaged) == want
    blocked = tmp_path / "file" / "checksums.json"  # its folder is a file: nothing is written
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert sha256_remembered(path, blocked) == want
    assert sha256_remembered(path, blocked) == want
