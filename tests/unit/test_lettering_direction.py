"""A book that says nothing of its direction is told by its lettering: vertical Japanese reads
right to left. Pages are drawn here (a Japanese font from fonts-noto-cjk, see scripts/setup);
the real text models read them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from test_books_support import comicinfo, make_zip

from panelvox.analysis.lettering_direction import LetteringCount, LetteringDirection, sample_indices
from panelvox.books import DirectionSource, open_book
from panelvox.books.info import print_info
from panelvox.model import ReadingDirection

#: lines of a made-up scene: a manga page sets each as one or two columns in a balloon
_JAPANESE = [
    "だから知らないって言ってるだろ",
    "そんな借金なんて",
    "そうは言ってもなぁ",
    "流しのガンマンです",
    "レーネさんはモデルに",
    "それはよかった",
]
_ENGLISH = ["I TOLD YOU ALREADY!", "I DON'T OWE YOU", "WELL, I'M SORRY...", "A WANDERING GUNMAN"]


def _font(size: int, lang: str) -> ImageFont.FreeTypeFont:
    try:
        path = subprocess.run(
            ["fc-match", "-f", "%{file}", f":lang={lang}"], capture_output=True, text=True, check=True
        ).stdout.strip()
        return ImageFont.truetype(path, size)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"no font for {lang} (fonts-noto-cjk, see scripts/setup)")


def _manga_page(seed: int) -> Image.Image:
    """Balloons of vertical Japanese columns, right to left, the page in four tiers."""
    im = Image.new("RGB", (820, 1160), "white")
    d = ImageDraw.Draw(im)
    font = _font(30, "ja")
    if "CJK" not in font.getname()[0]:
        pytest.skip("the Japanese font is not a CJK one")
    for tier in range(3):
        top = 20 + tier * 380
        d.rectangle((20, top, 800, top + 360), outline="black", width=4)
        for k in range(2):
            text = _JAPANESE[(seed + 2 * tier + k) % len(_JAPANESE)]
            right = 760 - k * 360
            columns = [text[i : i + 7] for i in range(0, len(text), 7)]
            d.ellipse(
                (right - 60 - 45 * len(columns), top + 20, right + 30, top + 340), outline="black", width=3
            )
            for c, column in enumerate(columns):  # columns read right to left
                x = right - 30 - 45 * c
                for r, ch in enumerate(column):
                    d.text((x, top + 50 + 38 * r), ch, font=font, fill="black")
    return im


def _western_page(seed: int) -> Image.Image:
    im = Image.new("RGB", (820, 1160), "white")
    d = ImageDraw.Draw(im)
    font = _font(30, "en")
    for tier in range(3):
        top = 20 + tier * 380
        d.rectangle((20, top, 800, top + 360), outline="black", width=4)
        for k in range(2):
            text = _ENGLISH[(seed + 2 * tier + k) % len(_ENGLISH)]
            d.ellipse((40 + k * 380, top + 30, 400 + k * 380, top + 150), outline="black", width=3)
            d.text((70 + k * 380, top + 75), text, font=font, fill="black")
    return im


def _folder(path: Path, pages: list[Image.Image]) -> Path:
    path.mkdir()
    for n, im in enumerate(pages, start=1):
        im.save(path / f"{n:03d}.png")
    return path


@pytest.fixture(scope="module")
def probe() -> LetteringDirection:
    return LetteringDirection()  # nothing kept: each test samples


def test_sampled_pages_spread_through_the_book_without_the_cover() -> None:
    assert sample_indices(1) == [0]
    assert sample_indices(3) == [1, 2]
    assert sample_indices(4) == [1, 2, 3]
    assert sample_indices(40) == [7, 20, 33]
    assert sample_indices(0) == []


def test_the_verdict_wants_most_lines_vertical_and_most_columns_japanese() -> None:
    assert LetteringCount(lines=30, columns=24, read=12, japanese=11).vertical_japanese
    assert not LetteringCount(lines=30, columns=14, read=12, japanese=12).vertical_japanese
    assert not LetteringCount(lines=30, columns=24, read=12, japanese=6).vertical_japanese
    assert not LetteringCount().vertical_japanese


@pytest.mark.slow
def test_vertical_japanese_lettering_reads_right_to_left(
    tmp_path: Path, probe: LetteringDirection, capsys: pytest.CaptureFixture[str]
) -> None:
    book = _folder(tmp_path / "manga", [_manga_page(n) for n in range(4)])
    with open_book(book, lettering=probe) as opened:
        count = probe.count(opened)
        assert count.vertical_japanese, count
        assert opened.direction is ReadingDirection.RTL
        assert opened.direction_source is DirectionSource.LETTERING
    assert print_info(book, lettering=probe) == 0
    assert "Reading direction: right-to-left (the lettering is vertical Japanese)" in capsys.readouterr().out


@pytest.mark.slow
def test_horizontal_latin_lettering_keeps_the_default(tmp_path: Path, probe: LetteringDirection) -> None:
    book = _folder(tmp_path / "comic", [_western_page(n) for n in range(4)])
    with open_book(book, lettering=probe) as opened:
        assert not probe.count(opened).vertical_japanese
        assert opened.direction is ReadingDirection.LTR
        assert opened.direction_source is DirectionSource.DEFAULT


def _manga_cbz(path: Path, info: str | None = None) -> Path:
    files: dict[str, bytes] = {}
    for n in range(2):
        buf = Path(path.parent / f"p{n}.png")
        _manga_page(n).save(buf)
        files[f"{n:03d}.png"] = buf.read_bytes()
    if info is not None:
        files["ComicInfo.xml"] = comicinfo(info)
    return make_zip(path, files)


def test_the_probe_is_asked_only_when_nothing_else_decides(tmp_path: Path) -> None:
    asked: list[str] = []

    def says_yes(book: object) -> bool:
        asked.append(getattr(book, "content_hash", ""))
        return True

    plain = _manga_cbz(tmp_path / "plain.cbz")
    with open_book(plain, lettering=says_yes) as book:
        assert not asked  # opening samples nothing: only a question about the direction does
        assert book.direction is ReadingDirection.RTL and len(asked) == 1
        assert book.direction_source is DirectionSource.LETTERING and len(asked) == 1
    # the user's choice, ComicInfo's direction, or a language it names: nothing is sampled
    with open_book(plain, lettering=says_yes, direction_override=ReadingDirection.LTR) as book:
        assert book.direction is ReadingDirection.LTR
    english = _manga_cbz(tmp_path / "en.cbz", "<LanguageISO>en</LanguageISO>")
    with open_book(english, lettering=says_yes) as book:
        assert book.direction is ReadingDirection.LTR and book.direction_source is DirectionSource.DEFAULT
    tagged = _manga_cbz(tmp_path / "rtl.cbz", "<Manga>YesAndRightToLeft</Manga>")
    with open_book(tagged, lettering=says_yes) as book:
        assert book.direction_source is DirectionSource.COMICINFO
    assert len(asked) == 1


def test_a_verdict_is_kept_per_book(tmp_path: Path) -> None:
    store = tmp_path / "lettering.json"
    book = _manga_cbz(tmp_path / "m.cbz")
    with open_book(book) as opened:
        assert LetteringDirection(store=store)(opened) is True

        def no_engine() -> object:
            raise AssertionError("a kept verdict needs no model")

        again = LetteringDirection(no_engine, store=store)  # type: ignore[arg-type]
        assert again(opened) is True


class _Unreadable:
    content_hash = "x" * 64
    page_count = 3

    def load_page_array(self, index: int) -> np.ndarray:
        from panelvox.errors import UnreadablePage

        raise UnreadablePage("Page is damaged.", detail=str(index))


def test_unreadable_pages_give_no_verdict(probe: LetteringDirection) -> None:
    assert probe.count(_Unreadable()) == LetteringCount()
    assert probe(_Unreadable()) is False
