"""Small JSON files that survive a crash: settings, positions, stores, caches.

One implementation for every store, so each gets the same guarantee: a crash or a full
disk leaves either the old file or the new one, never half of either. It is also where a
session learns that something could not be saved (a read-only or full home, a folder that
is a file): every failed write is noted here, and :func:`take_notices` gives the one sentence
the user hears about it, once per session. Reading never depends on a save.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from panelvox.i18n import _

log = logging.getLogger(__name__)

_lock = threading.Lock()
_unsaved: list[str] = []  # what could not be saved this session, in order
_minor: list[str] = []  # ... of what the user does not keep (the log): said only alone
_notices: list[str] = []  # sentences waiting to be said
_said: set[str] = set()  # sentences said this session
_unsaved_told: set[str] = set()  # the one "Could not save" sentence of this session, once given


def _what(path: Path) -> str:
    """What a file holds, in the words of the sentence the user hears."""
    name = path.name
    if name == "positions.json":
        # Translators: what could not be saved, in "Could not save {what}; ...".
        return _("the reading position")
    if name == "names.json":
        # Translators: what could not be saved, in "Could not save {what}; ...".
        return _("your names for characters")
    if name == "learned_names.json":
        # Translators: what could not be saved, in "Could not save {what}; ...".
        return _("the names the pages taught")
    if name in ("settings.json", "directions.json"):
        # Translators: what could not be saved, in "Could not save {what}; ...".
        return _("your settings")
    if name == "models.json":
        # Translators: what could not be saved, in "Could not save {what}; ...".
        return _("the list of models")
    # Translators: what could not be saved, in "Could not save {what}; ...".
    return _("the analysed pages")


def note_unsaved(what: str, exc: OSError, *, minor: bool = False) -> None:
    """Remember that ``what`` could not be saved (said once, by :func:`take_notices`).
    ``minor``: nothing the user keeps (the log file); named only when nothing else was."""
    log.warning("could not save %s: %r", what, exc)
    with _lock:
        kept = _minor if minor else _unsaved
        if what not in kept:
            kept.append(what)


def note_notice(text: str) -> None:
    """One sentence to say once (a damaged store recovered, say)."""
    with _lock:
        if text not in _notices and text not in _said:
            _notices.append(text)


def take_notices() -> list[str]:
    """The sentences not said yet this session: what could not be saved (the first time
    something could not), and the notices noted; each is given once."""
    with _lock:
        out = list(_notices)
        unsaved = _unsaved or _minor
        if unsaved and not _unsaved_told:  # one such sentence a session, even when the log went first
            # Translators: said once per session when a file could not be written; {what}
            # is e.g. "the reading position". Reading goes on.
            told = _("Could not save {what}; the disk may be full or read-only.").format(what=unsaved[0])
            out.insert(0, told)
            _unsaved_told.add(told)
        out = [text for text in out if text not in _said]
        _said.update(out)
        _notices.clear()
        return out


def forget_notices() -> None:
    """A new session (tests; the CLI run more than once in a process)."""
    with _lock:
        _unsaved.clear()
        _minor.clear()
        _unsaved_told.clear()
        _notices.clear()
        _said.clear()


def write_json_atomic(path: Path, data: Any, *, indent: int | None = 1, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file and :func:`os.replace`.

    ``durable`` also flushes the file to the disk before the rename (what a reading
    position needs to survive a power cut; a cache can skip it). Raises :class:`OSError`
    (noted for :func:`take_notices`); leaves no temporary file behind, and removes those
    that a save killed earlier left.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        note_unsaved(_what(path), exc)
        raise
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=indent, sort_keys=True, ensure_ascii=False)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
        remove_stale_temporaries(path.parent, path.stem)  # what a killed save left behind
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            note_unsaved(_what(path), exc)
        raise


def read_regular(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``max_bytes``.

    Never blocks on a FIFO or reads a device (``O_NONBLOCK``, then the type is checked on
    the open file, so a swap in between changes nothing). FileNotFoundError when missing;
    another OSError (ENOTREG-like) for anything else, or a file too large.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise OSError(f"{path} is {info.st_size} bytes, more than {max_bytes}")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(f"{path} grew past {max_bytes} bytes")
    return data


#: Largest JSON store read (positions, names, settings): far above any real one.
MAX_STORE_BYTES = 16 * 1024 * 1024


def remove_stale_temporaries(folder: Path, stem: str, older_than_s: float = 3600.0) -> int:
    """Remove the temporary files a killed write left beside ``stem``'s file; the count.

    Only ones older than ``older_than_s`` (a write in progress elsewhere is young).
    """
    removed = 0
    try:
        candidates = list(folder.glob(f".{stem}-*.tmp"))
    except OSError:
        return 0
    now = time.time()
    for tmp in candidates:
        with contextlib.suppress(OSError):
            if tmp.is_file() and not tmp.is_symlink() and now - tmp.lstat().st_mtime > older_than_s:
                tmp.unlink()
                removed += 1
    return removed


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ``{}`` when it is missing, damaged, not an object, not
    a regular file (a FIFO, a link to /dev/zero) or larger than :data:`MAX_STORE_BYTES`."""
    try:
        data = json.loads(read_regular(path, MAX_STORE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:
        log.warning("ignoring unreadable %s: %r", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def update_json_section(path: Path, key: str, value: Any) -> None:
    """Replace one top-level section of a shared JSON file (e.g. settings.json), keeping the others."""
    data = read_json_object(path)
    data[key] = value
    write_json_atomic(path, data, indent=2)
