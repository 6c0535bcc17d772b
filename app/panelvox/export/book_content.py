"""What every export writes: a book's pages as the narration says them.

Each page is read through the one page service and scripted by the narration
(:func:`~panelvox.narration.script.script_page`), so an exported publication says the same
words, in the same order, with the same speakers, as ``panelvox narrate --text``. Speakers come
only from the utterances (the labels of the book's persons, one per person across the book): an
export never names anyone the listener would not hear named, and says a guess as a guess.

Before its first page is written, every page of the book is learned by the page service, so
each page's persons and names are those of the whole book (as ``narrate`` writing text or
audio and the eval's reading of a story have them), not of the pages read so far.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from PIL import Image as PILImage

from panelvox.books import Book
from panelvox.errors import PanelvoxError
from panelvox.i18n import _
from panelvox.model import BBox, PageAnalysis, ReadingDirection
from panelvox.narration.overview import page_overview
from panelvox.narration.prefs import NarrationPrefs, UncertaintyCue, UtteranceKind
from panelvox.narration.script import NARRATOR, SOMEONE, Flag, Utterance, order_cue_words, script_page

log = logging.getLogger(__name__)


class PageReader(Protocol):
    """The page service as the exports use it (:class:`~panelvox.pages.PageService`)."""

    @property
    def book(self) -> Book: ...

    def read_or_notice(self, number: int) -> PageAnalysis: ...

    def learn(self, number: int) -> bool: ...


@dataclass(frozen=True, slots=True)
class Line:
    """One utterance of a page, as heard and as exported."""

    utterance: Utterance  # what ``narrate`` says (the reader's preferences, no panel numbers)
    words: str  # the block's words alone, as spoken (no speaker, no cue): Guided Navigation text
    #: who says it, as an export names the speaker the narration says: the name when the
    #: narration says it plainly ("Kala"), a guessed name marked as a guess ("probably Kala"),
    #: an unnamed person by the book's number as narrated ("Character 2": it asserts nobody);
    #: None where no speaker is said (captions, sounds, "someone")
    character: str | None = None
    #: the page's title lettering ("Title: …"): it says what it is, no "Caption:" before it
    title: bool = False

    @property
    def order_unclear(self) -> bool:
        """The narration says "Order unclear." before this line: a remark on the panel, which
        an export writes apart from the line, never inside its words."""
        return self.utterance.text.startswith(order_cue_words())

    @property
    def heard(self) -> str:
        """The line as the narration says it, less the order cue (:attr:`order_unclear`)."""
        text = self.utterance.text
        return text[len(order_cue_words()) :].lstrip() if self.order_unclear else text

    @property
    def kind(self) -> UtteranceKind:
        return self.utterance.kind

    @property
    def block(self) -> str | None:
        return self.utterance.region.block

    @property
    def bbox(self) -> BBox | None:
        return self.utterance.region.bbox


@dataclass(frozen=True, slots=True)
class Section:
    """A run of a page's lines in one panel (``panel`` None: outside every panel, or the
    page's own notices before its first panel)."""

    panel: str | None
    number: int | None  # the panel's reading number
    bbox: BBox | None
    lines: tuple[Line, ...]


@dataclass(frozen=True, slots=True)
class PageContent:
    number: int
    width: int
    height: int
    overview: str  # "Page 4: 6 panels, …": the alt text of the page picture
    sections: tuple[Section, ...]
    image: bytes  # the page picture, JPEG or PNG as ``image_type`` says
    image_type: str

    @property
    def lines(self) -> list[Line]:
        return [line for s in self.sections for line in s.lines]

    @property
    def extension(self) -> str:
        return "png" if self.image_type == "image/png" else "jpg"


@dataclass(frozen=True, slots=True)
class BookMeta:
    title: str
    series: str | None
    number: str | None
    creators: tuple[tuple[str, str], ...]  # (role, name): ("author", "…"), ("artist", "…")
    summary: str | None
    publisher: str | None
    language: str  # BCP 47
    direction: ReadingDirection
    page_count: int
    identifier: str  # urn:panelvox:<content hash>: stable for one book's content
    year: int | None = None
    genres: tuple[str, ...] = ()


def book_meta(book: Book) -> BookMeta:
    """Title, series, creators, publisher, summary, year and genres from ComicInfo; the
    language from ComicInfo or English."""
    info = book.metadata
    creators: list[tuple[str, str]] = []
    if info is not None:
        for role, value in (
            ("author", info.writer),
            ("penciler", info.penciller),
            ("inker", info.inker),
            ("colorist", info.colorist),
            ("letterer", info.letterer),
            ("artist", info.cover_artist),
            ("editor", info.editor),
        ):
            creators.extend((role, name.strip()) for name in (value or "").split(",") if name.strip())
    language = (info.language_iso if info is not None else None) or "en"
    return BookMeta(
        title=book.title,
        series=info.series if info is not None else None,
        number=info.number if info is not None else None,
        creators=tuple(creators),
        summary=info.summary if info is not None else None,
        publisher=info.publisher if info is not None else None,
        language=language.replace("_", "-"),
        direction=book.direction,
        page_count=book.page_count,
        identifier=f"urn:panelvox:{book.content_hash}",
        year=info.year if info is not None else None,
        genres=tuple(
            g.strip() for g in ((info.genre if info is not None else None) or "").split(",") if g.strip()
        ),
    )


def export_prefs(prefs: NarrationPrefs) -> NarrationPrefs:
    """The reader's preferences for an export: every kind of text, who speaks it, panels shown
    as headings (not said before the first balloon), the uncertain marked by the word."""
    return replace(
        prefs,
        kinds=frozenset(UtteranceKind),
        announce_panels=False,
        announce_speakers=True,
        uncertainty_cue=UncertaintyCue.WORD,
    )


def exported_character(utterance: Utterance, prefs: NarrationPrefs) -> str | None:
    """The speaker of ``utterance`` as an export names it (:attr:`Line.character`)."""
    said = utterance.speaker
    if (
        not prefs.speakers_announced
        or utterance.kind not in (UtteranceKind.DIALOGUE, UtteranceKind.THOUGHT)
        or not said
        or utterance.speaker_key in (None, NARRATOR, SOMEONE)
    ):
        return None  # the narration says no person for it
    if not utterance.speaker_name:
        return said  # "character 2" asserts nobody: said plainly, as the narration says it
    if Flag.SPEAKER_UNCERTAIN not in utterance.flags:
        return utterance.speaker_name
    # Translators: an exported balloon's speaker when Panelvox guesses the name ("probably Kala").
    return _("probably {name}").format(name=utterance.speaker_name)


def page_lines(analysis: PageAnalysis, prefs: NarrationPrefs) -> list[Line]:
    """The page's utterances (``prefs`` as :func:`export_prefs` gives them) with their words
    and speakers."""
    titles = {b.id for b in analysis.blocks if b.title}
    return [
        Line(u, u.words, exported_character(u, prefs), u.region.block in titles)
        for u in script_page(analysis, prefs)
    ]


def sections(analysis: PageAnalysis, lines: list[Line]) -> tuple[Section, ...]:
    """The page's lines cut where the panel changes, with every panel present in its place
    (a panel without text gets an empty section)."""
    order = {
        p.id: (p.order if p.order is not None else i) for i, p in enumerate(analysis.panels_in_order(), 1)
    }
    out: list[Section] = []
    pending = [p.id for p in analysis.panels_in_order()]

    def add(panel_id: str | None, chunk: list[Line]) -> None:
        panel = analysis.panel(panel_id) if panel_id else None
        if panel_id in pending:
            while pending and pending[0] != panel_id:
                add(pending[0], [])
            pending.remove(panel_id)
        out.append(
            Section(
                panel_id,
                order.get(panel_id) if panel_id else None,
                panel.bbox if panel else None,
                tuple(chunk),
            )
        )

    current: str | None = None
    chunk: list[Line] = []
    for line in lines:
        panel_id = line.utterance.region.panel
        if line.kind is UtteranceKind.NOTICE and panel_id is None and line.block is None:
            panel_id = current  # a page notice stays where it is said
        if chunk and panel_id != current:
            add(current, chunk)
            chunk = []
        current = panel_id
        chunk.append(line)
    if chunk:
        add(current, chunk)
    for panel_id in list(pending):
        add(panel_id, [])
    return tuple(out)


def read_page(pages: PageReader, number: int, prefs: NarrationPrefs) -> PageContent:
    """Page ``number`` through the page service; a page that cannot be read is exported with
    its one-sentence notice, as ``narrate`` says it."""
    book = pages.book
    analysis = pages.read_or_notice(number)
    lines = page_lines(analysis, prefs)
    image, image_type, size = _page_picture(book, number)
    width, height = size if analysis.width == 0 else (analysis.width, analysis.height)
    return PageContent(
        number, width, height, page_overview(analysis), sections(analysis, lines), image, image_type
    )


def read_book(
    pages: PageReader, prefs: NarrationPrefs, *, on_page: Callable[[int], None] | None = None
) -> Iterator[PageContent]:
    """Every page of the book, in order (``prefs`` as :func:`export_prefs` gives them), once
    the whole book is learned (``on_page`` hears of each page as it is analysed)."""
    for number in range(1, pages.book.page_count + 1):
        if on_page is not None:
            on_page(number)
        pages.learn(number)  # a page that cannot be read is exported with its notice below
    for number in range(1, pages.book.page_count + 1):
        yield read_page(pages, number, prefs)


def _page_picture(book: Book, number: int) -> tuple[bytes, str, tuple[int, int]]:
    """The page picture as decoded, as JPEG, and its size; a blank sheet for a page that
    cannot be decoded (its notice says so)."""
    try:
        picture = book.load_page(number - 1)
    except PanelvoxError as exc:
        log.warning("page %d has no picture: %s", number, exc.detail)
        picture = PILImage.new("RGB", (600, 900), "white")
    buf = io.BytesIO()
    picture.convert("RGB").save(buf, "JPEG", quality=88)
    return buf.getvalue(), "image/jpeg", picture.size
