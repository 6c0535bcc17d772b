"""Recognition of some of a call's crops reads each exactly as the whole call does."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from panelvox.models.ocr import OcrConfig, OcrEngine

TEXTS = [
    "I",
    "OH!",
    "WHAT?",
    "HERE WE GO",
    "SUDDENLY HE SAW IT",
    "THE QUEEN CASTS A MAGIC SPELL ON THEM",
    "NO!",
    "WE ALL STUCK",
    "A LONG LINE OF LETTERING THAT RUNS ACROSS A WHOLE WIDE CAPTION BOX",
    "HMM",
    "LOOK OUT, BUSTER!",
]


def _line(text: str, size: int) -> np.ndarray:
    font = ImageFont.load_default(size=size)
    width = int(ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(text, font=font)) + 16
    page = Image.new("RGB", (width, size + 16), "white")
    ImageDraw.Draw(page).text((8, 6), text, fill="black", font=font)
    return np.asarray(page, dtype=np.uint8)


@pytest.fixture(scope="module")
def crops() -> list[np.ndarray]:
    return [_line(t, 22 + 3 * (k % 4)) for k, t in enumerate(TEXTS)]


# rec_max_columns 700: wide batches run in parts, some of one crop
@pytest.mark.parametrize("columns", [3200, 700])
@pytest.mark.slow
def test_the_wanted_crops_read_as_among_all_and_the_others_are_not_read(
    crops: list[np.ndarray], columns: int
) -> None:
    engine = OcrEngine(OcrConfig(rec_max_columns=columns, precision="fp32"))
    whole = engine.recognize(crops)
    assert sum(r.text == t for r, t in zip(whole, TEXTS, strict=True)) >= len(TEXTS) - 2
    n = len(crops)
    for wanted in (
        [True] * n,
        [k % 2 == 0 for k in range(n)],
        [k == 4 for k in range(n)],  # one crop of a batch of eight
        [k in (0, n - 1) for k in range(n)],
        [k == 8 for k in range(n)],  # the widest
    ):
        some = engine.recognize(crops, wanted=wanted)
        for k in range(n):
            if wanted[k]:
                assert some[k] == whole[k], (k, some[k], whole[k])  # text and score, exactly
            else:
                assert some[k].text == "" and some[k].score == 0.0
