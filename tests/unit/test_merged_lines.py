"""Lines the detector ran together into one box are detected and read again on their own."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from panelvox.analysis.tilted_text import reread_merged
from panelvox.model import Image
from panelvox.models.ocr import Detection, Recognition

WORDS = {"i", "have", "to", "try", "on", "my", "new", "red", "coat", "for", "size", "next", "hello", "there"}


def is_word(token: str) -> bool:
    return token.lower() in WORDS


def det(x0: float, y0: float, x1: float, y1: float) -> Detection:
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
    return Detection(quad, 0.9)


PAGE: Image = np.full((400, 600, 3), 255, np.uint8)
ROWS = ("I HAVE TO TRY ON", "MY NEW RED COAT", "FOR SIZE NEXT")


def scripted() -> tuple[
    list[Image], Callable[[Image], list[Detection]], Callable[[Sequence[Image]], list[Recognition]]
]:
    """A detector that finds three stacked rows in whatever crop it is given, and a reader
    that reads them in turn; ``calls`` records the crops detected."""
    calls: list[Image] = []

    def detect(crop: Image) -> list[Detection]:
        calls.append(crop)
        w = crop.shape[1]
        return [det(8, 5 + 20 * k, w - 8, 23 + 20 * k) for k in range(3)]

    def read(crops: Sequence[Image]) -> list[Recognition]:
        return [Recognition(ROWS[k % 3], 0.95) for k in range(len(crops))]

    return calls, detect, read


def normal_lines() -> list[tuple[Detection, Recognition, bool]]:
    return [
        (det(50, 20 + 30 * k, 300, 40 + 30 * k), Recognition("HELLO THERE", 0.99), False) for k in range(3)
    ]


def test_a_thick_box_read_as_a_garble_is_read_again_as_its_lines() -> None:
    calls, detect, read = scripted()
    merged = (det(100, 200, 400, 260), Recognition("IHANEWTETOCONT", 0.52), False)
    # the page pass also read part of the middle row on its own: the same words twice
    twice = (det(150, 222, 300, 238), Recognition("RED COAT", 0.9), False)
    out = reread_merged(PAGE, [*normal_lines(), merged, twice], detect, read, is_word)
    texts = [r.text for _d, r, _v in out]
    assert texts == ["HELLO THERE"] * 3 + list(ROWS)
    assert len(calls) == 1
    # the new lines lie where the box was, in page pixels
    ys = [float(d.quad[:, 1].min()) for d, _r, _v in out[3:]]
    assert all(195 <= y <= 260 for y in ys) and ys == sorted(ys)


def test_a_thick_box_read_as_words_is_left_alone() -> None:
    calls, detect, read = scripted()
    title = (det(100, 200, 400, 260), Recognition("HELLO THERE", 0.98), False)
    lines = [*normal_lines(), title]
    assert reread_merged(PAGE, lines, detect, read, is_word) == lines
    assert calls == []


def test_a_thick_box_read_unsurely_as_a_word_of_each_line_is_read_again() -> None:
    # "WE ALL / STUCK!" read as one line "STU ALL": words, but unsure
    calls, detect, read = scripted()
    merged = (det(100, 200, 400, 260), Recognition("TRY NEW", 0.71), False)
    out = reread_merged(PAGE, [*normal_lines(), merged], detect, read, is_word)
    assert [r.text for _d, r, _v in out] == ["HELLO THERE"] * 3 + list(ROWS)
    assert len(calls) == 1


def test_a_line_on_a_new_rows_ink_is_dropped_though_boxed_taller() -> None:
    # the page pass boxed part of the middle row twice as tall as the new line's box: by
    # area under half of it lies on the new line, by row all of it
    _calls, detect, read = scripted()
    merged = (det(100, 200, 400, 260), Recognition("IHANEWTETOCONT", 0.52), False)
    tall = (det(250, 212, 380, 246), Recognition("RED COAT", 0.9), False)
    out = reread_merged(PAGE, [*normal_lines(), merged, tall], detect, read, is_word)
    assert [r.text for _d, r, _v in out] == ["HELLO THERE"] * 3 + list(ROWS)


def test_what_a_line_read_twice_holds_past_the_new_lines_end_is_kept() -> None:
    # "REDUCED, TO NINETY-EIG" found anew, "NINETY-EIGHT" by the page pass: read once, whole
    _calls, detect, read = scripted()
    merged = (det(100, 200, 400, 260), Recognition("IHANEWTETOCONT", 0.52), False)
    further = (det(330, 216, 430, 240), Recognition("COATS", 0.9), False)
    out = reread_merged(PAGE, [*normal_lines(), merged, further], detect, read, is_word)
    assert [r.text for _d, r, _v in out] == ["HELLO THERE"] * 3 + [ROWS[0], "MY NEW RED COATS", ROWS[2]]
    assert float(out[4][0].quad[:, 0].max()) == 430
