"""A PDF page whose drawing could take minutes is drawn by a child process with a time and
memory limit (books/pdf_render.py): the page is refused in one sentence, the book goes on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from panelvox.books import Limits, open_book
from panelvox.books.pdf_render import RENDER_FLAG
from panelvox.errors import UnreadablePage

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_hostile import pdf_strokes  # noqa: E402


def _two_pages(path: Path, strokes: int) -> Path:
    """Page 1: a few strokes; page 2: ``strokes`` strokes (a costly drawing)."""
    import pymupdf

    pdf_strokes(path, strokes)
    doc = pymupdf.open(path)
    doc.insert_page(0, text="Chapter one", width=600, height=800)
    doc.saveIncr()
    doc.close()
    return path


def test_costly_drawing_refused_and_the_book_goes_on(tmp_path: Path) -> None:
    path = _two_pages(tmp_path / "strokes.pdf", 20_000)
    with open_book(path, limits=Limits(pdf_page_seconds=0.5)) as book:
        assert book.load_page_array(0).shape[2] == 3  # drawn in place: its instructions are small
        with pytest.raises(UnreadablePage) as err:
            book.load_page(1)
        assert err.value.message == "Page 2 is too large to open safely."
        assert "drawing took over" in (err.value.detail or "")


@pytest.mark.slow
def test_drawn_apart_is_drawn_the_same(tmp_path: Path) -> None:
    path = _two_pages(tmp_path / "few.pdf", 300)
    with open_book(path) as book:
        here = book.load_page_array(1)
    with open_book(path, limits=Limits(pdf_inline_instruction_bytes=0)) as book:
        apart = book.load_page_array(1)
    assert (here == apart).all()


def test_the_frozen_app_knows_the_flag() -> None:
    """The frozen app's entry draws a page when started with the flag the adapter passes."""
    entry = (REPO / "packaging" / "entry.py").read_text(encoding="utf-8")
    assert f'sys.argv[1:2] == ["{RENDER_FLAG}"]' in entry
