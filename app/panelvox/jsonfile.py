"""Small JSON files that survive a crash: settings, positions, stores, caches.

One implementation for every store, so each gets the same guarantee: a crash or a full
disk leaves either the old file or the new one, never half of either.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def write_json_atomic(path: Path, data: Any, *, indent: int | None = 1, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file and :func:`os.replace`.

    ``durable`` also flushes the file to the disk before the rename (what a reading
    position needs to survive a power cut; a cache can skip it). Raises :class:`OSError`.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=indent, sort_keys=True, ensure_ascii=False)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ``{}`` when it is missing, damaged or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %r", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def update_json_section(path: Path, key: str, value: Any) -> None:
    """Replace one top-level section of a shared JSON file (e.g. settings.json), keeping the others."""
    data = read_json_object(path)
    data[key] = value
    write_json_atomic(path, data, indent=2)
