"""A line the detector ran across a balloon's outline, cut there: on drawn lettering, read
by the real recogniser."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from panelvox.analysis.letter_gaps import walled_gap
from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.line_cross import cut_at_outlines, outline_column, stroke_mask
from panelvox.models.ocr import Detection, OcrEngine, Recognition
from panelvox.models.text_boxes import axis_box

FONT = ImageFont.load_default(size=30)


def _box(x0: float, y0: float, x1: float, y1: float) -> Detection:
    return Detection(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32), 0.9)


def _rows(outline: bool) -> np.ndarray:
    """Three rows of two balloons' lettering side by side; with ``outline``, the balloons'
    shared outline drawn between them from above the first row to below the last."""
    page = Image.new("RGB", (640, 200), "white")
    draw = ImageDraw.Draw(page)
    for y, (a, b) in zip(
        (20, 80, 140),
        (("WHY, HE'S", "AND HE"), ("ISLAND PIRATE", "WAS ABOARD"), ("WORST", "HIS SHIP")),
        strict=True,
    ):
        draw.text((20, y), a, fill="black", font=FONT)
        draw.text((340, y), b, fill="black", font=FONT)
    if outline:
        draw.line([(318, 0), (322, 199)], fill="black", width=3)
    return np.asarray(page, dtype=np.uint8)


def test_an_outline_crossing_a_row_is_found_between_its_two_runs_of_letters() -> None:
    row = _box(16, 78, 560, 112)
    x = outline_column(_rows(outline=True), row)
    assert x is not None and 314 <= x <= 326
    # letters alone, however their strokes line up over the rows, are no outline
    assert outline_column(_rows(outline=False), row) is None


def test_the_line_is_cut_there_and_each_part_read_on_its_own() -> None:
    engine = OcrEngine()
    lexicon = LetteringLexicon(WordList.load())
    image = _rows(outline=True)
    line = (_box(16, 78, 560, 112), Recognition("ISLAND PIRATE WAS ABOARD", 0.9), False)
    out = cut_at_outlines(image, [line], lambda c: engine.recognize(c, lexicon))
    assert [r.text for _d, r, _v in out] == ["ISLAND PIRATE", "WAS ABOARD"]
    # a line no outline crosses is left as it was
    plain = _rows(outline=False)
    assert cut_at_outlines(plain, [line], lambda c: engine.recognize(c, lexicon)) == [line]


def test_lettering_on_a_dark_screentone_is_not_cut_between_its_words() -> None:
    # white letters outlined in black on a dark tone: the tone is "ink" from top to bottom
    # between the words, but no thin stroke on light paper
    page = Image.new("RGB", (640, 200), (80, 80, 80))
    draw = ImageDraw.Draw(page)
    for y in (20, 80, 140):
        draw.text((20, y), "DANG! I'D BET", fill="white", font=FONT, stroke_width=2, stroke_fill="black")
        draw.text((340, y), "MY BOOTS", fill="white", font=FONT, stroke_width=2, stroke_fill="black")
    assert outline_column(np.asarray(page, dtype=np.uint8), _box(16, 78, 560, 112)) is None


def _page_of(light: np.ndarray) -> np.ndarray:
    """An RGB page from a mask (1 paper, 0 stroke)."""
    return np.repeat(np.where(light > 0, 255, 0).astype(np.uint8)[:, :, None], 3, axis=2)


def _strokes(light: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> None:
    """Letters: short strokes within the row, a gap between each."""
    for x in range(x0, x1 - 10, 16):
        light[y0 + 4 : y1 - 4, x : x + 3] = 0
        light[y0 + 4 : y0 + 7, x : x + 10] = 0


def _column(light: np.ndarray, box: tuple[int, int, int, int]) -> int | None:
    image = _page_of(light)
    return outline_column(image, _box(*box), stroke_mask(image))


def test_an_outline_that_curves_away_below_the_row_is_found() -> None:
    # "HOW WONDERFUL! TERRIFIC!": the shared outline of two touching balloons runs down
    # through the row from the balloons' top rim, on to their bottom
    light = np.ones((300, 800), np.uint8)
    _strokes(light, 105, 400, 100, 140)
    _strokes(light, 420, 575, 100, 140)
    light[95:98, 90:600] = 0  # the balloons' top rim
    light[95:200, 409:412] = 0  # the outline between them
    assert _column(light, (100, 100, 580, 140)) == 410


def test_letters_a_short_stroke_a_rim_or_dark_art_are_no_outline() -> None:
    light = np.ones((300, 800), np.uint8)
    box = (100, 100, 580, 140)
    _strokes(light, 105, 575, 100, 140)
    assert _column(light, box) is None
    light[95:150, 409:412] = 0  # a stroke only a little past the row (a tail's root, a crease)
    assert _column(light, box) is None
    light[95:150, 409:412] = 1
    light[60:200, 102:105] = 0  # the balloon's own rim at the line's start
    assert _column(light, box) is None
    light[60:200, 102:105] = 1
    light[40:104, 380:440] = 0  # dark art above the balloon that one letter touches
    assert _column(light, box) is None


def _two_balloons(between: str | None) -> np.ndarray:
    """Two balloons cut off by a panel's top border, lettered on one row ("HOW WONDERFUL!",
    "TERRIFIC!"): ``between`` "art" (a tint between their rims), "box" (the first a tinted
    caption box whose border is all between them) or None (one balloon, a wide gap only)."""
    page = Image.new("RGB", (700, 140), (235, 225, 200))
    draw = ImageDraw.Draw(page)
    if between == "art":
        draw.rectangle((0, 10, 699, 139), fill=(90, 150, 190))
        draw.ellipse((-20, -60, 392, 90), fill=(250, 240, 215), outline="black", width=3)
        draw.ellipse((404, -60, 720, 90), fill=(250, 240, 215), outline="black", width=3)
    elif between == "box":
        draw.rectangle((0, 10, 364, 75), fill=(240, 150, 70), outline="black", width=3)
    draw.line([(0, 10), (699, 10)], fill="black", width=4)
    draw.text((30, 28), "HOW WONDERFUL!", fill="black", font=FONT)
    draw.text((430, 28), "TERRIFIC!", fill="black", font=FONT)
    return np.asarray(page, dtype=np.uint8)


def test_two_balloons_whose_rims_the_border_cut_are_parted_at_the_art_between_them() -> None:
    row = _box(26, 26, 600, 62)
    first_ends = 30 + FONT.getbbox("HOW WONDERFUL!")[2]
    for between in ("art", "box"):
        x = walled_gap(_two_balloons(between), axis_box(row))
        assert x is not None and first_ends < x < 430, between
    # a gap as wide on the balloon's own paper, nothing across it, is lettering's (a pause)
    assert walled_gap(_two_balloons(None), axis_box(row)) is None
    engine = OcrEngine()
    lexicon = LetteringLexicon(WordList.load())
    line = (row, Recognition("HOW WONDERFUL!TERRIFIC!", 0.9), False)
    out = cut_at_outlines(_two_balloons("art"), [line], lambda c: engine.recognize(c, lexicon))
    assert [r.text for _d, r, _v in out] == ["HOW WONDERFUL!", "TERRIFIC!"]


def test_words_spaced_evenly_on_a_tint_are_not_parted() -> None:
    page = Image.new("RGB", (700, 100), (90, 150, 190))
    draw = ImageDraw.Draw(page)
    draw.text((30, 28), "HOW  WONDERFUL  TERRIFIC", fill="black", font=FONT)
    assert walled_gap(np.asarray(page, dtype=np.uint8), (26, 26, 600, 62)) is None
