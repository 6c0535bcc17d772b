"""`panelvox info` on the shipped sample books and on a book with bad pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_books_support import image_bytes, make_zip, noise_jpeg

from panelvox.books import DirectionOverrides, DirectionSource, open_book
from panelvox.cli import main
from panelvox.model import ReadingDirection

ASSETS = Path(__file__).resolve().parents[2] / "assets"


def test_info_on_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(ASSETS / "sample.cbz")]) == 0
    out = capsys.readouterr().out
    assert "Title: Mysterious Treasure" in out
    assert "Format: ZIP archive (CBZ)" in out
    assert "Pages: 4" in out
    assert "Reading direction: left-to-right (the default, nothing in the book says otherwise)" in out
    assert "Series: Buster Brown Comics" in out and "LanguageISO: en" in out
    assert "MysteriousTreasure_06.jpg" in out
    assert "Every page can be read." in out


def test_info_on_the_rtl_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(ASSETS / "sample-rtl.cbz")]) == 0
    out = capsys.readouterr().out
    assert "Reading direction: right-to-left (ComicInfo Manga=YesAndRightToLeft)" in out
    assert "Pages: 2" in out and "1000x1400" in out


def test_info_direction_override_and_stored_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(ASSETS / "sample.cbz"), "--direction", "rtl"]) == 0
    assert "Reading direction: right-to-left (your choice for this book)" in capsys.readouterr().out
    with open_book(ASSETS / "sample.cbz") as book:
        DirectionOverrides().set(book.content_hash, ReadingDirection.TTB_RTL)
    assert main(["info", str(ASSETS / "sample.cbz")]) == 0
    assert "top-to-bottom, right column first (your choice for this book)" in capsys.readouterr().out


def test_sample_pages_decode() -> None:
    with open_book(ASSETS / "sample.cbz") as book:
        assert book.direction_source is DirectionSource.DEFAULT
        for ref in book.pages:
            arr = book.load_page_array(ref.index)
            assert arr.shape[0] > 1200 and arr.shape[1] > 900 and arr.shape[2] == 3


def test_info_lists_unreadable_pages_and_still_succeeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = noise_jpeg()
    path = make_zip(
        tmp_path / "bad.cbz", {"a.jpg": good, "b.jpg": good[:3000], "c\x1b[2J.jpg": image_bytes()}
    )
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 page cannot be read:" in out and "Page 2 is damaged and cannot be shown." in out
    assert "\x1b" not in out  # names from the archive never drive the terminal


def test_info_says_which_pages_it_had_no_time_to_check(tmp_path: Path) -> None:
    """Issue 32: a book near the entry limit took 19 s to check in full; ``info`` checks for
    a bounded time and says which pages it did not check, never that they can be read."""
    import io

    from panelvox.books.info import describe_book

    good = noise_jpeg()
    path = make_zip(tmp_path / "many.cbz", {f"{n:03d}.jpg": good for n in range(1, 31)} | {"031.jpg": b"x"})
    with open_book(path) as book:
        out = io.StringIO()
        assert describe_book(book, out, check_seconds=0.0) == 0  # nothing checked, nothing claimed
        text = out.getvalue()
        assert "Pages 1 to 31 were not checked: checking them would take too long." in text
        assert "Every page can be read." not in text and "unreadable" not in text
        out = io.StringIO()
        assert describe_book(book, out) == 1  # time enough: all checked, the bad one found
        assert "not checked" not in out.getvalue() and "1 page cannot be read:" in out.getvalue()
