"""Character names the user gave, per book, kept in ``$XDG_CONFIG_HOME/panelvox/names.json``.

Keyed by :attr:`Book.content_hash` (a renamed or moved book keeps its names) and, inside a
book, by the character's identity cluster (``k3``), so a rename reaches every panel where
that person appears; a character without a cluster is keyed by page and id (``p4:c2``).
A user's name always wins over one learned from the text. Written atomically (temporary
file + :func:`os.replace`): a crash never leaves half a file.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from panelvox import paths
from panelvox.jsonfile import read_json_object, write_json_atomic
from panelvox.model import Character, PageAnalysis

log = logging.getLogger(__name__)

_FORMAT = "panelvox.names/1"


def character_key(page: int, character: Character) -> str:
    """The key a rename of ``character`` on ``page`` is stored under."""
    return character.cluster or f"p{page}:{character.id}"


class NameStore:
    """Read and write the user's character names in ``names.json``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.config_dir() / "names.json"

    def _load(self) -> dict[str, dict[str, str]]:
        books = read_json_object(self.path).get("books")
        if not isinstance(books, dict):
            return {}
        return {
            str(book): {str(k): str(v) for k, v in names.items()}
            for book, names in books.items()
            if isinstance(names, dict)
        }

    def names(self, content_hash: str) -> dict[str, str]:
        """Key -> name for one book (empty when the user named nobody)."""
        return self._load().get(content_hash, {})

    def rename(self, content_hash: str, key: str, name: str) -> None:
        """Store ``name`` for ``key``; an empty name forgets the rename."""
        books = self._load()
        names = books.setdefault(content_hash, {})
        if name.strip():
            names[key] = " ".join(name.split())
        else:
            names.pop(key, None)
        if not names:
            books.pop(content_hash, None)
        self._save(books)

    def apply(self, content_hash: str, analysis: PageAnalysis) -> PageAnalysis:
        """``analysis`` with the user's names put on its characters."""
        names = self.names(content_hash)
        if not names:
            return analysis
        chars = tuple(
            replace(c, name=names[character_key(analysis.page, c)])
            if character_key(analysis.page, c) in names
            else c
            for c in analysis.characters
        )
        return replace(analysis, characters=chars)

    def _save(self, books: dict[str, dict[str, str]]) -> None:
        write_json_atomic(self.path, {"format": _FORMAT, "books": books})
