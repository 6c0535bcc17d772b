"""The typed page model: what every stage reads and returns.

All classes are frozen dataclasses; a stage never mutates its input, it returns a new
:class:`PageAnalysis` (use :func:`dataclasses.replace`). Every detection carries a
``confidence`` in [0, 1] and the name of the ``stage`` that produced it.

The JSON form (:meth:`PageAnalysis.to_json`) is the interchange format described in
DESIGN.md ("panelvox.page/1"): field names and meanings are stable; new fields may be
added; a change of meaning bumps :data:`SCHEMA`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np
import numpy.typing as npt

#: An RGB page image, shape (height, width, 3), dtype uint8: what every stage reads.
Image = npt.NDArray[np.uint8]

SCHEMA = "panelvox.page/1"
#: Earlier schemas this code can still read (none yet).
READABLE_SCHEMAS: frozenset[str] = frozenset({SCHEMA})


class ReadingDirection(Enum):
    """How a reader's eye moves over a page."""

    LTR = "ltr"  # Western comics: rows top-down, left to right
    RTL = "rtl"  # manga: rows top-down, right to left
    TTB_RTL = "ttb-rtl"  # yonkoma: columns top to bottom, right column first

    @property
    def right_to_left(self) -> bool:
        return self is not ReadingDirection.LTR


class BalloonKind(Enum):
    """What kind of text block a balloon/caption is."""

    SPEECH = "speech"
    THOUGHT = "thought"
    CAPTION = "caption"
    SFX = "sfx"
    OTHER = "other"  # signs, page numbers, credits

    @property
    def essential(self) -> bool:
        """Sound effects and scene text can be skipped by the reader."""
        return self in (BalloonKind.SPEECH, BalloonKind.THOUGHT, BalloonKind.CAPTION)


class SpeakerReason(Enum):
    """Why a balloon was attributed to a character (or to nobody)."""

    TAIL = "tail"
    PROXIMITY = "proximity"
    ALTERNATION = "alternation"
    CONTINUATION = "continuation"
    CONVERSATION = "conversation"  # no figure of its own: the same person as other balloons
    NARRATOR = "narrator"  # captions
    NONE = "none"  # no plausible character: "someone says"
    USER = "user"


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float

    def to_list(self) -> list[float]:
        return [json_number(self.x), json_number(self.y)]

    @classmethod
    def from_list(cls, data: Sequence[float]) -> Point:
        return cls(float(data[0]), float(data[1]))


@dataclass(frozen=True, slots=True)
class BBox:
    """Axis-aligned box in page pixels; ``x1``/``y1`` are exclusive."""

    x0: float
    y0: float
    x1: float
    y1: float

    def __post_init__(self) -> None:
        if not all(math.isfinite(v) for v in (self.x0, self.y0, self.x1, self.y1)):
            raise ValueError(f"non-finite box {self!r}")
        if self.x1 < self.x0 or self.y1 < self.y0:
            raise ValueError(f"inverted box {self!r}")

    @classmethod
    def from_xywh(cls, x: float, y: float, w: float, h: float) -> BBox:
        return cls(x, y, x + w, y + h)

    @classmethod
    def from_points(cls, points: Iterable[Point]) -> BBox:
        pts = list(points)
        if not pts:
            raise ValueError("no points")
        return cls(min(p.x for p in pts), min(p.y for p in pts), max(p.x for p in pts), max(p.y for p in pts))

    @classmethod
    def from_list(cls, data: Sequence[float]) -> BBox:
        return cls(float(data[0]), float(data[1]), float(data[2]), float(data[3]))

    def to_list(self) -> list[float]:
        return [json_number(self.x0), json_number(self.y0), json_number(self.x1), json_number(self.y1)]

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def center(self) -> Point:
        return Point((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def intersection(self, other: BBox) -> float:
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return w * h if w > 0 and h > 0 else 0.0

    def iou(self, other: BBox) -> float:
        inter = self.intersection(other)
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def coverage_by(self, other: BBox) -> float:
        """Fraction of this box's area that lies inside ``other``."""
        return self.intersection(other) / self.area if self.area > 0 else 0.0

    def contains_point(self, p: Point) -> bool:
        return self.x0 <= p.x < self.x1 and self.y0 <= p.y < self.y1

    def union(self, other: BBox) -> BBox:
        return BBox(
            min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1)
        )

    def mirrored(self, page_width: float) -> BBox:
        """The same box on a horizontally mirrored page."""
        return BBox(page_width - self.x1, self.y0, page_width - self.x0, self.y1)


@dataclass(frozen=True, slots=True)
class Panel:
    id: str
    bbox: BBox
    confidence: float
    stage: str
    polygon: tuple[Point, ...] | None = None  # slanted/irregular borders
    order: int | None = None  # 1-based reading order on the page
    order_confidence: float = 1.0  # how sure the order stage is about this panel's place


def panel_of(box: BBox, panels: Sequence[Panel], min_cover: float = 0.3) -> str | None:
    """The id of the panel holding most of ``box`` (the first such, on a tie), or None
    when no panel holds more than ``min_cover`` of it."""
    best = max(panels, key=lambda p: box.coverage_by(p.bbox), default=None)
    return best.id if best is not None and box.coverage_by(best.bbox) > min_cover else None


@dataclass(frozen=True, slots=True)
class TextLine:
    """One detected and recognised line (or vertical column) of text."""

    id: str
    bbox: BBox
    text: str
    confidence: float
    stage: str
    polygon: tuple[Point, ...] | None = None
    script: str = "latin"  # "latin", "japanese", ...
    vertical: bool = False
    ruby: bool = False  # furigana: kept apart from the main text


@dataclass(frozen=True, slots=True)
class Tail:
    tip: Point
    direction_deg: float  # 0 = pointing right, 90 = pointing down (image coordinates)
    confidence: float


@dataclass(frozen=True, slots=True)
class Balloon:
    """A block of text read as one unit: a balloon, caption box or sound effect."""

    id: str
    kind: BalloonKind
    bbox: BBox
    text: str
    confidence: float
    stage: str
    lines: tuple[str, ...] = ()  # TextLine ids, in reading order
    polygon: tuple[Point, ...] | None = None  # balloon outline when found
    tail: Tail | None = None
    panel: str | None = None  # Panel id that holds most of it
    order: int | None = None  # 1-based reading order over the whole page
    order_confidence: float = 1.0
    language: str | None = None
    #: the story's title (display lettering, said once before the page); kind is CAPTION
    title: bool = False

    @property
    def essential(self) -> bool:
        return self.kind.essential


@dataclass(frozen=True, slots=True)
class Character:
    id: str
    bbox: BBox
    confidence: float
    stage: str
    panel: str | None = None
    #: "body", "face", or "voice": a speaker not drawn on the page, known by their balloons
    #: only (the box is then their first balloon's)
    kind: str = "body"
    name: str | None = None
    cluster: str | None = None  # identity across the book
    # how sure the name is: 1.0 for a name the user gave this figure; lower for one read from
    # the text, and lowest for one carried to a look-alike from another page (said "probably")
    name_confidence: float = 1.0
    #: what the listener hears for this character: its name, or "character 2" (one number per
    #: person on the page); set by the book's names pass, None before it and for silent figures
    label: str | None = None
    #: the person of the book: the same id on every page where Panelvox believes the same
    #: person appears (set by the book's persons pass; None before it and for silent figures)
    person: str | None = None
    #: what a speaking person looks like (an appearance embedding of where their balloons
    #: point, mean over their balloons on the page); on the person's own figure only
    look: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class SpeakerLink:
    balloon: str
    #: who says it: the person, as the id of their first figure on the page (the same id for
    #: every balloon of one person, in any panel); None: narrator (captions) or unknown
    character: str | None
    confidence: float
    reason: SpeakerReason
    stage: str
    #: the figure in the balloon's own panel the tail (or nearness) gave it, when there is one
    figure: str | None = None


@dataclass(frozen=True, slots=True)
class PageAnalysis:
    """Everything known about one page. Built up stage by stage."""

    page: int  # 1-based page number in the book
    width: int
    height: int
    direction: ReadingDirection
    panels: tuple[Panel, ...] = ()
    lines: tuple[TextLine, ...] = ()
    blocks: tuple[Balloon, ...] = ()
    characters: tuple[Character, ...] = ()
    speakers: tuple[SpeakerLink, ...] = ()
    #: names of the stages that ran, in order, with the detector each used ("panels:classical")
    stages: tuple[str, ...] = ()
    #: short plain sentences about problems met while analysing (spoken as notices)
    notices: tuple[str, ...] = field(default=())
    #: the book's language (ISO 639-1, "en") when known (ComicInfo ``LanguageISO``): it picks
    #: the text reader's recognition head and which script is foreign on the page
    language: str | None = None
    #: names of the stages that failed on this page ("text"): what they would have found is
    #: unknown, so it is never said to be absent (issue 32)
    failed: tuple[str, ...] = ()

    # -- lookups ---------------------------------------------------------------
    def panel(self, panel_id: str) -> Panel | None:
        return next((p for p in self.panels if p.id == panel_id), None)

    def panels_in_order(self) -> list[Panel]:
        return sorted(self.panels, key=_order_key)

    def blocks_in_order(self) -> list[Balloon]:
        return sorted(self.blocks, key=_order_key)

    def blocks_of(self, panel_id: str | None) -> list[Balloon]:
        return [b for b in self.blocks_in_order() if b.panel == panel_id]

    def speaker_of(self, balloon_id: str) -> SpeakerLink | None:
        return next((s for s in self.speakers if s.balloon == balloon_id), None)

    def character(self, character_id: str | None) -> Character | None:
        return next((c for c in self.characters if c.id == character_id), None)

    def voice_of(self, link: SpeakerLink) -> Character | None:
        """Who the listener hears say a balloon: the figure of its own panel when it is the
        person's (a name the words gave stays on the figure it landed on), else the person.

        The grouping may give two balloons of one figure to two people (a reply drawn to the
        same place): the figure speaks for the person only when it shares their cluster.
        """
        person = self.character(link.character)
        figure = self.character(link.figure) if link.figure else None
        if figure is not None and (person is None or figure.cluster == person.cluster):
            return figure
        return person

    def same_person(self, a: str | None, b: str | None) -> bool:
        """Whether character ids ``a`` and ``b`` are one person (one figure, or one cluster)."""
        if a is None or b is None:
            return False
        if a == b:
            return True
        ca, cb = self.character(a), self.character(b)
        return ca is not None and cb is not None and ca.cluster is not None and ca.cluster == cb.cluster

    # -- JSON ----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The page JSON (``panelvox.page/1``, :mod:`panelvox.page_json`)."""
        from panelvox.page_json import page_to_json

        return page_to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageAnalysis:
        """Read the JSON form; refuses unknown schema versions with :class:`SchemaError`."""
        from panelvox.page_json import page_from_json

        return page_from_json(data)


def _order_key(item: Panel | Balloon) -> tuple[int, float, float]:
    # Unordered items go last, in a stable top-left order, so sorting is total.
    order = item.order if item.order is not None else 1 << 30
    return (order, item.bbox.y0, item.bbox.x0)


def json_number(v: float) -> float:
    """Round for stable, compact JSON."""
    return round(float(v), 4)
