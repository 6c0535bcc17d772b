"""The sha256 of a file: how Panelvox checks every model and voice it lists.

One helper below every area (it imports nothing from Panelvox), for the OCR models pinned
in the rapidocr wheel, the Piper voices and the models the user adds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
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
