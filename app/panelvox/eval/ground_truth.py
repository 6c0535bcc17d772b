"""Ground-truth types: what a dataset says is on a page.

Every loader turns its format into :class:`GTPage`; metrics compare a GTPage with the
:class:`~panelvox.model.PageAnalysis` the pipeline produced. Lists are in reading order
where the dataset gives one (``annotated`` says which facts a page really carries: a page
whose panels were never annotated is not a page with zero panels).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path

from panelvox.model import BalloonKind, BBox, Point, ReadingDirection


class Fact(Enum):
    """One kind of annotation a page may carry."""

    PANELS = "panels"
    PANEL_ORDER = "panel_order"
    TEXTS = "texts"  # text boxes (lines or blocks, see GTPage.text_level)
    TEXT_CONTENT = "text_content"  # the text boxes carry their transcripts
    TEXT_ORDER = "text_order"
    BALLOONS = "balloons"
    CHARACTERS = "characters"
    FACES = "faces"
    SPEAKERS = "speakers"  # balloons carry speaker identities
    DIALOGUE = "dialogue"  # ordered list of quoted strings
    NARRATION = "narration"
    SCRIPT = "script"  # a golden script: every line in order, its kind and speaker


class TextLevel(Enum):
    """What one ground-truth text box covers."""

    LINE = "line"  # one printed line (compared with PageAnalysis.lines)
    BLOCK = "block"  # one balloon/caption's text (compared with PageAnalysis.blocks)


@dataclass(frozen=True, slots=True)
class GTPanel:
    id: str
    bbox: BBox
    polygon: tuple[Point, ...] | None = None


@dataclass(frozen=True, slots=True)
class GTText:
    """A text box; ``text`` is None where the transcript is unknown ("??" in comic-ocr)."""

    id: str
    bbox: BBox
    text: str | None
    polygon: tuple[Point, ...] | None = None
    language: str | None = None
    translations: tuple[tuple[str, str], ...] = ()  # (language, text), e.g. ("en", "...")


@dataclass(frozen=True, slots=True)
class GTBalloon:
    """A balloon or caption with its structure."""

    id: str
    bbox: BBox
    text: str | None
    kind: BalloonKind | None = None
    polygon: tuple[Point, ...] | None = None
    tail_tip: Point | None = None
    tail_direction: str | None = None  # compass: "N", "SE", ...; None where there is no tail
    rank: int | None = None  # 1-based reading rank over the page
    speaker: str | None = None  # identity of the speaking character; None: narrator/unknown
    voice: int | None = None  # dataset-specific voice index (iabc), kept as given
    panel: str | None = None


@dataclass(frozen=True, slots=True)
class GTCharacter:
    id: str
    bbox: BBox
    identity: str | None = None  # same value = same character across the book
    kind: str = "body"  # "body" or "face"
    name: str | None = None
    panel: str | None = None
    polygon: tuple[Point, ...] | None = None


class LineKind(StrEnum):
    """What a line of a golden script is."""

    TITLE = "title"
    CAPTION = "caption"
    SPEECH = "speech"
    THOUGHT = "thought"
    SFX = "sfx"
    SIGN = "sign"


@dataclass(frozen=True, slots=True)
class ScriptLine:
    panel: int | None
    kind: LineKind
    text: str
    #: a cast name, "unnamed: description", cast names joined by " and ", or None
    speaker: str | None
    speaker_sure: bool


@dataclass(frozen=True, slots=True)
class GoldenScript:
    """Everything a perfect reading of one page says, in reading order."""

    page: str
    #: canonical name -> aliases
    cast: Mapping[str, tuple[str, ...]]
    lines: tuple[ScriptLine, ...]
    notes: str = ""


@dataclass(frozen=True, slots=True)
class GTPage:
    dataset: str
    page_id: str
    image_path: Path
    width: int
    height: int
    direction: ReadingDirection
    annotated: frozenset[Fact]
    panels: tuple[GTPanel, ...] = ()
    texts: tuple[GTText, ...] = ()
    text_level: TextLevel = TextLevel.BLOCK
    balloons: tuple[GTBalloon, ...] = ()
    characters: tuple[GTCharacter, ...] = ()
    faces: tuple[GTCharacter, ...] = ()
    dialogue: tuple[str, ...] = ()
    narration: str | None = None
    script: GoldenScript | None = None
    book: str | None = None  # identities are compared within one book; its pages are read as one
    #: the language of its lettering (ISO 639-1), given to the pipeline as a book's
    #: ComicInfo ``LanguageISO`` would be; None: unknown
    language: str | None = None
    #: the book tells its direction and language (as a ComicInfo would) and the pipeline is
    #: given them; False: a folder of images that says neither, so Panelvox decides them from
    #: the pages as it does for such a book of a user's (``direction`` stays the truth scored)
    declared: bool = True

    def has(self, *facts: Fact) -> bool:
        return all(f in self.annotated for f in facts)

    def text_units(self) -> tuple[GTText, ...]:
        """Text boxes for OCR scoring: the dataset's text boxes, else its balloons."""
        if self.texts:
            return self.texts
        return tuple(GTText(id=b.id, bbox=b.bbox, text=b.text, polygon=b.polygon) for b in self.balloons)


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    root: Path
    pages: tuple[GTPage, ...] = field(default=())
