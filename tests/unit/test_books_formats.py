"""Every format opens, pages come in natural order, junk is ignored, images convert right."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, features
from test_books_support import (
    image_bytes,
    make_7z,
    make_folder,
    make_pdf,
    make_rar,
    make_tar,
    make_zip,
)

from panelvox.books import BookFormat, Limits, open_book
from panelvox.books.naming import is_page_image, natural_sorted

RED, GREEN, BLUE = (220, 20, 20), (20, 200, 20), (20, 20, 220)
PAGES = {
    "p1.png": image_bytes(RED, fmt="PNG"),
    "p2.png": image_bytes(GREEN, fmt="PNG"),
    "p10.png": image_bytes(BLUE, fmt="PNG"),
}

Maker = Callable[[Path], Path]
MAKERS: dict[str, tuple[BookFormat, Maker]] = {
    "zip": (BookFormat.ZIP, lambda d: make_zip(d / "book.cbz", PAGES)),
    "rar": (BookFormat.RAR, lambda d: make_rar(d / "book.cbr", PAGES)),
    "7z": (BookFormat.SEVEN_ZIP, lambda d: make_7z(d / "book.cb7", PAGES)),
    "tar": (BookFormat.TAR, lambda d: make_tar(d / "book.cbt", PAGES)),
    "tar.gz": (BookFormat.TAR, lambda d: make_tar(d / "book.cbt", PAGES, mode="w:gz")),
    "folder": (BookFormat.FOLDER, lambda d: make_folder(d / "book", PAGES)),
    # Common in the wild: the extension says one thing, the content another.
    "cbz-that-is-rar": (BookFormat.RAR, lambda d: make_rar(d / "book.cbz", PAGES)),
    "cbr-that-is-zip": (BookFormat.ZIP, lambda d: make_zip(d / "book.cbr", PAGES)),
}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_every_format_opens_in_natural_order(kind: str, tmp_path: Path) -> None:
    fmt, maker = MAKERS[kind]
    with open_book(maker(tmp_path)) as book:
        assert book.format is fmt
        assert book.page_count == 3
        assert [p.label.rsplit("/", 1)[-1] for p in book.pages] == ["p1.png", "p2.png", "p10.png"]
        for ref, color in zip(book.pages, (RED, GREEN, BLUE), strict=True):
            im = book.load_page(ref.index)
            assert im.mode == "RGB" and im.size == (40, 60)
            assert im.getpixel((5, 5)) == color
        arr = book.load_page_array(2)
        assert arr.dtype == np.uint8 and arr.shape == (60, 40, 3)
        assert tuple(arr[10, 10]) == BLUE
        assert book.unreadable_pages == {}


def test_pdf_renders_for_analysis_and_keeps_native_size(tmp_path: Path) -> None:
    scan = image_bytes(GREEN, size=(600, 900), fmt="PNG")
    path = make_pdf(tmp_path / "book.pdf", [scan, image_bytes(RED, size=(600, 900), fmt="PNG")])
    with open_book(path, limits=Limits(pdf_render_long_side=1800)) as book:
        assert book.format is BookFormat.PDF
        assert book.page_count == 2
        im = book.load_page(1)
        assert max(im.size) == 1800 and im.size == (1200, 1800)
        r, g, b = im.getpixel((600, 900))
        assert r > 200 and g < 60 and b < 60
        assert book.native_size(0) == (600, 900)  # the embedded scan's own pixels
        assert book.check_page(0).ok


def test_natural_sort_is_case_insensitive_and_per_folder() -> None:
    names = [
        "ch10/p1.jpg",
        "Ch2/P10.jpg",
        "ch2/p2.jpg",
        "ch1/page 003.jpg",
        "ch1/Page 1.jpg",
        "ch1/page 02.jpg",
    ]
    assert natural_sorted(names) == [
        "ch1/Page 1.jpg",
        "ch1/page 02.jpg",
        "ch1/page 003.jpg",
        "ch2/p2.jpg",
        "Ch2/P10.jpg",
        "ch10/p1.jpg",
    ]
    # Equal numbers written differently still sort in a fixed (total) order.
    assert natural_sorted(["p01.jpg", "p1.jpg", "p001.jpg"]) == natural_sorted(
        ["p1.jpg", "p001.jpg", "p01.jpg"]
    )


def test_junk_and_non_images_are_ignored(tmp_path: Path) -> None:
    files = {
        "page2.jpg": image_bytes(),
        "Page1.PNG": image_bytes(fmt="PNG"),
        "sub/page10.jpeg": image_bytes(),
        "__MACOSX/._page1.jpg": b"resource fork",
        "__MACOSX/sub/._page10.jpeg": b"resource fork",
        "Thumbs.db": b"junk",
        ".DS_Store": b"junk",
        ".hidden.jpg": image_bytes(),
        ".git/objects/x.jpg": image_bytes(),
        "notes.txt": b"hello",
        "scan.nfo": b"hello",
        "ComicInfo.xml": b"<ComicInfo/>",
    }
    with open_book(make_zip(tmp_path / "b.cbz", files)) as book:
        assert [p.label for p in book.pages] == ["Page1.PNG", "page2.jpg", "sub/page10.jpeg"]
    assert not is_page_image("desktop.ini")


def _encode(im: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def _cmyk_red() -> bytes:
    return _encode(Image.new("CMYK", (32, 32), (0, 255, 255, 0)), "JPEG", quality=95)


def _palette_transparent() -> bytes:
    im = Image.new("P", (32, 32), 1)
    im.putpalette([0, 0, 0, 10, 20, 200] + [0] * 762)
    im.paste(0, (0, 0, 16, 32))
    return _encode(im, "PNG", transparency=0)


def _gray16() -> bytes:
    arr = np.zeros((32, 32), dtype=np.uint16)
    arr[:, :16] = 65535
    arr[:, 16:] = 32768
    return _encode(Image.fromarray(arr), "PNG")


def _la_transparent() -> bytes:
    return _encode(Image.new("LA", (32, 32), (0, 0)), "PNG")


def _gif_animated() -> bytes:
    first = Image.new("RGB", (32, 32), RED).convert("P")
    second = Image.new("RGB", (32, 32), BLUE).convert("P")
    return _encode(first, "GIF", save_all=True, append_images=[second], duration=100, loop=0)


def _bilevel() -> bytes:
    im = Image.new("1", (32, 32), 0)
    im.paste(1, (16, 0, 32, 32))
    return _encode(im, "PNG")


CASES: dict[str, tuple[Callable[[], bytes], str, tuple[int, int], tuple[int, int, int], int]] = {
    # name: (bytes, entry suffix, probe xy, expected rgb, tolerance)
    "cmyk-jpeg": (_cmyk_red, ".jpg", (16, 16), (255, 0, 0), 40),
    "palette-transparent": (_palette_transparent, ".png", (4, 4), (255, 255, 255), 0),
    "palette-opaque-part": (_palette_transparent, ".png", (28, 4), (10, 20, 200), 0),
    "gray16-full": (_gray16, ".png", (4, 4), (255, 255, 255), 0),
    "gray16-half": (_gray16, ".png", (28, 4), (128, 128, 128), 1),
    "la-transparent": (_la_transparent, ".png", (4, 4), (255, 255, 255), 0),
    "gif-first-frame": (_gif_animated, ".gif", (4, 4), RED, 40),
    "bilevel": (_bilevel, ".png", (28, 4), (255, 255, 255), 0),
    "bmp": (lambda: image_bytes(GREEN, fmt="BMP"), ".bmp", (4, 4), GREEN, 0),
    "tiff": (lambda: image_bytes(BLUE, fmt="TIFF"), ".tif", (4, 4), BLUE, 0),
    "webp-rgba": (
        lambda: _encode(Image.new("RGBA", (32, 32), (0, 0, 0, 0)), "WEBP", lossless=True),
        ".webp",
        (4, 4),
        (255, 255, 255),
        0,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_image_modes_convert_to_rgb(case: str, tmp_path: Path) -> None:
    make, suffix, xy, expected, tol = CASES[case]
    with open_book(make_zip(tmp_path / "b.cbz", {"page" + suffix: make()})) as book:
        im = book.load_page(0)
        assert im.mode == "RGB"
        got = im.getpixel(xy)
        assert isinstance(got, tuple)
        assert all(abs(a - b) <= tol for a, b in zip(got, expected, strict=True)), (case, got)


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow has no AVIF support")
def test_avif_page(tmp_path: Path) -> None:
    data = _encode(Image.new("RGB", (32, 32), GREEN), "AVIF", quality=95)
    with open_book(make_zip(tmp_path / "b.cbz", {"p.avif": data})) as book:
        r, g, b = book.load_page(0).getpixel((8, 8))  # type: ignore[misc]
        assert g > 150 and r < 80 and b < 80


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    im = Image.new("RGB", (40, 20), (255, 255, 255))
    im.paste((255, 0, 0), (0, 0, 8, 8))  # marker at the stored top-left
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display"
    data = _encode(im, "JPEG", quality=95, exif=exif.tobytes())
    with open_book(make_zip(tmp_path / "b.cbz", {"p.jpg": data})) as book:
        page = book.load_page(0)
        assert page.size == (20, 40)
        r, g, b = page.getpixel((16, 3))  # type: ignore[misc]
        assert r > 200 and g < 80 and b < 80  # the marker is now at the top-right
        assert book.check_page(0).ok


def test_cache_is_bounded_and_pages_are_copies(tmp_path: Path) -> None:
    files = {f"p{i}.png": image_bytes((i * 20, 0, 0), size=(100, 100), fmt="PNG") for i in range(8)}
    page_bytes = 100 * 100 * 3
    with open_book(make_zip(tmp_path / "b.cbz", files), limits=Limits(cache_bytes=3 * page_bytes)) as book:
        for i in range(8):
            book.load_page(i)
            assert book.cached_bytes <= 3 * page_bytes
        im = book.load_page(7)
        im.paste((1, 2, 3), (0, 0, 100, 100))
        assert book.load_page(7).getpixel((0, 0)) == (140, 0, 0)


def test_opening_decodes_nothing(tmp_path: Path) -> None:
    # Every page is garbage: opening still succeeds, because nothing is decoded until asked.
    files = {f"p{i}.jpg": b"not a jpeg" for i in range(20)}
    with open_book(make_zip(tmp_path / "b.cbz", files)) as book:
        assert book.page_count == 20
        assert book.unreadable_pages == {}


def test_content_hash_follows_content_not_name(tmp_path: Path) -> None:
    a = make_zip(tmp_path / "a.cbz", PAGES)
    b = tmp_path / "renamed.cbz"
    shutil.copy(a, b)
    c = make_zip(tmp_path / "c.cbz", {"p1.png": image_bytes(BLUE, fmt="PNG")})
    with open_book(a) as ba, open_book(b) as bb, open_book(c) as bc:
        assert ba.content_hash == bb.content_hash != bc.content_hash
        assert len(ba.content_hash) == 64


def test_closed_book_refuses_pages(tmp_path: Path) -> None:
    from panelvox.errors import BookError

    book = open_book(make_zip(tmp_path / "a.cbz", PAGES))
    book.close()
    with pytest.raises(BookError):
        book.load_page(0)
    book.close()  # twice is fine


def test_rar_pages_are_exact_even_where_unar_fails(tmp_path: Path) -> None:
    # Debian 12's unar 1.10.1 cannot decompress some RAR5 members made by RAR 7 (noise-like
    # JPEG data triggers it); RARLAB's tool then reads them. Every page must come back exact.
    from test_books_support import noise_jpeg

    files = {f"n{i}.jpg": noise_jpeg((180 + i * 7, 200)) for i in range(6)}
    path = make_rar(tmp_path / "noise.cbr", files)
    with open_book(path) as book:
        for ref in book.pages:
            expected = Image.open(io.BytesIO(files[ref.label]))
            assert book.load_page(ref.index).tobytes() == expected.convert("RGB").tobytes()


def test_rar_falls_back_only_when_a_tool_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rarfile

    from panelvox.books import rar_adapter
    from panelvox.errors import UnreadablePage

    path = make_rar(tmp_path / "b.cbr", {"a.png": image_bytes(RED, fmt="PNG")})

    def broken(*args: object, **kwargs: object) -> object:
        raise rarfile.BadRarFile("simulated unar failure")

    monkeypatch.setattr(rarfile.RarFile, "open", broken)
    with open_book(path) as book:
        assert book.load_page(0).getpixel((1, 1)) == RED  # read by rar itself
    monkeypatch.setattr(rar_adapter, "_rarlab_tool", lambda: None)
    with open_book(path) as book, pytest.raises(UnreadablePage, match="Page 1 is damaged"):
        book.load_page(0)


def test_solid_7z_read_ahead_returns_the_right_pages(tmp_path: Path) -> None:
    colors = [(i * 25, 255 - i * 25, 7) for i in range(10)]
    files = {f"p{i}.png": image_bytes(c, fmt="PNG") for i, c in enumerate(colors)}
    with open_book(make_7z(tmp_path / "s.cb7", files), limits=Limits(cache_bytes=0)) as book:
        for i in (5, 6, 0, 9, 1, 2, 2, 8):
            assert book.load_page(i).getpixel((3, 3)) == colors[i]
