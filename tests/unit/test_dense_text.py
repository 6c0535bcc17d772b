"""Pages of small running text (credits, a letters page): found from the detections alone,
announced with their size, read only on request."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from text_pages import text_page

from panelvox.analysis.pipeline import analyze_page, default_stages, empty_analysis
from panelvox.analysis.text_stage import DenseText, TextStage, dense_notice, dense_text, is_dense_notice
from panelvox.model import ReadingDirection
from panelvox.models.text_boxes import Detection
from panelvox.narration.prefs import NarrationPrefs
from panelvox.narration.script import script_page

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stage() -> TextStage:
    return TextStage()


def _words_said(notice: str) -> int:
    match = re.search(r"about ([\d,]+) words", notice)
    assert match, notice
    return int(match.group(1).replace(",", ""))


@pytest.mark.slow
def test_a_letters_page_is_announced_with_its_size_not_poured_out() -> None:
    image, drawn = text_page(2000)
    assert drawn == 2000
    analysis = analyze_page(image, page=1, direction=ReadingDirection.LTR, stages=default_stages())
    assert len(analysis.notices) == 1
    notice = analysis.notices[0]
    assert notice.startswith("A page of text, about ")
    assert abs(_words_said(notice) - drawn) <= 0.15 * drawn
    # the heading is lettering and is read; the running text is not
    assert [ln.text for ln in analysis.lines] == ["LETTERS TO THE EDITOR"]
    said = [u.text for u in script_page(analysis, NarrationPrefs())]
    assert said[0] == notice
    assert sum(len(t.split()) for t in said) < 30


@pytest.mark.slow
def test_running_text_is_read_on_request() -> None:
    image, drawn = text_page(500, (760, 900), columns=2, seed=3)
    reading = TextStage(read_dense=True)
    out = reading(image, empty_analysis(image, 1, ReadingDirection.LTR))
    assert out.notices == ()
    words = sum(len(ln.text.split()) for ln in out.lines)
    assert words >= 0.9 * drawn
    assert reading.params != TextStage().params  # a separate entry in the analysis cache


@pytest.mark.slow
def test_comic_pages_are_not_running_text(stage: TextStage) -> None:
    with zipfile.ZipFile(REPO / "assets" / "sample.cbz") as z:
        names = sorted(n for n in z.namelist() if n.endswith(".jpg"))
        for name in names:
            page = np.asarray(Image.open(io.BytesIO(z.read(name))).convert("RGB"))
            dets = [d for d in stage.engine.detect(page) if min(d.width, d.height) >= 6]
            assert dense_text(dets, page.shape[0]) is None, name


def _line(x: float, y: float, w: float, h: float) -> Detection:
    quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], dtype=np.float32)
    return Detection(quad, 0.9)


def test_many_short_balloon_lines_are_not_running_text() -> None:
    balloons = [_line(40 + 200 * (i % 5), 30 + 40 * (i // 5), 150, 22) for i in range(60)]
    assert dense_text(balloons, 1800) is None


def test_a_block_beside_comic_lettering_is_a_block_and_its_words_are_counted() -> None:
    body = [_line(50, 1000 + 16 * i, 400, 12) for i in range(45)]  # ~8.5 words a line
    lettering = [_line(40 + 120 * (i % 6), 40 + 60 * (i // 6), 100, 30) for i in range(60)]
    found = dense_text(body + lettering, 1800)
    assert found is not None and not found.whole_page
    assert found.lines == frozenset(range(45))
    assert 300 <= found.words <= 450
    assert dense_notice(found).startswith("A block of text, about ")
    assert dense_notice(DenseText(frozenset(), 1987, True)) == "A page of text, about 2,000 words."


@pytest.mark.slow
def test_narrate_announces_a_page_of_text_and_says_once_how_to_read_it(tmp_path: Path) -> None:
    from panelvox.cli.narrate import NarrateOptions, run_narrate

    image, _drawn = text_page(300, (760, 900), columns=2, seed=3)
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, "PNG")
    book = tmp_path / "letters.cbz"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("001.png", buf.getvalue())
    out, err = io.StringIO(), io.StringIO()
    assert run_narrate(NarrateOptions(book, progress=False), out=out, err=err) == 0
    assert "A page of text, about " in out.getvalue()
    assert err.getvalue() == "Pages of text were announced, not read: --read-text-pages reads them.\n"
    out, err = io.StringIO(), io.StringIO()
    assert run_narrate(NarrateOptions(book, read_dense=True, progress=False), out=out, err=err) == 0
    assert "A page of text" not in out.getvalue() and err.getvalue() == ""
    assert len(out.getvalue().split()) > 200  # the running text itself


def test_the_announcement_is_told_apart_from_other_notices() -> None:
    """The reader offers T after this sentence, and only after it."""
    assert is_dense_notice(dense_notice(DenseText(frozenset(), 1987, True)))
    assert is_dense_notice(dense_notice(DenseText(frozenset(), 37, False)))
    assert not is_dense_notice("Part of this page could not be analysed (text).")
    assert not is_dense_notice("A page of text, about many words.")
