"""Mutated archives: whatever the bytes, only PanelvoxError may escape open_book/load_page."""

from __future__ import annotations

import io
import random
import tarfile
import tempfile
import zipfile
from pathlib import Path

import py7zr
import pytest
from book_mutations import make_seeds, mutate, try_book
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from panelvox.books import Limits, open_book
from panelvox.errors import PanelvoxError

MiB = 1024 * 1024
# Small limits keep any "bomb" the fuzzer stumbles on cheap.
LIMITS = Limits(max_entry_bytes=4 * MiB, max_pixels=4_000_000, cache_bytes=4 * MiB)


def _page(color: tuple[int, int, int], fmt: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (24, 32), color).save(buf, fmt)
    return buf.getvalue()


def _seeds() -> dict[str, bytes]:
    files = {
        "p1.jpg": _page((200, 0, 0), "JPEG"),
        "p2.png": _page((0, 200, 0), "PNG"),
        "ComicInfo.xml": b"<ComicInfo><Title>T</Title><Manga>YesAndRightToLeft</Manga></ComicInfo>",
    }
    out: dict[str, bytes] = {}
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    out["zip"] = zbuf.getvalue()
    tbuf = io.BytesIO()
    with tarfile.open(fileobj=tbuf, mode="w") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    out["tar"] = tbuf.getvalue()
    sbuf = io.BytesIO()
    with py7zr.SevenZipFile(sbuf, "w") as sz:
        for name, data in files.items():
            sz.writestr(data, name)
    out["7z"] = sbuf.getvalue()
    return out


SEEDS = _seeds()
SUFFIX = {"zip": ".cbz", "tar": ".cbt", "7z": ".cb7"}


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(sorted(SEEDS)))
    data = bytearray(SEEDS[kind])
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["flip", "truncate", "insert", "zero"]))
        if not data:
            break
        pos = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[pos] ^= draw(st.integers(1, 255))
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        else:
            data[pos : pos + 8] = b"\0" * len(data[pos : pos + 8])
    return kind, bytes(data)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_archives_fail_only_with_panelvox_errors(case: tuple[str, bytes]) -> None:
    kind, data = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("book" + SUFFIX[kind])
        path.write_bytes(data)
        try:
            book = open_book(path, limits=LIMITS)
        except PanelvoxError as exc:
            assert exc.message and "\n" not in exc.message
            return
        with book:
            for ref in book.pages:
                try:
                    book.load_page(ref.index)
                except PanelvoxError as exc:
                    assert exc.message
                book.check_page(ref.index)


IMAGE_SEEDS = {fmt: _page((30, 90, 200), fmt) for fmt in ("JPEG", "PNG", "GIF", "TIFF", "BMP", "WEBP")}


@st.composite
def mutated_image(draw: st.DrawFn) -> tuple[str, bytes]:
    fmt = draw(st.sampled_from(sorted(IMAGE_SEEDS)))
    data = bytearray(IMAGE_SEEDS[fmt])
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, len(data) - 1))
        if draw(st.booleans()):
            data[pos] ^= draw(st.integers(1, 255))
        else:
            del data[pos : pos + draw(st.integers(1, 64))]
        if not data:
            break
    return fmt, bytes(data)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_image())
def test_mutated_page_images_are_reported_per_page(case: tuple[str, bytes]) -> None:
    fmt, data = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "book.cbz"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("p1." + fmt.lower(), data)
            zf.writestr("p2.png", IMAGE_SEEDS["PNG"])
        with open_book(path, limits=LIMITS) as book:
            try:
                book.load_page(0)
            except PanelvoxError as exc:
                assert exc.message.startswith("Page 1 ")
            book.check_page(0)
            assert book.load_page(1).size == (24, 32)


# -- every format the book layer reads, with the long run's seeds and mutations -------------
BOOK_SEEDS = make_seeds()


@pytest.mark.slow
@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BOOK_SEEDS)), st.randoms(use_true_random=False))
def test_mutated_books_of_every_format_fail_only_as_one_sentence(name: str, rng: random.Random) -> None:
    """CBZ, CBT (plain, GNU, gzip), CB7, CBR, PDF and six image formats, mutated as
    scripts/fuzz_books.py does at 30,000 inputs (docs/benchmarks.md has its count)."""
    suffix, seed = BOOK_SEEDS[name]
    others = [data for _, data in BOOK_SEEDS.values()]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("book" + suffix)
        path.write_bytes(mutate(rng, seed, others))
        assert try_book(path) is None
