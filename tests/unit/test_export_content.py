"""What the exports take from a page: the narration's lines and only the names it says plainly."""

from __future__ import annotations

import re
from dataclasses import replace

from page_fixtures import exchange

from panelvox.export.book_content import BookMeta, PageContent, export_prefs, page_lines, sections
from panelvox.export.divina_export import DivinaWriter, fragment
from panelvox.export.html_export import page_markup
from panelvox.model import BBox, Panel, ReadingDirection
from panelvox.narration.prefs import NarrationPrefs


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
    assert "character" not in blocks[1]  # "character 2" is a label, not a name
    assert blocks[0]["role"] == ["speechBubble"]


def test_a_guessed_name_is_said_as_a_guess_and_never_exported_as_fact() -> None:
    content = _named(0.2)
    assert content.lines[0].heard == "Probably Kala: Where is the train?"
    assert content.lines[0].name is None
    assert "character" not in _blocks(content)[0]
    assert "Probably Kala: Where is the train?" in page_markup(content, "p.jpg")


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
