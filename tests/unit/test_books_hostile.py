"""Hostile and broken books. Every case makes its own file; none may crash or hang, and
every message is one short plain sentence (it will be spoken)."""

from __future__ import annotations

import io
import os
import shutil
import struct
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from test_books_support import (
    empty_pdf_bytes,
    image_bytes,
    make_7z,
    make_encrypted_zip,
    make_pdf,
    make_rar,
    make_zip,
    noise_jpeg,
    png_header_only,
)

from panelvox.books import Limits, open_book
from panelvox.books.adapter import read_capped
from panelvox.books.seven_zip_adapter import SevenZipAdapter
from panelvox.books.zip_adapter import ZipAdapter
from panelvox.cli import main
from panelvox.errors import (
    BookError,
    BookNotFound,
    EmptyBook,
    PasswordProtected,
    ResourceLimitExceeded,
    UnreadablePage,
    UnsupportedFormat,
)

MiB = 1024 * 1024
REPO = Path(__file__).resolve().parents[2]


def assert_spoken_sentence(message: str) -> None:
    assert message and "\n" not in message and "Traceback" not in message
    assert message[0].isupper() and message.endswith(".") and message.count(". ") == 0
    assert len(message) <= 80


def _patch_declared_sizes(path: Path, size: int) -> None:
    """Make every member of a stored ZIP claim ``size`` bytes (local and central headers)."""
    data = bytearray(path.read_bytes())
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        pos = data.find(sig)
        while pos != -1:
            struct.pack_into("<I", data, pos + offset, size)
            pos = data.find(sig, pos + 4)
    path.write_bytes(bytes(data))


# --- bombs --------------------------------------------------------------------------------
def test_zip_bomb_actual_size_refused_page_only(tmp_path: Path) -> None:
    zeros = b"\0" * (40 * MiB)  # deflates to about 40 KiB
    path = make_zip(tmp_path / "bomb.cbz", {"a.jpg": image_bytes(), "b.jpg": zeros})
    assert path.stat().st_size < 200_000
    with open_book(path, limits=Limits(max_entry_bytes=2 * MiB)) as book:
        book.load_page(0)
        with pytest.raises(UnreadablePage) as err:
            book.load_page(1)
        assert err.value.message == "Page 2 is too large to open safely."
        assert book.check_page(1).problem == "Page 2 is too large to open safely."


def test_zip_bomb_declared_size_refused_without_reading(tmp_path: Path) -> None:
    files = {f"p{i}.jpg": image_bytes() for i in range(5)}
    path = make_zip(tmp_path / "liar.cbz", files, compress=zipfile.ZIP_STORED)
    _patch_declared_sizes(path, 0xF000_0000)  # each claims 3.75 GiB; 18.75 GiB in all
    with pytest.raises(ResourceLimitExceeded) as err:
        open_book(path)  # default limits
    assert_spoken_sentence(err.value.message)
    # Under a larger total limit the book opens, but each page is refused by its declared size.
    with (
        open_book(path, limits=Limits(max_total_bytes=2**40)) as book,
        pytest.raises(UnreadablePage, match="too large"),
    ):
        book.load_page(0)


def test_reads_are_streamed_with_a_cap() -> None:
    class Endless(io.RawIOBase):
        def __init__(self) -> None:
            self.served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
            n = len(b)
            b[:n] = b"\0" * n
            self.served += n
            return n

    src = Endless()
    with pytest.raises(ResourceLimitExceeded):
        read_capped(io.BufferedReader(src), 3 * MiB, "endless")
    assert src.served <= 5 * MiB


def test_adapters_cap_even_when_declared_sizes_pass(tmp_path: Path) -> None:
    zeros = b"\0" * (8 * MiB)
    zpath = make_zip(tmp_path / "z.cbz", {"b.jpg": zeros})
    adapter = ZipAdapter(zpath, Limits())
    with pytest.raises(ResourceLimitExceeded):
        adapter.read(adapter.entries()[0], MiB)
    adapter.close()
    spath = make_7z(tmp_path / "s.cb7", {"b.jpg": zeros})
    sz = SevenZipAdapter(spath, Limits())
    with pytest.raises(ResourceLimitExceeded):
        sz.read(sz.entries()[0], MiB)
    sz.close()


@pytest.mark.parametrize(("w", "h"), [(60000, 60000), (9000, 9000)])
def test_pixel_bomb_refused_before_decoding(w: int, h: int, tmp_path: Path) -> None:
    path = make_zip(tmp_path / "px.cbz", {"a.png": png_header_only(w, h), "b.jpg": image_bytes()})
    start = time.perf_counter()
    with open_book(path) as book:
        with pytest.raises(UnreadablePage) as err:
            book.load_page(0)
        assert err.value.message == "Page 1 is too large to open safely."
        assert not book.check_page(0).ok
        assert book.load_page(1).size == (40, 60)
    assert time.perf_counter() - start < 5  # refused from the header, never decoded


def test_too_many_entries(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "many.cbz", {f"p{i}.jpg": b"x" for i in range(30)})
    with pytest.raises(ResourceLimitExceeded):
        open_book(path, limits=Limits(max_entries=10))


# --- names --------------------------------------------------------------------------------
def test_traversal_and_absolute_names_are_only_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "deep" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    names = ["../../evil1.jpg", "/tmp/evil2.jpg", "..\\..\\evil3.jpg", "ok/../../evil4.jpg"]
    zpath = make_zip(tmp_path / "z.cbz", {n: image_bytes() for n in names})
    tpath = tmp_path / "t.cbt"
    with tarfile.open(tpath, "w") as tf:
        for n in names:
            info = tarfile.TarInfo(n)
            data = image_bytes()
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("link.jpg")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for path in (zpath, tpath):
        with open_book(path) as book:
            assert book.page_count == 4  # the symlink member is not a page
            for ref in book.pages:
                assert book.load_page(ref.index).size == (40, 60)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert not Path("/tmp/evil2.jpg").exists()


# --- damaged pages ------------------------------------------------------------------------
def test_bad_pages_never_end_the_book(tmp_path: Path) -> None:
    good = noise_jpeg()
    files = {
        "p1.jpg": good,
        "p2.jpg": good[: len(good) // 2],  # truncated JPEG
        "p3.jpg": b"",  # zero-byte entry
        "p4.jpg": b"<html>this is not an image</html>",  # non-image named .jpg
        "p5.png": image_bytes(fmt="PNG"),
    }
    path = make_zip(tmp_path / "bad.cbz", files)
    with open_book(path) as book:
        assert book.page_count == 5
        assert book.load_page(0).size == (200, 200)
        expected = {
            1: "Page 2 is damaged and cannot be shown.",
            2: "Page 3 is empty.",
            3: "Page 4 is not a picture.",
        }
        for index, message in expected.items():
            with pytest.raises(UnreadablePage) as err:
                book.load_page(index)
            assert err.value.message == message
            assert_spoken_sentence(err.value.message)
            assert err.value.detail  # the log gets the why
        assert book.load_page(4).size == (40, 60)
        assert book.unreadable_pages == expected
    # The cheap header check finds the same three pages without decoding.
    with open_book(path) as book:
        assert [c.problem for c in map(book.check_page, range(5))] == [None, *expected.values(), None]


def test_zip_member_without_a_name_is_skipped(tmp_path: Path) -> None:
    """A damaged central directory can name a member "" (found by the archive fuzzer)."""
    path = tmp_path / "nameless.cbz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("p1.png", image_bytes(fmt="PNG"))
        zf.writestr(zipfile.ZipInfo(""), b"junk")
    with open_book(path) as book:
        assert book.page_count == 1
        assert book.load_page(0).size == (40, 60)


# --- whole-book refusals ------------------------------------------------------------------
def test_password_zip(tmp_path: Path) -> None:
    path = make_encrypted_zip(tmp_path / "pw.cbz", {"p1.jpg": image_bytes()}, b"secret")
    with pytest.raises(PasswordProtected) as err:
        open_book(path)
    assert err.value.message == "This book is password protected."


@pytest.mark.parametrize("encrypt_headers", [False, True])
def test_password_rar(encrypt_headers: bool, tmp_path: Path) -> None:
    path = make_rar(
        tmp_path / "pw.cbr", {"p1.jpg": image_bytes()}, password="secret", encrypt_headers=encrypt_headers
    )
    with pytest.raises(PasswordProtected) as err:
        open_book(path)
    assert err.value.message == "This book is password protected."


@pytest.mark.parametrize("header_encryption", [False, True])
def test_password_7z(header_encryption: bool, tmp_path: Path) -> None:
    path = make_7z(
        tmp_path / "pw.cb7", {"p1.jpg": image_bytes()}, password="secret", header_encryption=header_encryption
    )
    with pytest.raises(PasswordProtected):
        open_book(path)


def test_password_pdf(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "pw.pdf", [image_bytes(fmt="PNG")], password="secret")
    with pytest.raises(PasswordProtected) as err:
        open_book(path)
    assert err.value.message == "This book is password protected."


def test_pdf_without_pages(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(empty_pdf_bytes())
    with pytest.raises(EmptyBook) as err:
        open_book(path)
    assert_spoken_sentence(err.value.message)


def test_archive_without_images(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "text.cbz", {"readme.txt": b"hello", "ComicInfo.xml": b"<ComicInfo/>"})
    with pytest.raises(EmptyBook) as err:
        open_book(path)
    assert err.value.message == "This book has no pages."
    empty = tmp_path / "emptydir"
    empty.mkdir()
    with pytest.raises(EmptyBook):
        open_book(empty)


@pytest.mark.parametrize(
    "content", [b"Just some notes, not a comic.\n", os.urandom(4096), b"", b"PK\x03\x04broken zip"]
)
def test_not_a_book(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "book.cbz"
    path.write_bytes(content)
    with pytest.raises(BookError) as err:
        open_book(path)
    assert isinstance(err.value, UnsupportedFormat) or "damaged" in err.value.message
    assert_spoken_sentence(err.value.message)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(BookNotFound) as err:
        open_book(tmp_path / "nowhere.cbz")
    assert err.value.message == "Cannot find the book nowhere.cbz."


def test_read_only_medium(tmp_path: Path) -> None:
    medium = tmp_path / "cdrom"
    medium.mkdir()
    book_path = medium / "sample.cbz"
    shutil.copy(REPO / "assets" / "sample.cbz", book_path)
    rar_path = None
    if shutil.which("rar"):
        rar_path = make_rar(medium / "r.cbr", {"a.jpg": noise_jpeg(), "b.jpg": noise_jpeg()})
    book_path.chmod(0o444)
    medium.chmod(0o555)
    try:
        before = {p.name: p.stat().st_mtime_ns for p in medium.iterdir()}
        for path in filter(None, (book_path, rar_path)):
            with open_book(path) as book:
                for ref in book.pages:
                    assert book.load_page(ref.index).mode == "RGB"
        assert main(["info", str(book_path)]) == 0
        assert {p.name: p.stat().st_mtime_ns for p in medium.iterdir()} == before
    finally:
        medium.chmod(0o755)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "locked.cbz", {"p.jpg": image_bytes()})
    path.chmod(0)
    with pytest.raises(BookError) as err:
        open_book(path)
    assert err.value.message == "Panelvox is not allowed to read this book."


# --- the command line never shows a traceback ---------------------------------------------
@pytest.mark.parametrize("kind", ["missing", "not-a-book", "password", "bomb"])
def test_cli_prints_one_sentence(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.cbz"
    if kind == "not-a-book":
        path.write_text("hello")
    elif kind == "password":
        make_encrypted_zip(path, {"p.jpg": image_bytes()}, b"pw")
    elif kind == "bomb":
        make_zip(path, {f"p{i}.jpg": image_bytes() for i in range(5)}, compress=zipfile.ZIP_STORED)
        _patch_declared_sizes(path, 0xF000_0000)
    assert main(["info", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert_spoken_sentence(err.strip())


def test_a_folder_lists_its_files_in_walk_order_without_resolving_each(tmp_path: Path) -> None:
    """Issue 32: the folder listing is read from scandir's entries (a link alone is resolved),
    in os.walk's order (the book's identity hashes it), to the same depth as before."""
    from panelvox.books.folder_adapter import FolderAdapter

    root = tmp_path / "book"
    deep = root.joinpath(*"bcdefghij")
    deep.mkdir(parents=True)
    (root / "a").mkdir()
    (tmp_path / "outside.jpg").write_bytes(b"o")
    for folder in [root, root / "a", *(root.joinpath(*"bcdefghij"[:n]) for n in range(1, 10))]:
        (folder / "p1.jpg").write_bytes(b"x")
    (root / "out.jpg").symlink_to(tmp_path / "outside.jpg")  # leaves the book: not listed
    (root / "in.jpg").symlink_to(root / "a" / "p1.jpg")  # stays inside: listed
    (root / "linked").symlink_to(root / "b", target_is_directory=True)  # not entered
    walked = []
    for here, dirs, names in os.walk(root):
        depth = len(Path(here).relative_to(root).parts)
        if depth >= 3:
            dirs[:] = []
        walked += [(Path(here) / n).relative_to(root).as_posix() for n in names if n != "out.jpg"]
    listed = [e.name for e in FolderAdapter(root, Limits(max_folder_depth=3)).entries()]
    assert listed == walked and "in.jpg" in listed and "b/c/d/p1.jpg" in listed
    assert "b/c/d/e/p1.jpg" not in listed
