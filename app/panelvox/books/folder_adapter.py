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
        self._walk(self._root, "", 0, limits, files)
        self._paths = [p for _, p, _ in files]
        self._entries = [Entry(ident=n, name=name, size=size) for n, (name, _, size) in enumerate(files)]

    def _walk(
        self, folder: Path, prefix: str, depth: int, limits: Limits, files: list[tuple[str, Path, int]]
    ) -> None:
        """The files under ``folder`` in os.walk's order (the book's identity hashes the list):
        each folder's files, then its folders one by one; folders behind links are not entered.

        From the scandir entries themselves: resolving every path (an lstat per level) made
        a folder of 99,999 pages or of 45,000 deep paths slow to open (issue 32). Only a
        link is resolved, and kept only when it stays inside the book."""
        try:
            with os.scandir(folder) as it:
                listed = list(it)
        except OSError:
            return
        subfolders: list[os.DirEntry[str]] = []
        for entry in listed:
            try:
                if entry.is_dir():
                    subfolders.append(entry)
                    continue
                if entry.is_symlink():
                    real = Path(entry.path).resolve()
                    if not real.is_relative_to(self._root) or not real.is_file():
                        continue
                    size = real.stat().st_size
                else:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    real = Path(entry.path)
                    size = entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            files.append((prefix + entry.name, real, size))
            if len(files) > limits.max_entries:
                raise too_many_entries(len(files), limits.max_entries)
        if depth >= limits.max_folder_depth:  # its files are listed, its folders not entered
            return
        for entry in subfolders:
            if not entry.is_symlink():
                self._walk(Path(entry.path), f"{prefix}{entry.name}/", depth + 1, limits, files)

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
