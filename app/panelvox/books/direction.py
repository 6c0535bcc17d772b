"""Which way a book reads, and why (the reason is recorded and can be spoken)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from panelvox.books.comicinfo import ComicInfo, Manga
from panelvox.i18n import _
from panelvox.model import ReadingDirection

#: Languages whose comics read right to left when the book says nothing else.
_RTL_LANGUAGES = frozenset({"ja"})


class DirectionSource(Enum):
    """What decided the reading direction, strongest first."""

    OVERRIDE = "override"  # the user chose it for this book
    COMICINFO = "comicinfo"  # ComicInfo.xml Manga=YesAndRightToLeft
    LANGUAGE = "language"  # heuristic: the book's language (ja → right to left)
    DEFAULT = "default"  # nothing said anything: left to right


@dataclass(frozen=True, slots=True)
class DirectionDecision:
    direction: ReadingDirection
    source: DirectionSource

    def describe(self) -> str:
        """The reason in words, e.g. ``ComicInfo Manga=YesAndRightToLeft``."""
        if self.source is DirectionSource.OVERRIDE:
            # Translators: why a book reads in a direction: the user set it.
            return _("your choice for this book")
        if self.source is DirectionSource.COMICINFO:
            # Translators: why a book reads right to left; keep "ComicInfo Manga=YesAndRightToLeft".
            return _("ComicInfo Manga=YesAndRightToLeft")
        if self.source is DirectionSource.LANGUAGE:
            # Translators: why a book reads right to left: its declared language is Japanese.
            return _("the book's language is Japanese")
        # Translators: why a book reads left to right: nothing in the book says otherwise.
        return _("the default, nothing in the book says otherwise")


def direction_words(direction: ReadingDirection) -> str:
    if direction is ReadingDirection.RTL:
        # Translators: a reading direction.
        return _("right-to-left")
    if direction is ReadingDirection.TTB_RTL:
        # Translators: a reading direction (yonkoma strips).
        return _("top-to-bottom, right column first")
    # Translators: a reading direction.
    return _("left-to-right")


def decide_direction(override: ReadingDirection | None, info: ComicInfo | None) -> DirectionDecision:
    """User override > ComicInfo ``Manga=YesAndRightToLeft`` > language heuristic > left to right.

    ``Manga`` values ``Yes``, ``No`` and ``Unknown`` set nothing: plenty of manga are
    published flipped, and plenty of Western books are tagged ``Yes`` by mistake.
    """
    if override is not None:
        return DirectionDecision(override, DirectionSource.OVERRIDE)
    if info is not None:
        if info.manga is Manga.YES_AND_RIGHT_TO_LEFT:
            return DirectionDecision(ReadingDirection.RTL, DirectionSource.COMICINFO)
        if info.language in _RTL_LANGUAGES:
            return DirectionDecision(ReadingDirection.RTL, DirectionSource.LANGUAGE)
    return DirectionDecision(ReadingDirection.LTR, DirectionSource.DEFAULT)
