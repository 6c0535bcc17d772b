"""Which archive entries are pages, and in what order (natural sort)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: File name endings of images Panelvox reads as pages (AVIF where Pillow supports it).
IMAGE_SUFFIXES: frozenset[str] = frozenset(
    {".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".webp", ".gif", ".bmp", ".dib", ".tif", ".tiff", ".avif"}
)
_JUNK_NAMES = frozenset({"thumbs.db", "desktop.ini", ".ds_store"})
_JUNK_DIRS = frozenset({"__macosx"})
_DIGITS = re.compile(r"(\d+)")

#: A number in a name, compared by value without int(): (digit count, digits), leading
#: zeros dropped. int() refuses numbers over 4,300 digits (CPython's guard against
#: quadratic conversion), and a hostile entry name can be all digits.
NumberKey = tuple[int, str]
NaturalKey = tuple[tuple[tuple[str | NumberKey, ...], ...], str]


def normalize_name(name: str) -> str:
    """Entry name with ``/`` separators and no empty parts; a label only, never a disk path."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _parts(name: str) -> list[str]:
    return normalize_name(name).split("/")


def is_junk(name: str) -> bool:
    """macOS resource forks, Windows thumbnails, hidden files and folders."""
    for part in _parts(name):
        low = part.casefold()
        if low in _JUNK_DIRS or low in _JUNK_NAMES or (part.startswith(".") and part != ".."):
            return True
    return False


def suffix(name: str) -> str:
    base = _parts(name)[-1]
    dot = base.rfind(".")
    return base[dot:].casefold() if dot > 0 else ""


def is_page_image(name: str) -> bool:
    """True for an image entry that is not junk (decided by name; content is checked on load)."""
    return not is_junk(name) and suffix(name) in IMAGE_SUFFIXES


def _number_key(digits: str) -> NumberKey:
    if not digits.isascii():  # other scripts' digits (Arabic-Indic, full-width) by value
        digits = "".join(str(unicodedata.decimal(c, 0)) for c in digits)
    value = digits.lstrip("0")
    return len(value), value


def _part_key(part: str) -> tuple[str | NumberKey, ...]:
    # re.split with one capture group alternates text, number, text, ...: even positions
    # are always str and odd ones a number key, so two keys always compare (a total order).
    pieces = _DIGITS.split(part.casefold())
    return tuple(_number_key(p) if i % 2 else p for i, p in enumerate(pieces))


def natural_key(name: str) -> NaturalKey:
    """Sort key: ``page2`` before ``page10``, case-insensitive, folder by folder.

    The raw name breaks ties (``01`` and ``1``) so the order is total and stable.
    """
    return tuple(_part_key(p) for p in _parts(name)), name


def natural_sorted(names: Iterable[str]) -> list[str]:
    return sorted(names, key=natural_key)
