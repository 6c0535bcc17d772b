"""What the exports take from a page: the narration's lines and only the names it says plainly."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from page_fixtures import exchange

from panelvox.export.book_content import BookMeta, PageContent, export_prefs, page_lines, sections
from panelvox.export.divina_export import DivinaWriter, fragment
from panelvox.export.html_export import page_markup
from panelvox.model import BalloonKind, BBox, Panel, ReadingDirection
from panelvox.narration.order_cue import OrderCueModel
from panelvox.narration.prefs import NarrationPrefs, Verbosity


def _named(name_confidence: float) -> PageContent:
    page = exchange("WHERE IS THE TRAIN?", "LATE AGAIN.")
    kala = replace(page.characters[0], name="Kala", label="Kala", name_confidence=name_confidence)
    other = replace(page.characters[1], label="character 2")
    page = replace(page, characters=(kala, other))
    lines = page_lines(page, export_prefs(NarrationPrefs()))
    return PageContent(1, 800, 600, "Page 1.", sections(page, lines), b"", "image/jpeg")


def _blocks(content: PageContent) -> list[dict[str, object]]:
    meta = BookMeta("T", None, None, (), None, None, "en", ReadingDirection.LTR, 1, "urn:panelvox:x")
    writer = DivinaWriter(meta)

    class Nothing:
        def write_bytes(self, name: str, data: bytes) -> None:
            pass

    writer.add_page(content, Nothing())  # type: ignore[arg-type]
    return writer.guided[0]["children"][0]["children"]  # type: ignore[no-any-return]


def test_a_sure_name_is_exported_with_the_words_alone() -> None:
    content = _named(1.0)
    assert [line.heard for line in content.lines] == ["Kala: Where is the train?", "Character 2: Late again."]
    blocks = _blocks(content)
    assert blocks[0]["text"] == {"plain": "Where is the train?", "language": "en"}
    assert blocks[0]["character"] == ["Kala"]
    # "Character 2" is the book's number for an unnamed person: it names nobody, so it is
    # exported as the narration says it
    assert blocks[1]["character"] == ["character 2"]
    assert blocks[0]["role"] == ["speechBubble"]


def test_a_guessed_name_is_said_as_a_guess_and_never_exported_as_fact() -> None:
    content = _named(0.2)
    assert content.lines[0].heard == "Probably Kala: Where is the train?"
    assert content.lines[0].character == "probably Kala"
    assert _blocks(content)[0]["character"] == ["probably Kala"]
    assert "Probably Kala: Where is the train?" in page_markup(content, "p.jpg")


def test_captions_and_nobody_carry_no_character() -> None:
    page = exchange("WHERE IS THE TRAIN?", "LATE AGAIN.")
    caption = replace(page.blocks[0], kind=BalloonKind.CAPTION)
    page = replace(page, blocks=(caption, page.blocks[1]), speakers=page.speakers[1:])
    lines = page_lines(page, export_prefs(NarrationPrefs()))
    assert [(line.kind.value, line.character) for line in lines] == [("caption", None), ("dialogue", None)]


def test_the_exports_keep_who_speaks_whatever_the_reader_hears() -> None:
    content = _named(1.0)
    terse = export_prefs(NarrationPrefs(verbosity=Verbosity.TERSE))
    page = exchange("WHERE IS THE TRAIN?", "LATE AGAIN.")
    kala = replace(page.characters[0], name="Kala", label="Kala")
    page = replace(page, characters=(kala, replace(page.characters[1], label="character 2")))
    assert [line.character for line in page_lines(page, terse)] == [line.character for line in content.lines]


def test_a_title_says_title_once_and_the_order_cue_is_a_note_outside_the_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the shipped cue never fires (no cut qualified held out): one that always does
    monkeypatch.setattr(OrderCueModel, "shipped", staticmethod(lambda: OrderCueModel(cut=1.0)))
    page = exchange("MYSTERIOUS TREASURE", "LATE AGAIN.")
    title = replace(page.blocks[0], kind=BalloonKind.CAPTION, title=True)
    unsure = replace(page.blocks[1], order_confidence=0.1)
    page = replace(page, blocks=(title, unsure), speakers=page.speakers[1:])
    lines = page_lines(page, export_prefs(NarrationPrefs()))
    content = PageContent(1, 800, 600, "Page 1.", sections(page, lines), b"", "image/jpeg")
    markup = page_markup(content, "p.jpg")
    assert "Title: Mysterious treasure" in markup and "Caption:" not in markup
    said = re.findall(r'<span class="said">(.*?)</span>', markup)
    assert said and not any("Order unclear" in s for s in said)
    assert lines[0].utterance.text.startswith("Order unclear. ")  # the narration's cue
    assert lines[0].order_unclear and lines[0].heard == "Title: Mysterious treasure"
    assert markup.index('<p class="notice order"><span class="kind">Note:</span>') < markup.index("Title:")


def test_a_silent_panel_keeps_its_place() -> None:
    page = exchange("HELLO.", "HI.")
    page = replace(
        page,
        panels=(
            Panel("p0", BBox(0, 0, 800, 100), 1.0, "t", order=1),
            replace(page.panels[0], order=2),
        ),
    )
    cut = sections(page, page_lines(page, export_prefs(NarrationPrefs())))
    assert [(s.panel, s.number, len(s.lines)) for s in cut] == [("p0", 1, 0), ("p1", 2, 2)]


def test_fragments_are_percentages_of_the_page() -> None:
    assert fragment(BBox(80, 60, 480, 360), 800, 600) == "#xywh=percent:10,10,50,50"
    assert fragment(BBox(-5, 0, 900, 600), 800, 600) == "#xywh=percent:0,0,100,100"


def test_a_panel_read_in_two_runs_keeps_unique_heading_ids() -> None:
    page = exchange("HELLO.", "HI.")
    loose = replace(page.blocks[0], id="b3", text="THE END", panel=None, order=2, tail=None)
    page = replace(page, blocks=(page.blocks[0], replace(page.blocks[1], order=3), loose))
    content = PageContent(
        1,
        800,
        600,
        "Page 1.",
        sections(page, page_lines(page, export_prefs(NarrationPrefs()))),
        b"",
        "image/jpeg",
    )
    assert [s.panel for s in content.sections] == ["p1", None, "p1"]
    ids = re.findall(r'id="([^"]+)"', page_markup(content, "p.jpg"))
    assert len(ids) == len(set(ids))
