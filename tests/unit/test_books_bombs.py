"""Issue 20's hostile books: each failure is one spoken sentence, each bomb is refused before
it costs (small versions of benchmarks/bench_hostile.py, which measures the full-size ones),
and the probe's reproducers in ../shared/hostile stay fixed."""

from __future__ import annotations

import gzip
import io
import os
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from test_books_hostile import assert_spoken_sentence
from test_books_support import image_bytes, make_7z, make_rar, make_tar, make_zip

from panelvox.books import Limits, open_book, page_decoder
from panelvox.books.comicinfo import ComicInfoError, parse_comicinfo
from panelvox.books.naming import KEY_CHARS, natural_key, natural_sorted
from panelvox.books.zip_adapter import _count_directory
from panelvox.errors import PanelvoxError, ResourceLimitExceeded, UnreadablePage

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_hostile import tiled_tiff

MiB = 1024 * 1024
#: the probe's reproducers, beside the repository (PANELVOX_SHARED elsewhere, e.g. from a worktree)
HOSTILE = Path(os.environ.get("PANELVOX_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "hostile"
PAGE = image_bytes()


def _outcome(path: Path, limits: Limits | None = None) -> str:
    """ "page decoded", or the one sentence Panelvox said; anything else escapes."""
    try:
        with open_book(path, limits=limits) as book:
            book.load_page(0)
    except PanelvoxError as exc:
        assert_spoken_sentence(exc.message)
        return exc.message
    return "page decoded"


# -- the probe's reproducers ----------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "F1_digits_name.cbz",
        "F1_digits_name.cbt",
        "F1_digits_name.cb7",
        "F2_comicinfo_shift_jis.cbz",
        "F3_comicinfo_unknown_encoding.cbz",
        "F4_pdf_bad_kids.pdf",
        "F4b_pdf_kids_cycle.pdf",
        "F5_pdf_thin_page.pdf",
        "F8_tar_pax_digits_16k.cbt",
        "F8_tar_pax_digits_64k.cbt",
        "F8_tar_pax_digits_256k.cbt",
        "F9_jpeg_4000px_3000scans.cbz",
        "F9_jpeg_8000px_3000scans.cbz",
    ],
)
def test_the_probes_reproducers(name: str) -> None:
    path = HOSTILE / name
    if not path.is_file():
        pytest.skip("../shared/hostile is not present")
    outcome = _outcome(path)
    if name.startswith("F2"):
        with open_book(path) as book:
            assert book.metadata is not None and book.metadata.title == "漫画"  # read, not refused
    if name.startswith(("F1_digits_name.cbz", "F1_digits_name.cb7", "F2", "F3")):
        assert outcome == "page decoded"
    if name.startswith("F9"):
        assert outcome == "Page 1 is too large to open safely."


# -- F1: numbers too long for int() ----------------------------------------------------------
def test_natural_order_with_numbers_of_any_length() -> None:
    huge = "p" + "9" * 4301 + ".jpg"
    assert natural_sorted([huge, "p10.jpg", "p2.jpg", "p002.jpg"]) == ["p002.jpg", "p2.jpg", "p10.jpg", huge]
    # other scripts' digits compare by value too
    assert natural_sorted(["p\u0661\u0660.jpg", "p\u0662.jpg"]) == ["p\u0662.jpg", "p\u0661\u0660.jpg"]


def test_sort_keys_are_bounded_and_long_names_still_sort_naturally() -> None:
    """Issue 32: keys over whole 1,000-character names of digit runs made sorting 45,000 names
    take 20 s and 1.9 GB. A name's first KEY_CHARS characters decide, then its last ones, then
    the raw name: keys stay small, and the order stays natural where long names differ."""
    stem = "a1" * 490  # about 500 numbers in each name
    names = [f"{stem}p{n}.jpg" for n in (10, 2, 1, 100)]
    assert natural_sorted(names) == [f"{stem}p{n}.jpg" for n in (1, 2, 10, 100)]
    head, tail, raw = natural_key(names[0])
    assert sum(map(len, head)) + len(tail) < 2 * KEY_CHARS + 200 and raw == names[0]
    # where the first characters differ they decide, as before; the order is total
    assert natural_sorted(["b/" + stem, "a10", "a9", "A9"]) == ["A9", "a9", "a10", "b/" + stem]
    assert natural_sorted(["page", "page2", "pages", "page/1"]) == ["page", "page/1", "page2", "pages"]
    prefix = "x" * 300 + "/chapter 1/page "  # a long folder name before the pages
    pages = [f"{prefix}{n}.jpg" for n in (10, 2, 1)]
    assert natural_sorted(pages) == [f"{prefix}{n}.jpg" for n in (1, 2, 10)]


@pytest.mark.parametrize("kind", ["zip", "7z"])
def test_a_name_of_4301_digits(kind: str, tmp_path: Path) -> None:
    files = {"9" * 4301 + ".jpg": PAGE, "1.jpg": image_bytes((0, 200, 0))}
    path = (make_zip if kind == "zip" else make_7z)(tmp_path / f"b.cb{kind[0]}", files)
    with open_book(path) as book:
        assert book.pages[0].label == "1.jpg" and book.page_count == 2


# -- F2, F3: ComicInfo encodings -------------------------------------------------------------
def test_comicinfo_in_shift_jis_is_read() -> None:
    title = "ワンピース①"  # ① exists in CP932, Windows' Shift_JIS, only
    data = f'<?xml version="1.0" encoding="Shift_JIS"?><ComicInfo><Title>{title}</Title></ComicInfo>'
    assert parse_comicinfo(data.encode("cp932")).title == title


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "euc_jp", "latin-1"])
def test_comicinfo_in_other_encodings_is_read(encoding: str) -> None:
    name = {"euc_jp": "EUC-JP", "latin-1": "ISO-8859-1"}.get(encoding, encoding)
    title = "Émile" if encoding == "latin-1" else "ナルト"
    text = f'<?xml version="1.0" encoding="{name}"?><ComicInfo><Title>{title}</Title></ComicInfo>'
    assert parse_comicinfo(text.encode(encoding)).title == title


def test_comicinfo_of_an_unknown_encoding_is_read_as_utf8_or_refused() -> None:
    assert (
        parse_comicinfo(
            b'<?xml version="1.0" encoding="bogus"?><ComicInfo><Title>T</Title></ComicInfo>'
        ).title
        == "T"
    )
    with pytest.raises(ComicInfoError):
        parse_comicinfo(
            b'<?xml version="1.0" encoding="bogus"?><ComicInfo><Title>\xff\xfe\xfd</Title></ComicInfo>'
        )
    # a codec that is no text encoding is no encoding: UTF-8 too
    assert (
        parse_comicinfo(
            b'<?xml version="1.0" encoding="rot13"?><ComicInfo><Title>T</Title></ComicInfo>'
        ).title
        == "T"
    )


def test_a_dtd_is_refused_in_any_encoding() -> None:
    bomb = '<?xml version="1.0" encoding="utf-16"?><!DOCTYPE x [<!ENTITY a "aaaa">]><ComicInfo/>'
    with pytest.raises(ComicInfoError):
        parse_comicinfo(bomb.encode("utf-16"))


# -- F4, F5: PDF page trees and page boxes ----------------------------------------------------
def _pdf(
    pages_obj: bytes, page_obj: bytes = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>"
) -> bytes:
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", pages_obj, page_obj]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, obj in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % n + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.write(b"trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


@pytest.mark.parametrize(
    ("pages", "page"),
    [
        (b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>", None),  # the tree holds itself
        (b"<< /Type /Pages /Kids 7 /Count 1 >>", None),  # Kids is no array
        (
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 4294967296] >>",
        ),
    ],
)
def test_bad_pdf_page_trees_and_boxes_are_one_sentence(
    pages: bytes, page: bytes | None, tmp_path: Path
) -> None:
    path = tmp_path / "b.pdf"
    path.write_bytes(_pdf(pages, page) if page else _pdf(pages))
    assert _outcome(path) in (
        "This book is damaged and cannot be opened.",
        "Page 1 is damaged and cannot be shown.",
    )


def test_a_pdf_page_with_a_gigapixel_image_is_refused_before_drawing(tmp_path: Path) -> None:
    import zlib

    side = 40000
    image = zlib.compress(bytes(side * side // 8), 9)
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << /Im 4 0 R >> >> >>"
    )
    data = _pdf(b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page)
    extra = (
        b"4 0 obj\n<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 1 /Filter /FlateDecode /Length %d >>\nstream\n" % (side, side, len(image))
    )
    path = tmp_path / "big.pdf"
    path.write_bytes(data.replace(b"xref\n", extra + image + b"\nendstream\nendobj\nxref\n", 1))
    assert _outcome(path) == "Page 1 is too large to open safely."


# -- F8 and the other TAR bombs -------------------------------------------------------------
def _tar_bytes(headers: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    for info, data in headers:
        out.write(info.tobuf(tarfile.GNU_FORMAT) + data + b"\0" * (-len(data) % 512))
    page = tarfile.TarInfo("p.jpg")
    page.size = len(PAGE)
    out.write(page.tobuf(tarfile.GNU_FORMAT) + PAGE + b"\0" * (-len(PAGE) % 512) + b"\0" * 1024)
    return out.getvalue()


def _raw(kind: bytes, size: int, name: str = "x") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = size
    return info


def test_a_pax_header_of_digits_is_refused_at_once(tmp_path: Path) -> None:
    digits = b"9" * 20000
    path = tmp_path / "pax.cbt"
    path.write_bytes(_tar_bytes([(_raw(tarfile.XHDTYPE, len(digits)), digits)]))
    assert _outcome(path) == "This book is damaged and cannot be opened."


def test_real_pax_headers_still_open(tmp_path: Path) -> None:
    path = tmp_path / "pax.cbt"
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        info = tarfile.TarInfo("Ünïcode folder/" + "long name " * 20 + "01.jpg")
        info.size = len(PAGE)
        info.pax_headers = {"comment": "made by a test", "mtime": "1732400000.123456789"}
        tf.addfile(info, io.BytesIO(PAGE))
    assert _outcome(path) == "page decoded"


def test_a_gnu_long_name_declaring_gigabytes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.cbt"
    path.write_bytes(_tar_bytes([(_raw(tarfile.GNUTYPE_LONGNAME, 5 << 29, "././@LongLink"), b"a" * 4096)]))
    assert _outcome(path) == "This book is too large to open safely."


def test_every_kind_of_tar_entry_counts(tmp_path: Path) -> None:
    """Directories, links and FIFOs cost a listing too (3 million directories took a minute)."""
    headers = [(_raw(tarfile.DIRTYPE, 0, f"d{n}/"), b"") for n in range(60)]
    headers += [(_raw(tarfile.SYMTYPE, 0, f"l{n}"), b"") for n in range(60)]
    path = tmp_path / "dirs.cbt"
    path.write_bytes(gzip.compress(_tar_bytes(headers)))
    path = path.rename(tmp_path / "dirs.tgz")
    assert _outcome(path, Limits(max_entries=100)) == "This book is too large to open safely."
    assert _outcome(path, Limits(max_entries=1000)) == "page decoded"


def test_a_sparse_member_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sparse.cbt"
    path.write_bytes(_tar_bytes([(_raw(tarfile.GNUTYPE_SPARSE, 0, "s"), b"")]))
    assert _outcome(path) == "This book is damaged and cannot be opened."


@pytest.mark.parametrize("suffix", [".tar.gz", ".tbz2", ".txz"])
def test_a_compressed_tar_skip_bomb_stops_at_the_budget(suffix: str, tmp_path: Path) -> None:
    """One member of zeros before the page: skipping it means decompressing it."""
    zeros = 48 * MiB
    mode = {".tar.gz": "w:gz", ".tbz2": "w:bz2", ".txz": "w:xz"}[suffix]
    path = tmp_path / f"skip{suffix}"
    with tarfile.open(path, mode) as tf:  # type: ignore[call-overload]
        info = tarfile.TarInfo("a.bin")
        info.size = zeros
        tf.addfile(info, io.BytesIO(bytes(zeros)))
        info = tarfile.TarInfo("p.jpg")
        info.size = len(PAGE)
        tf.addfile(info, io.BytesIO(PAGE))
    small = Limits(min_decompression_budget=8 * MiB, max_expansion=4)
    assert _outcome(path, small) == "This book is too large to open safely."
    assert _outcome(path) == "page decoded"  # within the default budget


def test_a_compressed_tar_reads_every_page(tmp_path: Path) -> None:
    pages = {f"{n:02d}.jpg": image_bytes((n * 20, 0, 0)) for n in range(1, 8)}
    path = make_tar(tmp_path / "b.tar.gz", pages, mode="w:gz")
    with open_book(path) as book:
        for n in (6, 0, 3):  # backwards too: a gzip stream is decompressed again from its start
            assert book.load_page(n).getpixel((5, 5))[0] > (n + 1) * 20 - 12


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_one_pass_lists_the_pages_tarfile_lists(fmt: int, tmp_path: Path) -> None:
    """The single header walk names pages as tarfile would: ustar prefixes, GNU long names,
    pax paths, directories and links left out, a pax size override, a global pax header."""
    from panelvox.books.tar_adapter import TarAdapter

    path = tmp_path / "mixed.cbt"
    long = "deep/" * 30 + "Ünïcode page " * 8 + ".jpg" if fmt != tarfile.USTAR_FORMAT else "a/" * 60 + "p.jpg"
    with tarfile.open(path, "w", format=fmt) as tf:
        if fmt == tarfile.PAX_FORMAT:
            tf.pax_headers = {"comment": "global"}
        for name in ("01.jpg", long, "sub/", "link", "fifo", "zz.jpg"):
            info = tarfile.TarInfo(name)
            data = b""
            if name.endswith("/"):
                info.type = tarfile.DIRTYPE
            elif name == "link":
                info.type, info.linkname = tarfile.SYMTYPE, "01.jpg"
            elif name == "fifo":
                info.type = tarfile.FIFOTYPE
            else:
                data = PAGE + name.encode()
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    with tarfile.open(path) as tf:
        expected = [(m.name, tf.extractfile(m).read()) for m in tf if m.isreg()]  # type: ignore[union-attr]
    adapter = TarAdapter(path, Limits())
    try:
        got = [(e.name, adapter.read(e, 1 << 20)) for e in reversed(adapter.entries())][::-1]
    finally:
        adapter.close()
    assert got == expected
    assert [name for name, _ in got] == ["01.jpg", long, "zz.jpg"]


def test_a_tar_cut_inside_a_page_says_that_page_is_damaged(tmp_path: Path) -> None:
    path = make_tar(tmp_path / "b.cbt", {"01.jpg": PAGE, "02.jpg": PAGE})
    with tarfile.open(path) as tf:
        second = tf.getmember("02.jpg").offset_data
    path.write_bytes(path.read_bytes()[: second + len(PAGE) // 2])  # into page 2's data
    with open_book(path) as book:
        book.load_page(0)
        with pytest.raises(UnreadablePage):
            book.load_page(1)


def test_a_file_that_is_no_tar_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "no.cbt"
    path.write_bytes(b"this is not a tar archive at all" * 40)
    assert _outcome(path) == "This book is damaged and cannot be opened."


# -- solid archives and long listings ---------------------------------------------------------
@pytest.mark.parametrize("kind", ["7z", "rar"])
def test_a_solid_bomb_is_refused_at_open(kind: str, tmp_path: Path) -> None:
    files = {"a.bin": bytes(24 * MiB), "p.jpg": PAGE}
    path = (make_7z if kind == "7z" else make_rar)(tmp_path / f"solid.cb{kind[0]}", files)
    small = Limits(min_decompression_budget=8 * MiB, max_expansion=4)
    assert _outcome(path, small) == "This book is too large to open safely."


def test_zip_entries_are_counted_before_zipfile_lists_them(tmp_path: Path) -> None:
    path = tmp_path / "many.cbz"
    with zipfile.ZipFile(path, "w") as zf:
        for n in range(150):
            zf.writestr(f"d{n}/", b"")  # folders count too
        zf.writestr("p.jpg", PAGE)
    assert _count_directory(path, 10_000) == 151
    assert _count_directory(path, 20) == 21  # stops counting past the limit
    assert _outcome(path, Limits(max_entries=100)) == "This book has too many files to open safely."


# -- pages whose decoding costs too much ------------------------------------------------------
def test_a_jpeg_with_too_many_scans_is_refused_before_decoding(tmp_path: Path) -> None:
    """The scan count is read from the bytes: FF DA starts each scan (here the extra ones
    sit in a comment, which the count includes: it is an upper bound)."""
    buf = io.BytesIO()
    Image.new("RGB", (64, 64), (10, 20, 30)).save(buf, "JPEG", progressive=True)
    data = buf.getvalue()
    comment = b"\xff\xda" * (page_decoder.MAX_JPEG_SCANS + 1)
    hostile = data[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + data[2:]
    path = make_zip(tmp_path / "scans.cbz", {"p.jpg": hostile, "q.jpg": data})
    with open_book(path) as book:
        with pytest.raises(UnreadablePage) as err:
            book.load_page(0)
        assert err.value.message == "Page 1 is too large to open safely."
        assert book.load_page(1).size == (64, 64)  # a real progressive JPEG still reads


@pytest.mark.parametrize("mode", ["F", "I;16", "I"])
def test_deep_pages_convert_in_strips_to_the_same_picture(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(1)
    if mode == "F":
        arr = rng.random((37, 23)).astype(np.float32)
        arr[3, 4] = np.nan
        im = Image.fromarray(arr, mode="F")
    elif mode == "I;16":
        im = Image.fromarray(rng.integers(0, 65535, (37, 23), dtype=np.uint16))
        assert im.mode == "I;16"
    else:
        im = Image.fromarray(rng.integers(0, 65535, (37, 23)).astype(np.int32), mode="I")
    whole = np.asarray(page_decoder.to_rgb(im))
    monkeypatch.setattr(page_decoder, "_STRIP_PIXELS", 50)  # two rows at a time
    assert np.array_equal(np.asarray(page_decoder.to_rgb(im)), whole)
    assert whole.dtype == np.uint8 and whole.shape == (37, 23, 3) and whole.max() > 200


def test_the_limits_errors_are_resource_limits(tmp_path: Path) -> None:
    path = tmp_path / "long.cbt"
    path.write_bytes(_tar_bytes([(_raw(tarfile.GNUTYPE_LONGNAME, 1 << 20, "././@LongLink"), b"a" * 4096)]))
    with pytest.raises(ResourceLimitExceeded):
        open_book(path)


def test_a_tiff_cut_into_too_many_tiles_is_refused_before_pillow_lists_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.25 million 4 x 4 tiles in an 18 MB file took Pillow 23 s and 860 MB (issue 20)."""
    path = make_zip(tmp_path / "tiles.cbz", {"p.tif": tiled_tiff(64, 4), "q.jpg": PAGE})
    with open_book(path) as book:
        assert book.load_page(0).size == (64, 64)  # 256 tiles: a page like any other
    monkeypatch.setattr(page_decoder, "MAX_TIFF_PIECES", 100)
    with open_book(path) as book:
        with pytest.raises(UnreadablePage) as err:
            book.load_page(0)
        assert err.value.message == "Page 1 is too large to open safely."
        assert book.load_page(1).size == (40, 60)
