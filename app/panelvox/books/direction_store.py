"""The user's per-book reading-direction choices, kept in a small JSON file.

Keyed by :attr:`Book.content_hash`, so a renamed or moved book keeps its setting.
Written atomically (temporary file + :func:`os.replace`): a crash never leaves half a file.
"""

from __future__ import annotations

import logging
from pathlib import Path

from panelvox import paths
from panelvox.errors import PanelvoxError
from panelvox.i18n import _
from panelvox.jsonfile import read_json_object, write_json_atomic
from panelvox.model import ReadingDirection

log = logging.getLogger(__name__)

_FORMAT = "panelvox.directions/1"


class DirectionOverrides:
    """Read and write per-book direction overrides in ``directions.json``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.config_dir() / "directions.json"

    def _load(self) -> dict[str, str]:
        books = read_json_object(self.path).get("books")
        if not isinstance(books, dict):
            return {}
        return {str(k): str(v) for k, v in books.items()}

    def get(self, content_hash: str) -> ReadingDirection | None:
        value = self._load().get(content_hash)
        if value is None:
            return None
        try:
            return ReadingDirection(value)
        except ValueError:
            log.warning("unknown direction %r stored for %s", value, content_hash)
            return None

    def set(self, content_hash: str, direction: ReadingDirection) -> None:
        books = self._load()
        books[content_hash] = direction.value
        self._save(books)

    def clear(self, content_hash: str) -> None:
        books = self._load()
        if books.pop(content_hash, None) is not None:
            self._save(books)

    def _save(self, books: dict[str, str]) -> None:
        try:
            self._write(books)
        except OSError as exc:
            raise PanelvoxError(
                # Translators: spoken when the chosen reading direction cannot be saved.
                _("The reading direction could not be saved."),
                detail=f"{self.path}: {exc}",
            ) from exc

    def _write(self, books: dict[str, str]) -> None:
        write_json_atomic(self.path, {"format": _FORMAT, "books": books})
