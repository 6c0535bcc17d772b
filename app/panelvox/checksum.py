"""The sha256 of a file: how Panelvox checks every model and voice it lists.

One helper below every area (it imports nothing from Panelvox), for the OCR models pinned
in the rapidocr wheel, the Piper voices and the models the user adds.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

#: Read this much at a time: multi-gigabyte models never sit in memory.
CHUNK_BYTES = 4 * 1024 * 1024


def sha256_of(path: Path, progress: Callable[[int], None] | None = None) -> str:
    """The hex sha256 of the file at ``path``; ``progress`` is told each chunk's size in bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            digest.update(chunk)
            if progress is not None:
                progress(len(chunk))
    return digest.hexdigest()


def sha256_of_values(values: Mapping[str, object]) -> str:
    """The hex sha256 of ``values`` written canonically as JSON (sorted keys, no spaces): how a
    model shipped as JSON (the speaker pairs, the person links, the order cue) checks its
    weights."""
    text = json.dumps(dict(values), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_remembered(path: Path, store: Path) -> str:
    """:func:`sha256_of`, remembered in the JSON file ``store`` for as long as the file keeps
    its size, inode, modification and change times (a write moves its change time even when
    its modification time is set back), so a model checked at every start is read once.

    A store that cannot be read or written costs the hashing, never the answer.
    """
    path = Path(path).resolve()
    st = path.stat()
    stamp = [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]
    try:
        known = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    entry = known.get(str(path))
    if isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("sha256"), str):
        return str(entry["sha256"])
    digest = sha256_of(path)
    known[str(path)] = {"stamp": stamp, "sha256": digest}
    with contextlib.suppress(OSError):
        store.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{store.stem}-", suffix=".tmp", dir=store.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(known, fh)
            os.replace(tmp, store)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return digest
