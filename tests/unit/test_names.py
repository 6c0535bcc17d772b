"""Names learned from the text, spread to identity clusters, and the user's renames."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from page_fixtures import exchange

from panelvox.analysis.lettering import WordList
from panelvox.analysis.speakers_stage import attribute
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
from panelvox.names.evidence import (
    NameSource,
    is_name_word,
    page_mentions,
    self_introductions,
    titled_vocatives,
    vocatives,
)
from panelvox.names.labels import label_page
from panelvox.names.persons import name_page
from panelvox.names.stores import NameStore, character_key
from panelvox.narration.script import speaker_label, speaker_labels


@pytest.fixture(scope="module")
def words() -> WordList:
    return WordList.load()


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("STEENIE, I HAVE BEEN LOOKING FOR YOU.", ["STEENIE"]),
        ("HA HA HA THEN COME WITH ME, STEENIE STEENSON!", ["STEENIE STEENSON"]),
        ("GOODNESS, CURT, YOU WORRY ABOUT ME TOO MUCH!", ["CURT"]),
        ("DOUGAL MAC CALLUM, I THOUGHT YE BE DEAD!", ["DOUGAL MAC CALLUM"]),
        ("WELL... OKAY, HONEY! I'D JUST AS SOON GO", []),
        ("HI, KIDS! WHAT'S UP?", []),
        ("ME? WHAT ON AIRTH CAN YE WANT WITH ME?", []),
        ("KALA.. ONE OF THESE DAYS YOU'LL BUST YOUR BINNACLE", ["KALA"]),
        ("DOGGONE GOOD DINNER, HEY, CHAD? NOW ME GLAD", ["CHAD"]),
        ("WELL... OKAY.", []),
    ],
)
def test_vocatives(text: str, names: list[str]) -> None:
    assert vocatives(text) == names


def test_self_introductions() -> None:
    assert self_introductions("HELLO! I'M DOUGAL MACCALLUM, AT YOUR SERVICE") == ["DOUGAL MACCALLUM"]
    assert self_introductions("My name is Bob.") == ["BOB"]
    assert self_introductions("I AM LOST!") == ["LOST"]  # filtered later: an English word


def _page(**fields: Any) -> PageAnalysis:
    """A page 800 x 600, left to right, with ``fields`` (blocks, characters, …)."""
    return PageAnalysis(page=1, width=800, height=600, direction=ReadingDirection.LTR, **fields)


def _names(page: PageAnalysis) -> dict[str, str | None]:
    return {c.id: c.name for c in page.characters}


def _linked(page: PageAnalysis) -> PageAnalysis:
    """The page as the speakers stage leaves it: each balloon's person is its figure."""
    return replace(page, speakers=tuple(replace(s, figure=s.character) for s in attribute(page)))


def test_a_vocative_names_the_one_who_answers_when_the_name_holds(words: WordList) -> None:
    # one mention of a name the book does not list: not enough to say it as fact
    page = exchange("STEENIE, I HAVE BEEN LOOKING FOR YOU.", "WHO ARE YOU?")
    assert _names(name_page(page, words)) == {"c1": None, "c2": None}
    # the book lists it (ComicInfo): one mention holds; the speaker is never the one called
    assert _names(name_page(page, words, ["Steenie"])) == {"c1": None, "c2": "Steenie"}
    # called twice in one panel is one piece of evidence, not two
    page = exchange("STEENIE, I HAVE BEEN LOOKING FOR YOU.", "WHO ARE YOU?")
    again = replace(page.blocks[0], id="b3", order=3, text="STEENIE, DON'T YOU KNOW ME?")
    twice = replace(page, blocks=(*page.blocks, again))
    twice = _linked(twice)
    assert _names(name_page(twice, words)) == {"c1": None, "c2": None}


def test_a_self_introduction_and_a_vocative_name_the_same_person(words: WordList) -> None:
    page = exchange("I'M DOUGAL MACCALLUM!", "DOUGAL, I HAVE BEEN LOOKING FOR YOU.")
    named = name_page(page, words)
    assert _names(named) == {"c1": "Dougal", "c2": None}
    assert named.characters[0].name_confidence < 0.5  # the words alone: "probably Dougal"
    listed = name_page(page, words, ["Dougal MacCallum"])  # the book lists him: said as fact
    assert _names(listed) == {"c1": "Dougal MacCallum", "c2": None}
    assert listed.characters[0].name_confidence >= 0.5


def test_a_figure_that_calls_a_name_is_never_given_it(words: WordList) -> None:
    # both tails were tied to one figure (the speakers stage saw one drawn person): the answer
    # would give that figure "Steenie", and then the call, said by the same figure, would be
    # voiced as Steenie too; two balloons, one of which calls the name, are two people
    page = exchange("STEENIE, I HAVE BEEN LOOKING FOR YOU.", "WHO ARE YOU?")
    one_figure = replace(page, speakers=tuple(replace(s, figure="c1") for s in page.speakers))
    assert {s.character for s in one_figure.speakers} == {"c1", "c2"}
    assert _names(name_page(one_figure, words, ["Steenie"])) == {"c1": None, "c2": None}
    # their own figures: the one who answers is named as before
    assert _names(name_page(page, words, ["Steenie"])) == {"c1": None, "c2": "Steenie"}


def test_whoever_speaks_of_a_name_is_not_given_it(words: WordList) -> None:
    # "STEENIE IS NOT HERE": the one who answers the call speaks of Steenie, so is not Steenie
    page = exchange("STEENIE, I HAVE BEEN LOOKING FOR YOU.", "STEENIE IS NOT HERE.")
    assert _names(name_page(page, words, ["Steenie"])) == {"c1": None, "c2": None}
    # a name spoken of is a mention of its own kind: it names no one, and it is not a call
    said = page_mentions(exchange("BELE KAHR IS CRUEL, AND MYRRAH'S FATHER KNOWS IT.", "I'M DOUGAL!"), words)
    assert [(m.name, m.source) for m in said] == [
        ("BELE", NameSource.SAID),
        ("KAHR", NameSource.SAID),
        ("MYRRAH", NameSource.SAID),
        ("DOUGAL", NameSource.SELF),
    ]


def test_a_name_two_persons_would_get_goes_to_neither(words: WordList) -> None:
    # each calls the other "CURT" (and the book lists it): who is Curt is not known
    page = exchange("CURT! OH... I FORGOT", "GOODNESS, CURT, YOU WORRY TOO MUCH!")
    assert _names(name_page(page, words, ["Curt Walker"])) == {"c1": None, "c2": None}


def test_an_english_word_is_a_name_only_where_the_book_lists_it(words: WordList) -> None:
    page = exchange("CURT! CURT! I FORGOT", "WELL... OKAY!")
    assert _names(name_page(page, words)) == {"c1": None, "c2": None}
    assert _names(name_page(page, words, ["Curt Walker"])) == {"c1": None, "c2": "Curt Walker"}


@pytest.mark.parametrize(
    "word",
    [
        "NAAH",
        "GAWSH",
        "S-SO",
        "Y-YES",
        "ARF",
        "ICK",
        "BAW",
        "WHADDAYA",
        "GARR-RGH",
        "TEEHEE",
        "HULLO",
        "EEYOW",
        "WAH",
        "C'MON",
        "OHHH",
        "HONEY",
        "PAL",
        "MYRRAH'S",
        "ZZZZZ",
        "LOST",
    ],
)
def test_sounds_stammers_dialect_and_words_are_never_names(word: str, words: WordList) -> None:
    assert not is_name_word(word, words)


@pytest.mark.parametrize("word", ["KALA", "STEENIE", "MARY-LOU", "GUNGA", "DOUGAL"])
def test_names_are_names(word: str, words: WordList) -> None:
    assert is_name_word(word, words)


def test_a_caption_alone_names_nobody(words: WordList) -> None:
    def alone(caption: str, said: str) -> PageAnalysis:
        figure = Character("c1", BBox(100, 100, 300, 500), 0.8, "t", panel="p1", cluster="k1")
        box = Balloon("b1", BalloonKind.CAPTION, BBox(0, 0, 400, 60), caption, 0.9, "t", panel="p1", order=1)
        talk = Balloon("b2", BalloonKind.SPEECH, BBox(0, 70, 300, 90), said, 0.9, "t", panel="p1", order=2)
        link = SpeakerLink("b2", "c1", 0.8, SpeakerReason.TAIL, "t", figure="c1")
        panel = Panel("p1", BBox(0, 0, 800, 600), 1.0, "t", order=1)
        return _page(panels=(panel,), blocks=(box, talk), characters=(figure,), speakers=(link,))

    known = ["Chad Billow", "Kala"]
    # a caption says who its panel is about; the one who speaks there may be someone else
    # ("LEAVING THE DEAD THING THAT HAD BEEN PROFESSOR KINGSLEY"): alone, even for a name
    # the book lists, it names nobody (with a call, test_book_names)
    assert _names(name_page(alone("AND SO KALA RUNS THE PUMP.", "ME PUMP!"), words, known)) == {"c1": None}
    both = alone("THROUGH THE PHONES, CHAD TELLS KALA...", "ME HEAR!")
    assert _names(name_page(both, words, known)) == {"c1": None}


def test_a_name_stays_on_the_figure_it_was_given_to(words: WordList) -> None:
    # c3, in another panel, was grouped with c2 as one person: a guess that must not carry a
    # name said as fact; it keeps the person's number
    page = exchange("STEENIE, COME HERE!", "WHO ARE YOU?")
    extra = Character("c3", BBox(300, 250, 400, 600), 0.5, "t", panel="p2", cluster="k2")
    page = replace(page, characters=(*page.characters, extra))
    named = name_page(page, words, ["Steenie"])
    assert _names(named) == {"c1": None, "c2": "Steenie", "c3": None}


def test_unnamed_characters_are_numbered_by_first_line_one_number_per_person() -> None:
    # c7 speaks first; c2 and c5 are one person (one identity cluster) in two panels
    chars = (
        Character("c2", BBox(0, 300, 10, 310), 0.5, "t", cluster="k1"),
        Character("c5", BBox(0, 500, 10, 510), 0.5, "t", cluster="k1"),
        Character("c7", BBox(0, 0, 10, 10), 0.5, "t", cluster="k3"),
        Character("c8", BBox(0, 0, 10, 10), 0.5, "t", name="Gloria"),
    )
    blocks = tuple(
        Balloon(f"b{k}", BalloonKind.SPEECH, BBox(0, 100 * k, 10, 100 * k + 10), "HM", 0.9, "t", order=k)
        for k in range(1, 5)
    )
    links = tuple(
        SpeakerLink(f"b{k}", cid, 0.5, SpeakerReason.TAIL, "s")
        for k, cid in zip(range(1, 5), ("c7", "c2", "c5", "c8"), strict=True)
    )
    page = PageAnalysis(
        page=1,
        width=10,
        height=600,
        direction=ReadingDirection.LTR,
        characters=chars,
        blocks=blocks,
        speakers=links,
    )
    page = label_page(page)
    assert speaker_labels(page) == {
        "c7": "character 1",
        "c2": "character 2",
        "c5": "character 2",
        "c8": "Gloria",
    }
    assert speaker_label(page, links[2]) == "character 2"
    assert speaker_label(page, links[3]) == "Gloria"
    assert speaker_label(page, SpeakerLink("b1", None, 0.9, SpeakerReason.NARRATOR, "s")) == "narrator"
    assert speaker_label(page, SpeakerLink("b1", None, 0.5, SpeakerReason.NONE, "s")) == "someone"
    assert speaker_label(page, None) is None


def test_name_store_renames_stick_per_book(tmp_path: Path) -> None:
    store = NameStore(tmp_path / "cfg" / "names.json")
    page = PageAnalysis(
        page=3,
        width=10,
        height=10,
        direction=ReadingDirection.LTR,
        characters=(
            Character("c1", BBox(0, 0, 1, 1), 0.5, "t", cluster="k2", name="Steenie"),
            Character("c2", BBox(0, 0, 1, 1), 0.5, "t"),
        ),
    )
    assert store.names("book-a") == {}
    store.rename("book-a", character_key(3, page.characters[0]), "  Steenie   Steenson ")
    store.rename("book-a", character_key(3, page.characters[1]), "The Laird")
    store.rename("book-b", "p3:c1", "Someone Else")
    again = NameStore(tmp_path / "cfg" / "names.json")  # a new session reads the file
    assert again.names("book-a") == {"p3:c1": "Steenie Steenson", "p3:c2": "The Laird"}
    assert again.names("book-c") == {}
    again.rename("book-a", "p3:c2", "")
    # keys name a page and a character: clusters are per page, so "k2" alone would rename
    # different people on different pages
    assert again.names("book-a") == {"p3:c1": "Steenie Steenson"}
    data = json.loads((tmp_path / "cfg" / "names.json").read_text(encoding="utf-8"))
    assert data["format"] == "panelvox.names/2"
    assert list(tmp_path.joinpath("cfg").iterdir()) == [tmp_path / "cfg" / "names.json"]  # no temp files left


def test_name_store_survives_a_damaged_file(tmp_path: Path) -> None:
    path = tmp_path / "names.json"
    path.write_text("{not json", encoding="utf-8")
    store = NameStore(path)
    assert store.names("x") == {}
    store.rename("x", "p1:c1", "Ann")
    assert store.names("x") == {"p1:c1": "Ann"}


def test_name_store_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert NameStore().path == tmp_path / "panelvox" / "names.json"


@pytest.mark.parametrize(
    ("text", "titled"),
    [
        ("MR. KEMAL I-I DON'T SEE ANYTHING IN THE SKY!", ["KEMAL"]),  # OCR lost the comma
        ("MISS LULU, I PRESUME?", ["LULU"]),
        ("PRIVATE PINTO!", ["PINTO"]),
        ("YES... WHERE DID PRIVATE JOE GO?", []),  # a title mid-sentence is no address
        ("I AM THE PROFESSOR!", []),
        ("GOOD BOY!", []),
    ],
)
def test_titles(text: str, titled: list[str]) -> None:
    assert titled_vocatives(text) == titled


def test_drawn_out_sounds_are_not_names() -> None:
    assert vocatives("OHHH! DON'T!") == []
    assert vocatives("AAAH! HELP!") == []
    assert vocatives("OHH, NO!") == []
    assert vocatives("ANNA! DON'T!") == ["ANNA"]
    assert vocatives("UH-HUH!") == []
    assert vocatives("BLAH-BLAH-BLAH!") == []
    assert vocatives("LOOK.. MYRRAH'S FATHER IS RISING!") == []
    assert vocatives("I-LOVE-YOU...") == []
    assert vocatives("HIYA, FOLKS!") == []
    assert vocatives("MARY-LOU, WAIT!") == ["MARY-LOU"]
