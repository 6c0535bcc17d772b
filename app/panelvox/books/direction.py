"""Which way a book reads, and why (the reason is recorded and can be spoken)."""

from __future__ import annotations

from collections.abc import Callable
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
    LETTERING = "lettering"  # heuristic: the sampled pages are lettered in vertical Japanese
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
        if self.source is DirectionSource.LETTERING:
            # Translators: why a book reads right to left: its pages are lettered in vertical
            # Japanese columns (the book itself says nothing about its direction).
            return _("the lettering is vertical Japanese")
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


#: asked only when nothing else decides: True when the book's pages are lettered mostly in
#: vertical Japanese (see :mod:`panelvox.analysis.lettering_direction`)
VerticalJapanese = Callable[[], bool]


def decide_direction(
    override: ReadingDirection | None,
    info: ComicInfo | None,
    lettering: VerticalJapanese | None = None,
) -> DirectionDecision:
    """User override > ComicInfo ``Manga=YesAndRightToLeft`` > language heuristic > the
    lettering > left to right.

    ``Manga`` values ``Yes``, ``No`` and ``Unknown`` set nothing: plenty of manga are
    published flipped, and plenty of Western books are tagged ``Yes`` by mistake.
    ``lettering`` is called only for a book whose ComicInfo names no language (a book in
    English, say, is not second-guessed): vertical Japanese lettering reads right to left.
    """
    if override is not None:
        return DirectionDecision(override, DirectionSource.OVERRIDE)
    if info is not None:
        if info.manga is Manga.YES_AND_RIGHT_TO_LEFT:
            return DirectionDecision(ReadingDirection.RTL, DirectionSource.COMICINFO)
        if info.language in _RTL_LANGUAGES:
            return DirectionDecision(ReadingDirection.RTL, DirectionSource.LANGUAGE)
    if lettering is not None and (info is None or info.language is None) and lettering():
        return DirectionDecision(ReadingDirection.RTL, DirectionSource.LETTERING)
    return DirectionDecision(ReadingDirection.LTR, DirectionSource.DEFAULT)
