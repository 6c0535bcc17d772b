"""Ask about this page: answers from the structure, quoting and naming as the narration does,
numbering balloons as the listener counts them."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

from panelvox.books import open_book
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
)
from panelvox.narration.page_answers import BookTitle, ask, block_numbers, cited_words
from panelvox.narration.prefs import NarrationPrefs, UtteranceKind


def _panel(pid: str, order: int, x: float) -> Panel:
    return Panel(pid, BBox(x, 0, x + 100, 100), 0.9, "test", order=order)


def _block(bid: str, kind: BalloonKind, text: str, panel: str, order: int, *, title: bool = False) -> Balloon:
    box = BBox(order * 10, 10, order * 10 + 30, 40)
    return Balloon(bid, kind, box, text, 0.9, "test", panel=panel, order=order, title=title)


def _link(bid: str, char: str | None, conf: float = 0.9) -> SpeakerLink:
    if char is None:
        return SpeakerLink(bid, None, 1.0, SpeakerReason.NARRATOR, "test")
    return SpeakerLink(bid, char, conf, SpeakerReason.TAIL, "test")


def page() -> PageAnalysis:
    return PageAnalysis(
        page=1,
        width=300,
        height=100,
        direction=ReadingDirection.LTR,
        panels=(_panel("p1", 1, 0), _panel("p2", 2, 100)),
        blocks=(
            _block("t", BalloonKind.CAPTION, "THE LATE TRAIN", "p1", 1, title=True),
            _block("c", BalloonKind.CAPTION, "MEANWHILE, AT THE STATION...", "p1", 2),
            _block("b1", BalloonKind.SPEECH, "GOOD MORNING! IS THE TRAIN LATE?", "p1", 3),
            _block("s", BalloonKind.SFX, "TOOT!", "p2", 4),
            _block("b2", BalloonKind.SPEECH, "IT IS ALWAYS LATE ON MONDAYS.", "p2", 5),
            _block("b3", BalloonKind.THOUGHT, "I HATE MONDAYS.", "p2", 6),
        ),
        characters=(
            Character("k", BBox(0, 50, 40, 100), 0.8, "test", panel="p1", name="Kala", label="Kala"),
            Character("x", BBox(150, 50, 190, 100), 0.8, "test", panel="p2", label="character 2"),
        ),
        speakers=(
            _link("t", None),
            _link("c", None),
            _link("b1", "k"),
            _link("b2", "x"),
            _link("b3", "k", 0.3),  # a guess: the narration says "probably Kala"
        ),
    )


def test_who_speaks_and_who_is_on_the_page_are_the_speakers_as_narrated() -> None:
    a = page()
    for question in ("Who speaks?", "who is on this page?", "Who's talking?", "Which characters are here?"):
        answer = ask(question, a)
        assert answer.text == "Kala and character 2, and the narrator in captions", question
        assert answer.supported and answer.citations == ("b1", "b2", "b3")
    # in one panel only; a line said as a guess names its speaker as one
    answer = ask("Who is in panel 2?", a)
    assert answer.text == "Character 2 and probably Kala" and answer.citations == ("b2", "b3")
    bare = replace(a, speakers=(), characters=())
    assert ask("Who speaks?", bare).text == "I can't tell who speaks on this page."
    assert not ask("Who speaks?", bare).supported
    captions_only = replace(bare, blocks=a.blocks[:2])
    assert ask("Who speaks?", captions_only).text == "Only the narrator, in captions."


def test_the_title_is_the_books_and_the_pages_lettered_one() -> None:
    a = page()
    answer = ask("What is the title?", a, book=BookTitle(title="The Late Train Vol. 1"))
    assert answer.text == "The book is “The Late Train Vol. 1”. This page's title reads “The late train”."
    assert cited_words(answer, a) == "From caption 1."
    untitled = replace(a, blocks=a.blocks[1:])
    assert ask("What book is this?", untitled, book=BookTitle(title="X")).text == "The book is “X”."
    # a file's name is not said to be a title
    answer = ask("What's the title?", untitled, book=BookTitle(file_name="scan-0042.cbz"))
    assert answer.text == "The book names no title; its file is “scan-0042.cbz”."
    assert ask("What's the title?", untitled).text == "I can't tell from this page."


def test_answers_quote_the_words_as_narrated_not_the_raw_capitals() -> None:
    a = page()
    assert ask("What does Kala say?", a).text == "“Good morning! Is the train late?” “I hate Mondays.”"
    answer = ask("What about mondays?", a)
    assert answer.text == "Character 2, in balloon 2: “It is always late on Mondays.”"
    assert "MONDAYS" not in ask("What does balloon 3 say?", a).text


def test_balloon_numbers_count_balloons_not_captions_or_sounds() -> None:
    a = page()
    numbers = block_numbers(a)
    assert numbers["b1"] == (BalloonKind.SPEECH, 1) and numbers["b2"] == (BalloonKind.SPEECH, 2)
    assert numbers["b3"] == (BalloonKind.SPEECH, 3) and numbers["c"] == (BalloonKind.CAPTION, 2)
    assert ask("What does balloon 3 say?", a).text == "Probably Kala, in balloon 3: “I hate Mondays.”"
    assert ask("balloon 5", a).text == "There is no balloon 5: this page has 3."
    answer = ask("Who says it is always late on mondays?", a)
    assert answer.text == "Character 2, in balloon 2." and cited_words(answer, a) == "From balloon 2."
    answer = ask("Who says meanwhile at the station?", a)
    assert answer.text == "The narrator, in caption 2."
    assert cited_words(ask("How many balloons?", a), a) == "From balloons 1, 2, 3."
    # a block the user chose not to hear is still quoted as it would be said
    quiet = NarrationPrefs(kinds=frozenset({UtteranceKind.DIALOGUE}))
    assert ask("What does balloon 1 say?", a, prefs=quiet).text == (
        "Kala, in balloon 1: “Good morning! Is the train late?”"
    )


def test_the_books_title_comes_from_its_comicinfo_else_its_file_is_named(tmp_path: Path) -> None:
    assets = Path(__file__).resolve().parents[2] / "assets"
    with open_book(assets / "sample-rtl.cbz") as book:  # its ComicInfo names the title
        assert BookTitle.of(book) == BookTitle(title="The Late Train")
    plain = tmp_path / "scan.cbz"
    with zipfile.ZipFile(assets / "sample-rtl.cbz") as src, zipfile.ZipFile(plain, "w") as dst:
        for name in src.namelist():
            if name != "ComicInfo.xml":
                dst.writestr(name, src.read(name))
    with open_book(plain) as book:
        assert BookTitle.of(book) == BookTitle(file_name="scan.cbz")
