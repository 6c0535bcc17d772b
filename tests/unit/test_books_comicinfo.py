"""ComicInfo.xml parsing, the reading-direction decision and the per-book override store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_books_support import comicinfo, image_bytes, make_zip

from panelvox.books import (
    ComicInfo,
    DirectionOverrides,
    DirectionSource,
    Manga,
    PageType,
    decide_direction,
    open_book,
    parse_comicinfo,
)
from panelvox.books.comicinfo import ComicInfoError
from panelvox.model import ReadingDirection

FULL = """<?xml version="1.0" encoding="utf-8"?>
<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <Title>The Long Night</Title>
  <Series>Night Patrol</Series>
  <Number>7</Number>
  <Volume>2</Volume>
  <Summary>Two detectives
     search the harbour.</Summary>
  <Year>1948</Year>
  <Writer>A. Writer</Writer>
  <Penciller>B. Pencil</Penciller>
  <Inker>C. Ink</Inker>
  <Colorist>D. Color</Colorist>
  <Letterer>E. Letter</Letterer>
  <CoverArtist>F. Cover</CoverArtist>
  <Editor>G. Editor</Editor>
  <Characters>Ann, Bob</Characters>
  <LanguageISO>en</LanguageISO>
  <BlackAndWhite>Yes</BlackAndWhite>
  <PageCount>3</PageCount>
  <Manga>No</Manga>
  <UnknownElement>ignored</UnknownElement>
  <Pages>
    <Page Image="0" Type="FrontCover" ImageWidth="800" />
    <Page Image="1" Type="Story" DoublePage="true" />
    <Page Image="2" Type="Advertisement" />
    <Page Type="Story" />
  </Pages>
</ComicInfo>
"""


def test_parses_every_field() -> None:
    info = parse_comicinfo(FULL.encode())
    assert info.title == "The Long Night" and info.series == "Night Patrol" and info.number == "7"
    assert info.volume == 2 and info.year == 1948 and info.page_count == 3
    assert info.summary is not None and info.summary.startswith("Two detectives")
    assert (info.writer, info.penciller, info.inker, info.colorist, info.letterer) == (
        "A. Writer",
        "B. Pencil",
        "C. Ink",
        "D. Color",
        "E. Letter",
    )
    assert info.cover_artist == "F. Cover" and info.editor == "G. Editor" and info.characters == "Ann, Bob"
    assert info.language_iso == "en" and info.black_and_white is True and info.manga is Manga.NO
    assert [(p.image, p.type, p.double_page) for p in info.pages] == [
        (0, PageType.FRONT_COVER, False),
        (1, PageType.STORY, True),
        (2, PageType.ADVERTISEMENT, False),
    ]
    names = [name for name, _ in info.fields()]
    assert names[:3] == ["Title", "Series", "Number"] and "Manga" in names and "BlackAndWhite" in names


def test_namespaced_elements_and_bad_values() -> None:
    doc = b'<c:ComicInfo xmlns:c="urn:x"><c:Title>T</c:Title><c:Volume>two</c:Volume><c:Manga>maybe</c:Manga></c:ComicInfo>'
    info = parse_comicinfo(doc)
    assert info.title == "T" and info.volume is None and info.manga is None


@pytest.mark.parametrize(
    "doc",
    [
        b"not xml at all <",
        b"<Other><Title>x</Title></Other>",
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><ComicInfo><Title>&lol;</Title></ComicInfo>',
        b'<!doctype ComicInfo SYSTEM "file:///etc/passwd"><ComicInfo/>',
    ],
)
def test_refuses_malformed_and_dtd(doc: bytes) -> None:
    with pytest.raises(ComicInfoError):
        parse_comicinfo(doc)


@pytest.mark.parametrize(
    ("override", "manga", "lang", "direction", "source"),
    [
        (None, None, None, ReadingDirection.LTR, DirectionSource.DEFAULT),
        (None, Manga.YES_AND_RIGHT_TO_LEFT, "en", ReadingDirection.RTL, DirectionSource.COMICINFO),
        # Yes / No / Unknown say nothing about direction.
        (None, Manga.YES, "en", ReadingDirection.LTR, DirectionSource.DEFAULT),
        (None, Manga.NO, None, ReadingDirection.LTR, DirectionSource.DEFAULT),
        (None, Manga.UNKNOWN, None, ReadingDirection.LTR, DirectionSource.DEFAULT),
        (None, Manga.YES, "ja", ReadingDirection.RTL, DirectionSource.LANGUAGE),
        (None, None, "ja-JP", ReadingDirection.RTL, DirectionSource.LANGUAGE),
        (None, Manga.NO, "JA", ReadingDirection.RTL, DirectionSource.LANGUAGE),
        (
            ReadingDirection.LTR,
            Manga.YES_AND_RIGHT_TO_LEFT,
            "ja",
            ReadingDirection.LTR,
            DirectionSource.OVERRIDE,
        ),
        (ReadingDirection.TTB_RTL, None, None, ReadingDirection.TTB_RTL, DirectionSource.OVERRIDE),
    ],
)
def test_direction_decision_order(
    override: ReadingDirection | None,
    manga: Manga | None,
    lang: str | None,
    direction: ReadingDirection,
    source: DirectionSource,
) -> None:
    decision = decide_direction(override, ComicInfo(manga=manga, language_iso=lang))
    assert (decision.direction, decision.source) == (direction, source)
    assert decision.describe()


def test_book_direction_from_comicinfo_and_override(tmp_path: Path) -> None:
    files = {"p1.jpg": image_bytes(), "ComicInfo.xml": comicinfo("<Manga>YesAndRightToLeft</Manga>")}
    path = make_zip(tmp_path / "m.cbz", files)
    with open_book(path) as book:
        assert book.direction is ReadingDirection.RTL and book.direction_source is DirectionSource.COMICINFO
        assert "YesAndRightToLeft" in book.direction_decision.describe()
    with open_book(path, direction_override=ReadingDirection.LTR) as book:
        assert book.direction is ReadingDirection.LTR and book.direction_source is DirectionSource.OVERRIDE


def test_override_store_round_trip_and_use(tmp_path: Path) -> None:
    store = DirectionOverrides()  # under $XDG_CONFIG_HOME/panelvox (isolated by conftest)
    path = make_zip(tmp_path / "b.cbz", {"p1.jpg": image_bytes()})
    with open_book(path) as book:
        key = book.content_hash
    assert store.get(key) is None
    store.set(key, ReadingDirection.RTL)
    store.set("other", ReadingDirection.TTB_RTL)
    assert store.path.parent.name == "panelvox" and store.path.name == "directions.json"
    assert DirectionOverrides().get(key) is ReadingDirection.RTL
    assert [p.name for p in store.path.parent.iterdir()] == ["directions.json"]  # no temp files left
    with open_book(path, overrides=store) as book:
        assert book.direction is ReadingDirection.RTL and book.direction_source is DirectionSource.OVERRIDE
    # An explicit override beats the stored one.
    with open_book(path, overrides=store, direction_override=ReadingDirection.LTR) as book:
        assert book.direction is ReadingDirection.LTR
    store.clear(key)
    assert store.get(key) is None and store.get("other") is ReadingDirection.TTB_RTL
    assert json.loads(store.path.read_text())["books"] == {"other": "ttb-rtl"}


def test_override_store_survives_damage(tmp_path: Path) -> None:
    store = DirectionOverrides(tmp_path / "directions.json")
    store.path.write_text("{ not json")
    assert store.get("x") is None
    store.set("x", ReadingDirection.RTL)
    assert store.get("x") is ReadingDirection.RTL
    store.path.write_text(json.dumps({"books": {"x": "sideways"}}))
    assert store.get("x") is None


def test_title_falls_back_to_series_number_then_file_name(tmp_path: Path) -> None:
    cases = {
        "a.cbz": (comicinfo("<Title>Own Title</Title><Series>S</Series>"), "Own Title"),
        "b.cbz": (comicinfo("<Series>Night Patrol</Series><Number>7</Number>"), "Night Patrol 7"),
        "c.cbz": (comicinfo("<Writer>Someone</Writer>"), "c"),
        "d.cbz": (None, "d"),
    }
    for name, (xml, title) in cases.items():
        files = {"p.jpg": image_bytes()}
        if xml is not None:
            files["ComicInfo.xml"] = xml
        with open_book(make_zip(tmp_path / name, files)) as book:
            assert book.title == title


def test_page_types_mark_and_skip_pages(tmp_path: Path) -> None:
    xml = comicinfo(
        "<Pages>"
        '<Page Image="0" Type="FrontCover"/>'
        '<Page Image="1" Type="Advertisement"/>'
        '<Page Image="2" Type="Story" DoublePage="True"/>'
        '<Page Image="3" Type="Deleted"/>'
        "</Pages>"
    )
    files = {f"p{i}.jpg": image_bytes((i * 50, 0, 0)) for i in range(5)} | {"ComicInfo.xml": xml}
    path = make_zip(tmp_path / "b.cbz", files)
    with open_book(path) as book:
        assert book.page_count == 5
        assert [p.page_type for p in book.pages] == [
            PageType.FRONT_COVER,
            PageType.ADVERTISEMENT,
            PageType.STORY,
            PageType.DELETED,
            None,
        ]
        assert [p.double_page for p in book.pages] == [False, False, True, False, False]
    with open_book(path, skip_page_types=frozenset({"Advertisement", "deleted"})) as book:
        assert [p.label for p in book.pages] == ["p0.jpg", "p2.jpg", "p4.jpg"]
        assert [p.index for p in book.pages] == [0, 1, 2]
        assert [p.image_index for p in book.pages] == [0, 2, 4]
        r, _, _ = book.load_page(1).getpixel((3, 3))  # type: ignore[misc]
        assert abs(r - 100) < 10  # the page that was third in the archive


def test_bad_comicinfo_never_stops_the_book(tmp_path: Path) -> None:
    bomb = b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><ComicInfo><Title>&b;</Title></ComicInfo>'
    for name, xml in {"dtd.cbz": bomb, "broken.cbz": b"<ComicInfo><Title>x</Tit"}.items():
        with open_book(make_zip(tmp_path / name, {"p.jpg": image_bytes(), "ComicInfo.xml": xml})) as book:
            assert book.metadata is None and book.page_count == 1


def test_nested_comicinfo_is_found(tmp_path: Path) -> None:
    files = {"Book/p1.jpg": image_bytes(), "Book/comicinfo.xml": comicinfo("<Title>Nested</Title>")}
    with open_book(make_zip(tmp_path / "n.cbz", files)) as book:
        assert book.title == "Nested"


def test_override_store_write_failure_is_one_sentence(tmp_path: Path) -> None:
    from panelvox.errors import PanelvoxError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = DirectionOverrides(blocker / "panelvox" / "directions.json")
    with pytest.raises(PanelvoxError) as err:
        store.set("x", ReadingDirection.RTL)
    assert err.value.message == "The reading direction could not be saved."
