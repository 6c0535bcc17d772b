"""Where the reader was in each book, and the recently opened books.

One small JSON file, ``$XDG_STATE_HOME/panelvox/positions.json``, keyed by the book's content
hash (a moved or renamed book keeps its place). Every save writes a temporary file, syncs
it and renames it over the old one, so a crash at any moment leaves the old or the new
file, never half of one; temporary files a killed save left are removed by the next save.
Two reader windows share the file: each save re-reads it under a lock
(``positions.lock``), so one window never undoes the other's last position.

Only a regular file is read (never a FIFO or a device). A damaged file is recovered: the
entries that are whole are kept, the rest dropped, the file as it was is kept beside it
(``positions.json.damaged``) and one sentence is noted to be said (:func:`take_notices`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panelvox import paths
from panelvox.i18n import _
from panelvox.jsonfile import (
    MAX_STORE_BYTES,
    note_notice,
    read_regular,
    write_json_atomic,
)
from panelvox.reader.position import Level, Position

try:  # POSIX; elsewhere two windows saving in the same instant may still race
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

_FORMAT = "panelvox.positions/1"
MAX_RECENT = 10
#: No book has more pages or steps than this; a larger number is damage.
_MAX_INDEX = 10_000_000
_LEVELS = {level.value for level in Level}


@dataclass(frozen=True, slots=True)
class RecentBook:
    path: str
    title: str


def _int(value: object, low: int) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and low <= value < _MAX_INDEX:
        return value
    return None


def _clean_position(entry: object) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        return None
    page, step = _int(entry.get("page"), 0), _int(entry.get("step", -1), -1)
    level = entry.get("level", "page")
    if page is None or step is None or level not in _LEVELS:
        return None
    return {"page": page, "step": step, "level": level}


def _clean(data: object) -> tuple[dict[str, Any], bool]:
    """The store's whole entries, and whether anything was dropped."""
    if not isinstance(data, dict):
        return {}, True
    books_in = data.get("books", {})
    recent_in = data.get("recent", [])
    dropped = not isinstance(books_in, dict) or not isinstance(recent_in, list)
    books: dict[str, Any] = {}
    for key, entry in books_in.items() if isinstance(books_in, dict) else ():
        clean = _clean_position(entry)
        if clean is None or not isinstance(key, str):
            dropped = True
            continue
        books[key] = clean
    recent: list[dict[str, str]] = []
    for item in recent_in if isinstance(recent_in, list) else ():
        if (
            isinstance(item, dict)
            and isinstance(item.get("path"), str)
            and isinstance(item.get("title", ""), str)
        ):
            recent.append({"path": item["path"], "title": item.get("title", "")})
        else:
            dropped = True
    return {"format": _FORMAT, "books": books, "recent": recent[:MAX_RECENT]}, dropped


class PositionStore:
    """Read and write ``positions.json``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.state_dir() / "positions.json"

    def _load(self) -> dict[str, Any]:
        try:
            raw = read_regular(self.path, MAX_STORE_BYTES)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("ignoring unreadable %s: %r", self.path, exc)
            return {}
        try:
            parsed: object = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            log.warning("damaged %s: %r", self.path, exc)
            parsed = None
        data, dropped = _clean(parsed)
        if dropped:
            self._recovered()
        return data

    def _recovered(self) -> None:
        """Keep the damaged file beside the store (once) and prepare the sentence."""
        backup = self.path.with_name(self.path.name + ".damaged")
        try:
            if not backup.exists():
                shutil.copyfile(self.path, backup)
        except OSError as exc:
            log.warning("no backup of the damaged %s: %r", self.path, exc)
        log.warning("recovered the damaged %s (kept as %s)", self.path, backup.name)
        # Translators: said once when the file of saved reading places was damaged.
        note_notice(_("Some saved reading places were damaged and have been reset."))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold ``positions.lock`` (where it can be made) for one read-modify-write."""
        fd = -1
        if fcntl is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path.with_name("positions.lock"), os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as exc:  # a read-only home: the save below fails and says so
                log.debug("no lock for %s: %r", self.path, exc)
        try:
            yield
        finally:
            if fd >= 0:
                os.close(fd)  # releases the lock

    def get(self, book_hash: str) -> Position | None:
        entry = self._load().get("books", {}).get(book_hash)
        if entry is None:
            return None
        return Position(entry["page"], entry["step"], Level(entry["level"]))

    def recent(self) -> list[RecentBook]:
        return [RecentBook(r["path"], r["title"]) for r in self._load().get("recent", [])]

    def save(self, book_hash: str, position: Position, *, path: Path | None = None, title: str = "") -> None:
        """Remember ``position`` for the book (and, with ``path``, put it first in the recent list)."""
        with self._locked():
            data = self._load() or {"format": _FORMAT, "books": {}, "recent": []}
            data["books"][book_hash] = {
                "page": position.page,
                "step": position.step,
                "level": position.level.value,
            }
            if path is not None:
                recent = [r for r in data["recent"] if r["path"] != str(path)]
                data["recent"] = [{"path": str(path), "title": title}, *recent][:MAX_RECENT]
            try:
                write_json_atomic(self.path, data)
            except OSError as exc:  # a read-only home costs the bookmark, never the reading
                log.warning("cannot save reading position: %r", exc)
