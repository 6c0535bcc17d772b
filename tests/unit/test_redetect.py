"""Lettering inside a balloon that no read line covers is detected and read again enlarged."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PilImage
from PIL import ImageDraw, ImageFont

from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.redetect import clean, redetect
from panelvox.analysis.text_stage import TextStage
from panelvox.model import Image
from panelvox.models.ocr import Detection, OcrEngine, Recognition
from panelvox.models.text_boxes import axis_box

ROWS = ("WELL IF IT ISN'T", "MY OLD FRIEND", "HE WILL WIND UP", "THIS WAY")


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine()


@pytest.fixture(scope="module")
def lexicon() -> LetteringLexicon:
    return LetteringLexicon(WordList.load())


def balloon_page(rows: Sequence[str] = ROWS, size: int = 22) -> Image:
    """A page of grey art with one white balloon lettered in ``rows``."""
    page = PilImage.new("RGB", (1200, 1600), (150, 170, 150))
    draw = ImageDraw.Draw(page)
    for k in range(0, 1600, 9):  # hatching in the art
        draw.line([(0, k), (1200, k + 40)], fill=(90, 100, 90), width=1)
    draw.ellipse((80, 100, 560, 420), fill="white", outline="black", width=3)
    font = ImageFont.load_default(size)
    for k, row in enumerate(rows):
        draw.text((320, 170 + k * round(size * 1.45)), row, fill="black", font=font, anchor="mt")
    return np.asarray(page, dtype=np.uint8)


def page_lines(
    engine: OcrEngine, lexicon: LetteringLexicon, image: Image
) -> list[tuple[Detection, Recognition, bool]]:
    dets = engine.detect(image)
    recs = engine.recognize([_crop(image, d) for d in dets], lexicon)
    return [(d, r, False) for d, r in zip(dets, recs, strict=True)]


def _crop(image: Image, d: Detection) -> Image:
    from panelvox.models.ocr import crop_quad

    return crop_quad(image, d.quad, vertical=False)


def run(
    engine: OcrEngine,
    lexicon: LetteringLexicon,
    image: Image,
    lines: list[tuple[Detection, Recognition, bool]],
    calls: list[Image],
) -> list[str]:
    def detect(crop: Image) -> list[Detection]:
        calls.append(crop)
        return engine.detect(crop, min_side=max(crop.shape[:2]))

    out = redetect(image, lines, detect, lambda c: engine.recognize(c, lexicon), lexicon)
    return [r.text for _d, r, _v in sorted(out, key=lambda ln: float(ln[0].quad[:, 1].min()))]


@pytest.mark.slow
def test_a_balloon_read_whole_is_not_detected_again(engine: OcrEngine, lexicon: LetteringLexicon) -> None:
    image = balloon_page()
    lines = page_lines(engine, lexicon, image)
    assert [r.text for _d, r, _v in lines] != []
    calls: list[Image] = []
    texts = run(engine, lexicon, image, lines, calls)
    assert calls == []
    assert len(texts) == len(lines)


@pytest.mark.slow
def test_a_row_of_the_balloon_no_line_covers_is_found_and_read(
    engine: OcrEngine, lexicon: LetteringLexicon
) -> None:
    image = balloon_page()
    lines = page_lines(engine, lexicon, image)
    # the page's pass found every row but the second
    missed = [ln for ln in lines if "FRIEND" in ln[1].text]
    assert len(missed) == 1
    kept = [ln for ln in lines if ln is not missed[0]]
    calls: list[Image] = []
    texts = run(engine, lexicon, image, kept, calls)
    # one region, enlarged; only the rows round the uncovered strokes, not the whole balloon
    assert len(calls) == 1
    assert calls[0].shape[1] > 1.5 * (560 - 80)
    assert calls[0].shape[0] < calls[0].shape[1] / (560 - 80) * (420 - 100)
    assert texts == ["WELL IF IT ISN'T", "MY OLD FRIEND", "HE WILL WIND UP", "THIS WAY"]


def test_running_text_left_unread_is_not_looked_at_again(
    engine: OcrEngine, lexicon: LetteringLexicon
) -> None:
    image = balloon_page()
    lines = page_lines(engine, lexicon, image)
    # the second row left unread on purpose (running text announced by its size)
    skipped = next(ln for ln in lines if "FRIEND" in ln[1].text)
    kept = [ln for ln in lines if ln is not skipped]
    calls: list[Image] = []

    def detect(crop: Image) -> list[Detection]:
        calls.append(crop)
        return engine.detect(crop, min_side=max(crop.shape[:2]))

    out = redetect(
        image, kept, detect, lambda c: engine.recognize(c, lexicon), lexicon, unread=[axis_box(skipped[0])]
    )
    assert calls == []
    assert len(out) == len(kept)


@pytest.mark.slow
def test_a_small_word_between_read_ones_joins_its_line(engine: OcrEngine, lexicon: LetteringLexicon) -> None:
    image = balloon_page()
    lines = page_lines(engine, lexicon, image)
    # the page's pass read the second row without its first word, its box starting after it
    k = next(i for i, ln in enumerate(lines) if "FRIEND" in ln[1].text)
    d = lines[k][0]
    quad = d.quad.copy()
    quad[[0, 3], 0] += 0.3 * (quad[1, 0] - quad[0, 0])
    lines[k] = (Detection(quad, d.score), Recognition("OLD FRIEND", 0.98), False)
    texts = run(engine, lexicon, image, lines, [])
    assert "MY OLD FRIEND" in texts
    assert "OLD FRIEND" not in texts


@pytest.mark.slow
def test_ink_outside_any_balloon_or_block_is_left_alone(engine: OcrEngine, lexicon: LetteringLexicon) -> None:
    image = balloon_page()
    lines = page_lines(engine, lexicon, image)
    art = image.copy()
    art[700:720, 600:640] = 0  # a mark in the art, far from the lettering
    calls: list[Image] = []
    run(engine, lexicon, art, lines, calls)
    assert calls == []


def test_an_unsure_or_unknown_reading_is_not_said(lexicon: LetteringLexicon) -> None:
    assert clean(Recognition("MY OLD FRIEND", 0.95), lexicon)
    assert not clean(Recognition("MY OLD FRIEND", 0.6), lexicon)
    assert not clean(Recognition("MY QLXD FRIEND", 0.97), lexicon)
    assert not clean(Recognition("X", 0.99), lexicon)
    # a name the page's own lines read surely counts as a word
    assert clean(Recognition("LITTLE JAFARA", 0.99), lexicon, frozenset({"JAFARA"}))


@pytest.mark.slow
def test_caption_lines_the_page_pass_misses_are_read(engine: OcrEngine, shared_data: Path) -> None:
    """A public-domain page (1945): the page's pass misses two lines of a tall caption."""
    page = shared_data / "cib" / "images" / "BusterBrown_004_TheLeathernCordOfMagic_10_01.jpeg"
    image = np.asarray(PilImage.open(page).convert("RGB"), dtype=np.uint8)
    lines = TextStage(engine).read_lines(image, head="latin")
    texts = [r.text for _d, r, _v in lines]
    assert "EAGLE TO STARTLE" in texts
    assert "LITTLE JAFARA" in texts
