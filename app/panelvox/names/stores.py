"""Character names kept between sessions: the user's (``names.json``) and the text's.

The user's names, per book, live in ``$XDG_CONFIG_HOME/panelvox/names.json``.

Keyed by :attr:`Book.content_hash` (a renamed or moved book keeps its names) and, inside a
book, by page and character id (``p4:c2``): identity clusters are made per page, so a
cluster id alone would name different people on different pages. The book's names pass
carries a rename to the pages where the persons of the book say the same person speaks
(:mod:`panelvox.names.book_persons`). A user's name always wins over one learned from the
text. Looks stored by earlier versions are kept in the file, and forgotten with their name. Written atomically (temporary file + :func:`os.replace`):
a crash never leaves half a file.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from panelvox import paths
from panelvox.analysis.identity import Descriptor
from panelvox.jsonfile import read_json_object, write_json_atomic
from panelvox.model import Character

log = logging.getLogger(__name__)

_FORMAT = "panelvox.names/2"
_LEARNED_FORMAT = "panelvox.learned-names/2"


def character_key(page: int, character: Character) -> str:
    """The key a rename of ``character`` on ``page`` is stored under (``p4:c2``)."""
    return f"p{page}:{character.id}"


class NameStore:
    """Read and write the user's character names in ``names.json``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.config_dir() / "names.json"

    def _load(self) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, list[float]]]]:
        data = read_json_object(self.path)
        books, looks = data.get("books"), data.get("looks")
        names = {
            str(book): {str(k): str(v) for k, v in entries.items()}
            for book, entries in (books.items() if isinstance(books, dict) else ())
            if isinstance(entries, dict)
        }
        descs: dict[str, dict[str, list[float]]] = {}
        for book, entries in looks.items() if isinstance(looks, dict) else ():
            if isinstance(entries, dict):
                descs[str(book)] = {
                    str(k): [float(x) for x in v]
                    for k, v in entries.items()
                    if isinstance(v, list) and all(isinstance(x, int | float) for x in v)
                }
        return names, descs

    def names(self, content_hash: str) -> dict[str, str]:
        """Key -> name for one book (empty when the user named nobody)."""
        return self._load()[0].get(content_hash, {})

    def looks(self, content_hash: str) -> dict[str, Descriptor]:
        """Key -> stored look of each renamed character of one book that has one."""
        names, looks = self._load()
        kept = names.get(content_hash, {})
        return {
            k: np.asarray(v, np.float32) for k, v in looks.get(content_hash, {}).items() if k in kept and v
        }

    def rename(self, content_hash: str, key: str, name: str) -> None:
        """Store ``name`` for ``key``; an empty name forgets it (and a look an earlier version
        kept with it)."""
        books, looks = self._load()
        names = books.setdefault(content_hash, {})
        book_looks = looks.setdefault(content_hash, {})
        if name.strip():
            names[key] = " ".join(name.split())
        else:
            names.pop(key, None)
            book_looks.pop(key, None)
        for store in (books, looks):
            if not store.get(content_hash):
                store.pop(content_hash, None)
        write_json_atomic(self.path, {"format": _FORMAT, "books": books, "looks": looks})


class LearnedNames:
    """Where the names a book's pages said are kept between sessions.

    ``learned_names.json`` beside ``names.json``: per book, per page, how often the page's
    words say each name ("kala": 2). Only the page service writes it, explicitly
    (:meth:`panelvox.pages.PageService.save_names`); reading a page never does. Written
    atomically.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def beside(cls, store: NameStore) -> LearnedNames:
        """The learned names kept next to the user's ``store``."""
        return cls(store.path.with_name("learned_names.json"))

    def _load(self) -> dict[str, dict[int, dict[str, int]]]:
        data = read_json_object(self.path)
        books = data.get("books") if data.get("format") == _LEARNED_FORMAT else None
        out: dict[str, dict[int, dict[str, int]]] = {}
        for book, pages in books.items() if isinstance(books, dict) else ():
            if not isinstance(pages, dict):
                continue
            kept = out.setdefault(str(book), {})
            for page, counts in pages.items():
                if str(page).isdigit() and isinstance(counts, dict):
                    kept[int(page)] = {
                        str(k): int(n)
                        for k, n in counts.items()
                        if isinstance(n, int) and not isinstance(n, bool)
                    }
        return out

    def load(self, content_hash: str) -> dict[int, dict[str, int]]:
        """Page -> {name key: mentions}, for one book."""
        return self._load().get(content_hash, {})

    def save(self, content_hash: str, pages: dict[int, dict[str, int]]) -> None:
        """Replace one book's entries by ``pages``; OSError when it cannot be written."""
        books = self._load()
        new = {page: dict(sorted(counts.items())) for page, counts in sorted(pages.items()) if counts}
        if books.get(content_hash, {}) == new:
            return
        if new:
            books[content_hash] = new
        else:
            books.pop(content_hash, None)
        data = {b: {str(page): counts for page, counts in e.items()} for b, e in books.items()}
        write_json_atomic(self.path, {"format": _LEARNED_FORMAT, "books": data}, durable=False)
