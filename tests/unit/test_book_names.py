"""Book-level names: ComicInfo ``Characters``, the user's renames on persons of the book, and
`panelvox names`.

Most tests here are about what a page's words hold, so they group no persons across pages
(:func:`_apart`); the ones about persons of the book give a model where looks decide.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from page_fixtures import exchange

from panelvox.analysis.identity import describe
from panelvox.analysis.lettering import WordList
from panelvox.books import open_book
from panelvox.cli.common import UsageError
from panelvox.cli.names import run_names
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Image,
    PageAnalysis,
    Panel,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
)
from panelvox.names.book_names import BookNames, comicinfo_names
from panelvox.names.book_persons import FEATURES as PERSON_FEATURES
from panelvox.names.book_persons import PersonModel
from panelvox.names.labels import label_page
from panelvox.names.listing import speaking_characters
from panelvox.names.stores import LearnedNames, NameStore, character_key
from panelvox.narration.describe import panel_facts
from panelvox.narration.overview import describe_here
from panelvox.narration.script import speaker_label

RED, BLUE = (200, 30, 30), (30, 60, 200)
RED_LOOK, BLUE_LOOK = (1.0, 0.0), (0.0, 1.0)


@pytest.fixture(scope="module")
def words() -> WordList:
    return WordList.load()


def _apart() -> PersonModel:
    """A person model that never joins page persons of two pages."""
    n = len(PERSON_FEATURES)
    return PersonModel(np.zeros(n), np.ones(n), np.zeros(n), -10.0, 0.0)


def _by_look() -> PersonModel:
    """A person model where looks decide: log-odds 10 * (similarity - 0.5)."""
    n = len(PERSON_FEATURES)
    coef = np.zeros(n)
    coef[PERSON_FEATURES.index("look_similarity")] = 10.0
    return PersonModel(np.zeros(n), np.ones(n), coef, -5.0, 0.0)


def _looking(page: PageAnalysis, *looks: tuple[float, ...]) -> PageAnalysis:
    """``page`` with its persons' own figures (c1, c2 ...) looking like ``looks``."""
    chars = tuple(replace(c, look=look) for c, look in zip(page.characters, looks, strict=False))
    return replace(page, characters=(*chars, *page.characters[len(chars) :]))


def _image(left: tuple[int, int, int], right: tuple[int, int, int]) -> Image:
    img = np.full((600, 800, 3), 250, np.uint8)
    cv2.rectangle(img, (60, 260), (240, 590), left, -1)
    cv2.rectangle(img, (560, 260), (740, 590), right, -1)
    return img


def _page(number: int, first: str, second: str) -> PageAnalysis:
    """Two people in one panel, each with a balloon whose tail points down at them."""
    return exchange(first, second, number)


def _names(page: PageAnalysis) -> dict[str, str | None]:
    return {c.id: c.name for c in page.characters}


def test_comicinfo_names_are_split_and_deduplicated() -> None:
    assert comicinfo_names("Steenie, Dougal  MacCallum;Steenie\nthe Laird") == (
        "Steenie",
        "Dougal MacCallum",
        "the Laird",
    )
    assert comicinfo_names(None) == () and comicinfo_names(" , ") == ()


def test_comicinfo_lets_an_english_word_name_from_one_mention(tmp_path: Path, words: WordList) -> None:
    page = _page(1, "CURT! OH... I FORGOT", "WELL... OKAY!")
    store = NameStore(tmp_path / "names.json")
    assert _names(BookNames("h", (), store, words=words).apply(page)) == {"c1": None, "c2": None}
    named = BookNames("h", ("Curt Walker",), store, words=words).apply(page)
    assert _names(named) == {"c1": None, "c2": "Curt Walker"}


def test_a_rename_reaches_the_person_of_the_book_and_no_one_else(tmp_path: Path, words: WordList) -> None:
    store = NameStore(tmp_path / "names.json")
    page1 = _looking(_page(1, "HELLO!", "HI!"), RED_LOOK, BLUE_LOOK)
    store.rename("h", character_key(1, page1.characters[1]), "The Laird")
    names = BookNames("h", (), store, words=words, persons=_by_look())
    assert _names(names.apply(page1)) == {"c1": None, "c2": "The Laird"}
    # page 2: the blue figure now stands on the left; the name follows the person, not the id
    page2 = _looking(_page(2, "WHO?", "ME!"), BLUE_LOOK, RED_LOOK)
    assert _names(names.apply(page2)) == {"c1": "The Laird", "c2": None}
    # the renamed figure itself is sure; the same person on another page is a guess
    assert names.apply(page1).characters[1].name_confidence == 1.0
    assert names.apply(page2).characters[0].name_confidence < 0.5
    assert names.apply(page2).characters[0].person == names.apply(page1).characters[1].person
    # a page where nobody is that person keeps its own names
    other = BookNames("h", (), store, words=words, persons=_by_look())
    other.learn(page1)
    page3 = _looking(_page(3, "WHO?", "ME!"), RED_LOOK, (0.9, 0.3))
    assert _names(other.apply(page3)) == {"c1": None, "c2": None}


def test_a_users_name_wins_over_a_learned_one(tmp_path: Path, words: WordList) -> None:
    store = NameStore(tmp_path / "names.json")
    page = _page(1, "STEENIE, COME HERE!", "WHO ARE YOU?")
    names = BookNames("h", ("Steenie",), store, words=words, persons=_apart())
    assert _names(names.apply(page)) == {"c1": None, "c2": "Steenie"}
    store.rename("h", "p1:c2", "Steenie Steenson")
    store.rename("h", "p1:c1", "Dougal")
    assert _names(names.apply(page)) == {"c1": "Dougal", "c2": "Steenie Steenson"}


def test_speaking_characters_lists_keys_names_and_lines() -> None:
    page = replace(_page(3, "HELLO THERE!", "HI!"), characters=())
    assert speaking_characters(page) == []
    page = _page(3, "HELLO THERE!", "HI!")
    page = label_page(replace(page, characters=(replace(page.characters[0], name="Ann"), page.characters[1])))
    entries = speaking_characters(page, frozenset({"p3:c1"}))
    assert [(e.key, e.name, e.source, e.lines, e.first_line) for e in entries] == [
        ("p3:c1", "Ann", "user", 1, "HELLO THERE!"),
        ("p3:c2", "character 1", "", 1, "HI!"),  # as the narration calls it
    ]
    # names read in the text, and names said on another page of the same person
    page = replace(
        page,
        characters=(
            replace(page.characters[0], name="Ann"),
            replace(page.characters[1], name="Bo", name_confidence=0.4),
        ),
    )
    assert [e.source for e in speaking_characters(page)] == ["text", "book"]


class _FixedStage:
    """Puts the two-person page in place of a real analysis (the pipeline is tested elsewhere)."""

    name = "fixed"

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        page = _page(analysis.page, "STEENIE, COME HERE!", "WHO ARE YOU?")
        # each person looks like the colour of their figure, as the speakers stage would see it
        looks = (tuple(float(x) for x in describe(image, c.bbox)) for c in page.characters)
        page = _looking(page, *looks)
        return replace(page, width=analysis.width, height=analysis.height, direction=analysis.direction)


def _book(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for k, (a, b) in enumerate(((RED, BLUE), (BLUE, RED)), start=1):
            ok, png = cv2.imencode(".png", cv2.cvtColor(_image(a, b), cv2.COLOR_RGB2BGR))
            assert ok
            z.writestr(f"{k:03d}.png", png.tobytes())
        z.writestr("ComicInfo.xml", "<ComicInfo><Characters>Steenie, Dougal</Characters></ComicInfo>")
    return path


def test_names_command_lists_and_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: WordList
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr("panelvox.analysis.pipeline.default_stages", lambda: (_FixedStage(),))
    monkeypatch.setattr(PersonModel, "shipped", staticmethod(_by_look))
    book = _book(tmp_path / "two.cbz")
    store = NameStore(tmp_path / "cfg" / "names.json")
    out = io.StringIO()
    assert run_names(book, store=store, out=out) == 0
    listing = out.getvalue()
    assert "Page 1" in listing and "Page 2" in listing
    assert "p1:c2  Steenie" in listing and "p1:c1  character 1" in listing
    out = io.StringIO()
    assert run_names(book, rename=("p1:c1", "Dougal  MacCallum"), store=store, out=out) == 0
    assert "Dougal MacCallum" in out.getvalue()
    out = io.StringIO()
    run_names(book, pages=(2, 2), store=store, out=out)
    # page 2 has the colours swapped: the rename reached the red one's person, now on the right
    assert "p2:c2  Dougal MacCallum" in out.getvalue() and "Page 1" not in out.getvalue()
    with pytest.raises(UsageError):
        run_names(book, rename=("p9:c1", "X"), store=store, out=io.StringIO())
    with pytest.raises(UsageError):
        run_names(book, rename=("p1:c7", "X"), store=store, out=io.StringIO())
    with open_book(book) as opened:
        content_hash = opened.content_hash
    assert store.names(content_hash) == {"p1:c1": "Dougal MacCallum"}
    run_names(book, rename=("p1:c1", ""), store=store, out=io.StringIO())
    assert store.names(content_hash) == {} and store.looks(content_hash) == {}


def test_a_page_without_characters_is_left_as_it_is(tmp_path: Path, words: WordList) -> None:
    store = NameStore(tmp_path / "names.json")
    store.rename("h", "p1:c1", "Ann")
    empty = PageAnalysis(page=2, width=0, height=0, direction=ReadingDirection.LTR)
    assert BookNames("h", ("Ann",), store, words=words).apply(empty) is empty


def _two_panels(number: int, texts: tuple[str, str, str, str]) -> PageAnalysis:
    """Two panels of the same two people: the left one speaks first in each, the right answers."""
    one, two = _page(number, texts[0], texts[1]), _page(number, texts[2], texts[3])
    shift = lambda b: BBox(b.x0, b.y0 + 600, b.x1, b.y1 + 600)  # noqa: E731
    chars = (
        *one.characters,
        *(replace(c, id=f"c{k + 3}", bbox=shift(c.bbox), panel="p2") for k, c in enumerate(two.characters)),
    )
    blocks = (
        *one.blocks,
        *(
            replace(b, id=f"b{k + 3}", bbox=shift(b.bbox), panel="p2", order=k + 3, tail=None)
            for k, b in enumerate(two.blocks)
        ),
    )
    # the speakers stage grouped them: c3 is c1's person, c4 is c2's
    speakers = (
        *one.speakers,
        SpeakerLink("b3", "c1", 0.8, SpeakerReason.TAIL, "t", figure="c3"),
        SpeakerLink("b4", "c2", 0.8, SpeakerReason.TAIL, "t", figure="c4"),
    )
    chars = tuple(replace(c, cluster="k1" if c.id in ("c1", "c3") else "k2") for c in chars)
    panels = (*one.panels, Panel("p2", BBox(0, 600, 800, 1200), 1.0, "t", order=2))
    return replace(one, height=1200, panels=panels, blocks=blocks, characters=chars, speakers=speakers)


def test_a_name_holds_on_two_exchanges_or_the_books_confirmation(tmp_path: Path, words: WordList) -> None:
    store = NameStore(tmp_path / "names.json")
    names = BookNames("h", (), store, words=words, persons=_apart())
    # one exchange, and the book says the name nowhere else: it may be a misread word
    once = _page(1, "DOUGAL, COME HERE!", "WHAT?")
    assert _names(names.apply(once)) == {"c1": None, "c2": None}
    # two exchanges on one page, both answered by the same person: where they answer, Dougal
    twice = _two_panels(2, ("DOUGAL, COME HERE!", "WHAT?", "DOUGAL! LOOK!", "HMM?"))
    named = names.apply(twice)
    assert _names(named) == {"c1": None, "c2": "Dougal", "c3": None, "c4": "Dougal"}
    # a person the book has not heard before gets the next number: 1 and 2 were said on page 1
    assert {c.id: c.label for c in named.characters}["c1"] == "character 3"
    # the book's other pages say it twice now: one exchange holds on page 1 too
    assert _names(names.apply(once)) == {"c1": None, "c2": "Dougal"}
    # a page that does not say the name names nobody: looks are no evidence of a name
    assert _names(names.apply(_page(3, "WHO?", "ME!"))) == {"c1": None, "c2": None}
    # the user's rename wins
    store.rename("h", "p1:c2", "The Laird")
    renamed = names.apply(once)
    assert _names(renamed) == {"c1": None, "c2": "The Laird"}
    assert renamed.characters[1].name_confidence == 1.0


def _only(page: PageAnalysis, *keep: str) -> PageAnalysis:
    """``page`` with only the balloons ``keep`` (and their links)."""
    blocks = tuple(b for b in page.blocks if b.id in keep)
    return replace(page, blocks=blocks, speakers=tuple(s for s in page.speakers if s.balloon in keep))


def test_a_call_answered_only_in_the_next_panel_needs_more_than_the_books_word(
    tmp_path: Path, words: WordList
) -> None:
    names = BookNames("h", (), NameStore(tmp_path / "names.json"), words=words, persons=_apart())
    names.apply(_two_panels(3, ("DOUGAL, COME HERE!", "WHAT?", "DOUGAL! LOOK!", "HMM?")))  # said twice
    # panel 1: the call; the next voice is in panel 2: perhaps the one called, perhaps the
    # next scene's speaker. One such exchange is not enough, even for a name the book knows
    # is a name
    across = _only(_two_panels(1, ("DOUGAL, COME HERE!", "-", "-", "WHAT?")), "b1", "b4")
    assert _names(names.apply(across))["c4"] is None
    # answered in the call's own panel, it holds
    assert _names(names.apply(_page(2, "DOUGAL, COME HERE!", "WHAT?"))) == {"c1": None, "c2": "Dougal"}


def _call_then_caption(caption: str) -> PageAnalysis:
    """Panel 1: c1 calls KALA and c2 answers; panel 2: ``caption``, and c2's person (figure
    c4) alone says "ME PUMP!"."""
    page = _only(_two_panels(1, ("KALA, COME HERE!", "WHAT?", "-", "ME PUMP!")), "b1", "b2", "b4")
    box = Balloon("b5", BalloonKind.CAPTION, BBox(0, 600, 800, 650), caption, 0.9, "t", panel="p2", order=3)
    return replace(page, blocks=(*page.blocks, box))


@pytest.mark.parametrize(
    ("caption", "unknown", "known"),
    [
        # a caption told of the one who speaks in its panel supports the call, and the name
        # reaches the figure there
        ("AND SO KALA RUNS THE PUMP.", "Kala", "Kala"),
        # told by a narrator in the story, the name may be the narrator's friend, not the
        # one who speaks: no evidence
        ("I WATCH KALA RUN THE PUMP.", None, None),
        # a caption naming two people says nothing about either, and never places a name the
        # call gave (on c2 in panel 1)
        ("KALA AND DOUGAL RUN THE PUMP.", None, None),
    ],
)
def test_what_a_caption_says_of_the_one_who_speaks_in_its_panel(
    tmp_path: Path, words: WordList, caption: str, unknown: str | None, known: str | None
) -> None:
    page = _call_then_caption(caption)
    alone = BookNames("h", (), NameStore(tmp_path / "a.json"), words=words).apply(page)
    assert _names(alone)["c2"] == _names(alone)["c4"] == unknown
    listed = BookNames("h", ("Kala",), NameStore(tmp_path / "b.json"), words=words).apply(page)
    assert _names(listed)["c2"] == "Kala"  # the book lists the name: the call alone holds
    assert _names(listed)["c4"] == known


def test_learned_names_are_saved_only_when_asked_and_read_back(tmp_path: Path, words: WordList) -> None:
    store = NameStore(tmp_path / "cfg" / "names.json")
    learned = LearnedNames.beside(store)
    assert learned.path.parent == tmp_path / "cfg"
    names = BookNames("h", (), store, learned, words, _apart())
    names.apply(_two_panels(2, ("DOUGAL, COME HERE!", "WHAT?", "DOUGAL! LOOK!", "HMM?")))
    assert not learned.path.exists()  # reading a page writes nothing
    names.save()
    assert learned.load("h") == {2: {"dougal": 2}}
    mtime = learned.path.stat().st_mtime_ns
    names.save()  # nothing changed: the file is not rewritten
    assert learned.path.stat().st_mtime_ns == mtime
    # a new session knows what page 2 said before page 2 is read again
    again = BookNames("h", (), store, LearnedNames.beside(store), words, _apart())
    assert _names(again.apply(_page(1, "DOUGAL, COME HERE!", "WHAT?"))) == {"c1": None, "c2": "Dougal"}


def test_names_do_not_depend_on_the_order_pages_are_read(tmp_path: Path, words: WordList) -> None:
    pages = {
        1: _page(1, "DOUGAL, COME HERE!", "WHAT?"),
        2: _page(2, "WHO?", "ME!"),
        3: _two_panels(3, ("DOUGAL, COME HERE!", "WHAT?", "DOUGAL! LOOK!", "HMM?")),
    }

    def read_all(order: list[int]) -> dict[int, dict[str, str | None]]:
        names = BookNames(
            "h", (), NameStore(tmp_path / f"{order}" / "names.json"), words=words, persons=_apart()
        )
        for n in order:
            names.apply(pages[n])
        return {n: _names(names.apply(page)) for n, page in pages.items()}

    forward, backward = read_all([1, 2, 3]), read_all([3, 2, 1])
    assert forward == backward
    assert forward[1] == {"c1": None, "c2": "Dougal"} and forward[2] == {"c1": None, "c2": None}


def test_a_figure_the_words_named_is_heard_by_name_and_its_person_by_number(
    tmp_path: Path, words: WordList
) -> None:
    page = _two_panels(2, ("WHO GOES THERE?", "ME.", "DOUGAL, IS IT YOU?", "AYE."))
    named = BookNames("h", ("Dougal",), NameStore(tmp_path / "names.json"), words=words).apply(page)
    links = {s.balloon: s for s in named.speakers}
    # the call in panel 2 is answered by c4: the name lands there, not on c2 in panel 1
    voice = named.voice_of(links["b4"])
    assert voice is not None and voice.id == "c4" and voice.name == "Dougal"
    assert named.same_person("c4", "c2") and not named.same_person("c4", "c1")
    heard = {b: speaker_label(named, links[b]) for b in ("b1", "b2", "b3", "b4")}
    assert heard == {"b1": "character 1", "b2": "character 2", "b3": "character 1", "b4": "Dougal"}
    listed = [(e.key, e.name, e.lines) for e in speaking_characters(named)]
    assert listed == [("p2:c1", "character 1", 2), ("p2:c2", "character 2", 1), ("p2:c4", "Dougal", 1)]
    facts = panel_facts(named, named.panels[1])
    assert facts.dialogue == (("character 1", "DOUGAL, IS IT YOU?"), ("Dougal", "AYE."))
    # the line says "Probably Dougal: Aye.", so the panel's summary hedges the name too
    assert describe_here(named, "p2") == "2 text blocks; character 1, probably Dougal speak."


def _labels(page: PageAnalysis) -> dict[str, str | None]:
    return {c.id: c.label for c in page.characters}


def test_persons_and_names_do_not_depend_on_the_order_pages_are_read(tmp_path: Path, words: WordList) -> None:
    pages = {
        1: _looking(_page(1, "DOUGAL, COME HERE!", "WHAT?"), RED_LOOK, BLUE_LOOK),
        2: _looking(_page(2, "WHO?", "ME!"), BLUE_LOOK, RED_LOOK),
        3: _looking(
            _two_panels(3, ("DOUGAL, COME HERE!", "WHAT?", "DOUGAL! LOOK!", "HMM?")), RED_LOOK, BLUE_LOOK
        ),
    }

    def read_all(order: list[int]) -> dict[int, dict[str, tuple[str | None, str | None]]]:
        names = BookNames(
            "h", (), NameStore(tmp_path / f"{order}" / "names.json"), words=words, persons=_by_look()
        )
        for n in order:
            names.apply(pages[n])
        return {n: {c.id: (c.name, c.person) for c in names.apply(p).characters} for n, p in pages.items()}

    forward, backward = read_all([1, 2, 3]), read_all([3, 2, 1])
    assert forward == backward
    # the blue one answers "Dougal" on pages 1 and 3: one person, named on both as fact, and
    # carried to page 2 as a guess
    assert forward[1]["c2"][0] == forward[3]["c2"][0] == "Dougal"
    assert forward[2]["c1"] == ("Dougal", forward[1]["c2"][1])
    assert forward[2]["c2"][1] == forward[1]["c1"][1] != forward[1]["c2"][1]


def test_a_number_once_heard_stays_with_its_person(tmp_path: Path, words: WordList) -> None:
    names = BookNames("h", (), NameStore(tmp_path / "names.json"), words=words, persons=_by_look())
    # page 2 is read first: the blue one speaks first there
    assert _labels(names.apply(_looking(_page(2, "WHO?", "ME!"), BLUE_LOOK, RED_LOOK))) == {
        "c1": "character 1",
        "c2": "character 2",
    }
    # on page 1 the red one speaks first, but "character 1" was said for the blue one
    assert _labels(names.apply(_looking(_page(1, "HELLO!", "HI!"), RED_LOOK, BLUE_LOOK))) == {
        "c1": "character 2",
        "c2": "character 1",
    }


def test_a_damaged_person_model_names_the_pages_one_by_one(
    tmp_path: Path, words: WordList, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link model whose file fails its sha256 is refused (PersonModel.shipped raises): the
    pages are still named, each page's persons persons of their own, never an error."""
    from panelvox.names import book_names

    def refused() -> PersonModel:
        raise ValueError("person link model's weights do not match their sha256")

    monkeypatch.setattr(PersonModel, "shipped", staticmethod(refused))
    assert book_names._shipped_persons() is None
    page = _two_panels(2, ("WHO GOES THERE?", "ME.", "DOUGAL, IS IT YOU?", "AYE."))
    named = BookNames("h", ("Dougal",), NameStore(tmp_path / "names.json"), words=words).apply(page)
    links = {s.balloon: s for s in named.speakers}
    heard = {b: speaker_label(named, links[b]) for b in ("b1", "b2", "b3", "b4")}
    assert heard == {"b1": "character 1", "b2": "character 2", "b3": "character 1", "b4": "Dougal"}
