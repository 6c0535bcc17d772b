"""A folder of images as a book. Symbolic links are followed only when they stay inside."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from panelvox.books.adapter import BookFormat, Entry, damaged_entry, read_capped, too_many_entries
from panelvox.books.limits import Limits


class FolderAdapter:
    format = BookFormat.FOLDER

    def __init__(self, path: Path, limits: Limits) -> None:
        self._root = path.resolve()
        files: list[tuple[str, Path, int]] = []
        base_depth = len(self._root.parts)
        for dirpath, dirnames, filenames in os.walk(self._root, onerror=None, followlinks=False):
            here = Path(dirpath)
            if len(here.parts) - base_depth >= limits.max_folder_depth:
                dirnames[:] = []
            for fn in filenames:
                full = here / fn
                try:
                    real = full.resolve()
                    if not real.is_relative_to(self._root) or not real.is_file():
                        continue
                    size = real.stat().st_size
                except OSError:
                    continue
                files.append((full.relative_to(self._root).as_posix(), real, size))
                if len(files) > limits.max_entries:
                    raise too_many_entries(len(files), limits.max_entries)
        self._paths = [p for _, p, _ in files]
        self._entries = [Entry(ident=n, name=name, size=size) for n, (name, _, size) in enumerate(files)]

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        try:
            with self._paths[entry.ident].open("rb") as fh:
                return read_capped(fh, limit, entry.name)
        except OSError as exc:
            raise damaged_entry(f"{entry.name}: {exc!r}") from exc

    def close(self) -> None:
        return None
