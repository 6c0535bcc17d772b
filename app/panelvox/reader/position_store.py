"""Where the reader was in each book, and the recently opened books.

One small JSON file, ``$XDG_STATE_HOME/panelvox/positions.json``, keyed by the book's content
hash (a moved or renamed book keeps its place). Every save writes a temporary file, syncs
it and renames it over the old one, so a crash at any moment leaves the old or the new
file, never half of one. A damaged file is ignored (and replaced on the next save).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panelvox import paths
from panelvox.jsonfile import write_json_atomic
from panelvox.reader.position import Level, Position

log = logging.getLogger(__name__)

_FORMAT = "panelvox.positions/1"
MAX_RECENT = 10


@dataclass(frozen=True, slots=True)
class RecentBook:
    path: str
    title: str


class PositionStore:
    """Read and write ``positions.json``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.state_dir() / "positions.json"

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring damaged %s: %r", self.path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, book_hash: str) -> Position | None:
        entry = self._load().get("books", {}).get(book_hash)
        if not isinstance(entry, dict):
            return None
        try:
            return Position(int(entry["page"]), int(entry.get("step", -1)), Level(entry.get("level", "page")))
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("ignoring damaged position for %s: %r", book_hash, exc)
            return None

    def recent(self) -> list[RecentBook]:
        out = []
        for item in self._load().get("recent", []):
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                out.append(RecentBook(item["path"], str(item.get("title", ""))))
        return out

    def save(self, book_hash: str, position: Position, *, path: Path | None = None, title: str = "") -> None:
        """Remember ``position`` for the book (and, with ``path``, put it first in the recent list)."""
        data = self._load()
        books: dict[str, Any] = data["books"] if isinstance(data.get("books"), dict) else {}
        books[book_hash] = {"page": position.page, "step": position.step, "level": position.level.value}
        data["books"] = books
        if path is not None:
            recent = [r for r in self.recent() if r.path != str(path)]
            recent.insert(0, RecentBook(str(path), title))
            data["recent"] = [{"path": r.path, "title": r.title} for r in recent[:MAX_RECENT]]
        data["format"] = _FORMAT
        self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        try:
            write_json_atomic(self.path, data)
        except OSError as exc:  # a read-only home costs the bookmark, never the reading
            log.warning("cannot save reading position: %r", exc)
