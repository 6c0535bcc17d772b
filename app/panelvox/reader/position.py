"""Where the reader is in a book, and the one place page indices become page numbers.

A :class:`Position` holds the page as a 0-based index (what books, lists and caches use);
people hear and type 1-based page numbers, as do the page model, the page service and
the analyzers. Every crossing between the two goes through :func:`page_number` and
:func:`page_index` (or :attr:`Position.number` and :meth:`Position.at_number`), so an
off-by-one can live in one place only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["Level", "Position", "page_index", "page_number"]


def page_number(index: int) -> int:
    """The 1-based page number of the 0-based page ``index``."""
    return index + 1


def page_index(number: int) -> int:
    """The 0-based page index of the 1-based page ``number``."""
    return number - 1


class Level(Enum):
    """What the position points at: the page itself, a panel, or one balloon."""

    PAGE = "page"
    PANEL = "panel"
    BALLOON = "balloon"


@dataclass(frozen=True, slots=True)
class Position:
    page: int  # 0-based page index; :attr:`number` is the page number people hear
    step: int = -1  # index into the page's steps; -1: the page itself
    level: Level = Level.PAGE

    @classmethod
    def at_number(cls, number: int, step: int = -1, level: Level = Level.PAGE) -> Position:
        """The position on page ``number`` (1-based)."""
        return cls(page_index(number), step, level)

    @property
    def number(self) -> int:
        """The 1-based page number."""
        return page_number(self.page)
