"""Which archive entries are pages, and in what order (natural sort)."""

from __future__ import annotations

import functools
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

#: How many characters of a name decide its place: a hostile archive's names can be thousands
#: of characters of digit runs, and a key over all of them made sorting 45,000 such names
#: take 20 s and 1.9 GB (issue 32). Past this, the name's last characters and then the raw
#: name break ties, each compared as one string.
KEY_CHARS = 256
#: A key is one string per folder level, compared with str's own comparison: text as
#: casefolded, a number as _NUMBER, then a character for its digit count, then its digits
#: (leading zeros dropped), so a shorter number sorts first and equal lengths compare digit by
#: digit -- by value without int(), which refuses numbers over 4,300 digits. _NUMBER sorts
#: before every printable character, so "page" < "page2" < "pages" as with whole-number keys.
_NUMBER = "\x00"
#: the pieces (text, number, text...) of a name's start that decide, and of a long name's end
#: that break ties (see _tail_key)
HEAD_PIECES = 33
TAIL_PIECES = 16
NaturalKey = tuple[tuple[str, ...], str, str]


def normalize_name(name: str) -> str:
    """Entry name with ``/`` separators and no empty parts; a label only, never a disk path."""
    if name and not _unusual(name):  # already normal (nearly every name): no list of its parts
        return name
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _unusual(name: str) -> bool:
    """Whether :func:`normalize_name` changes ``name``: a backslash, an empty or "." part
    (string searches in C; a regular expression tried at each of 1,000 characters cost more)."""
    return (
        "\\" in name
        or "//" in name
        or name.startswith(("/", "./"))
        or name.endswith(("/", "/."))
        or "/./" in name
        or name == "."
    )


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


@functools.lru_cache(maxsize=4096)  # bounded; a hostile name repeats its numbers hundreds of times
def _number_key(digits: str) -> str:
    if not digits.isascii():  # other scripts' digits (Arabic-Indic, full-width) by value
        digits = "".join(str(unicodedata.decimal(c, 0)) for c in digits)
    value = digits.lstrip("0")
    return _NUMBER + chr(1 + len(value)) + value


def _head_key(norm: str) -> tuple[str, ...]:
    """The key of a name's first :data:`KEY_CHARS` characters and :data:`HEAD_PIECES` text
    and number pieces, one string per folder level (a name of digit runs holds hundreds of
    numbers in a few hundred characters, and each costs a Python call)."""
    budget = HEAD_PIECES
    levels: list[str] = []
    for level in norm[:KEY_CHARS].casefold().split("/"):
        # re.split with one capture group alternates text, number, text...: odd ones are numbers
        pieces = _DIGITS.split(level)[: max(budget, 1)]
        budget -= len(pieces)
        levels.append("".join(_number_key(p) if i % 2 else p for i, p in enumerate(pieces)))
        if budget <= 0:
            break
    return tuple(levels)


def _tail_key(norm: str) -> str:
    """The last :data:`TAIL_PIECES` text and number pieces of a long name, from its last
    :data:`KEY_CHARS` characters (the first piece there may be cut, so it is left out).
    Counted in pieces from the end, two names that differ only near their end line up
    piece for piece, whatever their lengths: ``<long prefix> 2`` before ``<long prefix> 10``."""
    pieces = _DIGITS.split(norm[-KEY_CHARS:].casefold())
    start = max(1, len(pieces) - TAIL_PIECES)
    return "".join(_number_key(p) if i % 2 else p for i, p in enumerate(pieces[start:], start))


def natural_key(name: str) -> NaturalKey:
    """Sort key: ``page2`` before ``page10``, case-insensitive, folder by folder.

    Only the first :data:`KEY_CHARS` characters (and :data:`HEAD_PIECES` pieces) of the name
    are compared naturally; a longer name's last pieces then decide (:func:`_tail_key`), and
    the raw name breaks the remaining ties (``01`` and ``1``), so the order is total and
    stable. The key's size is bounded whatever the name: computing it is linear in the name,
    comparing two keys costs a few string comparisons.
    """
    norm = normalize_name(name)
    head = _head_key(norm)
    tail = _tail_key(norm) if len(norm) > KEY_CHARS else ""
    return head, tail, name


def natural_sorted(names: Iterable[str]) -> list[str]:
    return sorted(names, key=natural_key)
