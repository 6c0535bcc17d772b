"""Lettering of two balloons side by side, read by the detector as one line, cut at the
outline between them (drawn pages)."""

from __future__ import annotations

import numpy as np

from panelvox.analysis.balloon_split import cut_at_outlines
from panelvox.model import BBox, TextLine

H, W = 300, 800


def _line(box: tuple[int, int, int, int], text: str) -> TextLine:
    return TextLine(id="t1", bbox=BBox(*box), text=text, confidence=0.9, stage="text")


def _lettering(light: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> None:
    """Letters: short strokes within the row, a gap between each."""
    for x in range(x0, x1 - 10, 16):
        light[y0 + 4 : y1 - 4, x : x + 3] = 0
        light[y0 + 4 : y0 + 7, x : x + 10] = 0


def test_an_outline_between_two_balloons_cuts_the_line_at_a_space() -> None:
    # "HOW WONDERFUL! TERRIFIC!": the shared outline of two touching balloons runs down
    # through the row, from the balloons' top rim to below the line
    light = np.ones((H, W), np.uint8)
    line = _line((100, 100, 580, 140), "HOW WONDERFUL! TERRIFIC!")
    _lettering(light, 105, 400, 100, 140)
    _lettering(light, 420, 575, 100, 140)
    light[95:98, 90:600] = 0  # the balloons' top rim
    light[95:200, 409:412] = 0  # the outline between them, on down to their bottom
    left, right = cut_at_outlines([line], light)
    assert (left.text, right.text) == ("HOW WONDERFUL!", "TERRIFIC!")
    assert left.bbox.x1 == right.bbox.x0 == 410.0 and left.id != right.id
    assert left.bbox.x0 == 100 and right.bbox.x1 == 580


def test_letters_a_short_stroke_or_a_rim_at_the_end_leave_the_line_whole() -> None:
    light = np.ones((H, W), np.uint8)
    line = _line((100, 100, 580, 140), "HOW WONDERFUL! TERRIFIC!")
    _lettering(light, 105, 575, 100, 140)
    assert cut_at_outlines([line], light) == (line,)
    light[95:150, 409:412] = 0  # a stroke only a little past the row (a tail's root, a crease)
    assert cut_at_outlines([line], light) == (line,)
    light[95:150, 409:412] = 1
    light[60:200, 102:105] = 0  # the balloon's own rim at the line's start
    assert cut_at_outlines([line], light) == (line,)
    light[60:200, 102:105] = 1
    light[40:104, 380:440] = 0  # dark art above the balloon that one letter touches
    assert cut_at_outlines([line], light) == (line,)
    light[40:104, 380:440] = 1
    # a single word across an outline has no space to cut at
    word = _line((100, 100, 580, 140), "WONDERFULTERRIFIC")
    light[95:200, 409:412] = 0
    assert cut_at_outlines([word], light) == (word,)


def test_three_balloons_in_a_row_give_three_pieces() -> None:
    light = np.ones((H, W), np.uint8)
    line = _line((40, 100, 760, 140), "AH HONEY TERRA FIRMA PEACE NOW")
    _lettering(light, 45, 755, 100, 140)
    for x in (290, 530):
        light[100:140, x - 8 : x + 8] = 1  # paper either side of the outline
        light[90:200, x : x + 3] = 0
    assert [p.text for p in cut_at_outlines([line], light)] == ["AH HONEY", "TERRA FIRMA", "PEACE NOW"]
