"""CBR / RAR books: :mod:`rarfile` lists entries itself and uses Debian's ``unar`` to
decompress (``unrar-free`` and ``bsdtar`` cannot read modern RAR, so they are not tried).

unar 1.10.1 (Debian 12) fails on some RAR5 members ("Attempted to read more data than
was available"; about 1 page in 70 of real scans packed by RAR 7). When it does, and
RARLAB's own ``unrar`` or ``rar`` is installed, that member is read again with it.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import rarfile

from panelvox.books.adapter import (
    PARSER_ERRORS,
    BookFormat,
    Entry,
    check_unpacked_size,
    damaged,
    damaged_entry,
    password_protected,
    read_capped,
    too_many_entries,
)
from panelvox.books.limits import Limits
from panelvox.errors import BookError
from panelvox.i18n import _

log = logging.getLogger(__name__)


class RarAdapter:
    format = BookFormat.RAR

    def __init__(self, path: Path, limits: Limits) -> None:
        self._path = path
        # rarfile keeps its tool choice in its own module; choosing unar here (not at
        # import time) keeps a broken ``unrar`` on PATH from being picked.
        rarfile.tool_setup(unrar=False, unar=True, bsdtar=False, sevenzip=False, sevenzip2=False, force=True)
        try:
            self._rar = rarfile.RarFile(str(path))
        except rarfile.PasswordRequired as exc:
            raise password_protected(f"{path}: {exc}") from exc
        except (rarfile.Error, *PARSER_ERRORS) as exc:
            raise damaged(f"{path}: not a readable RAR: {exc!r}") from exc
        listed = self._rar.infolist()
        infos = [i for i in listed if not i.is_dir()]
        if not infos and self._rar.needs_password():
            self._rar.close()
            raise password_protected(f"{path}: headers are encrypted")
        try:
            if len(listed) > limits.max_entries:
                raise too_many_entries(len(listed), limits.max_entries)
            # a solid RAR's member is reached by decompressing the ones before it
            check_unpacked_size(path, sum(max(i.file_size or 0, 0) for i in infos), limits)
        except BookError:
            self._rar.close()
            raise
        self._infos = infos
        self._entries = [
            Entry(ident=n, name=i.filename or "", size=i.file_size or 0, encrypted=i.needs_password())
            for n, i in enumerate(infos)
        ]

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def read(self, entry: Entry, limit: int) -> bytes:
        info = self._infos[entry.ident]
        try:
            with self._rar.open(info) as fh:
                return read_capped(fh, limit, entry.name)
        except rarfile.PasswordRequired as exc:
            raise password_protected(f"{entry.name}: {exc}") from exc
        except rarfile.RarCannotExec as exc:
            data = self._read_with_rarlab(entry, limit)
            if data is None:
                raise BookError(
                    # Translators: spoken when the program that unpacks RAR books is missing.
                    _("Reading this book needs the unar program, which is not installed."),
                    detail=str(exc),
                ) from exc
            return data
        except (rarfile.Error, *PARSER_ERRORS) as exc:
            data = self._read_with_rarlab(entry, limit)
            if data is None:
                raise damaged_entry(f"{entry.name}: {exc!r}") from exc
            log.info("%s: %s read with RARLAB's tool after unar failed: %r", self._path, entry.name, exc)
            return data

    def _read_with_rarlab(self, entry: Entry, limit: int) -> bytes | None:
        """The member printed by RARLAB ``unrar``/``rar`` (``p`` command), or None."""
        tool = _rarlab_tool()
        if tool is None or entry.encrypted:
            return None
        cmd = [tool, "p", "-inul", "-p-", "-c-", "--", str(self._path), entry.name]
        try:
            with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
                if proc.stdout is None:
                    return None
                try:
                    data = read_capped(proc.stdout, limit, entry.name)
                    rc = proc.wait(timeout=60)
                except BaseException:
                    proc.kill()
                    raise
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.warning("%s failed: %s", tool, exc)
            return None
        # A wildcard in the name could print several members; the size tells.
        return data if rc == 0 and len(data) == entry.size else None

    def close(self) -> None:
        self._rar.close()


def _rarlab_tool() -> str | None:
    """RARLAB's ``unrar`` or ``rar`` when installed (``unrar-free`` does not qualify)."""
    for name in ("unrar", "rar"):
        found = shutil.which(name)
        if found is None:
            continue
        try:
            banner = subprocess.run([found], capture_output=True, timeout=10, check=False).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        if b"Alexander Roshal" in banner:
            return found
    return None
