"""Pages of small running text the project renders itself (a credits page, a letters page),
for the dense-text tests and the speed benchmark; deterministic for a given seed."""

from __future__ import annotations

import random
from importlib import resources

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont


def _words() -> list[str]:
    text = resources.files("panelvox.analysis").joinpath("data/english_words.txt").read_text("utf-8")
    return [w for w in text.split() if w.isalpha() and 3 <= len(w) <= 9]


def text_page(
    words: int = 2000,
    size: tuple[int, int] = (992, 1772),
    *,
    columns: int = 3,
    font_size: int = 11,
    seed: int = 7,
) -> tuple[npt.NDArray[np.uint8], int]:
    """An RGB page of ``words`` small words set in ``columns`` columns under a heading, as
    (pixels, words drawn): the words that fit, when the page is full before."""
    rng = random.Random(seed)
    vocab = _words()
    w, h = size
    page = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(page)
    draw.text(
        (w // 2, 30), "LETTERS TO THE EDITOR", fill="black", anchor="mt", font=ImageFont.load_default(34)
    )
    font = ImageFont.load_default(font_size)
    margin, gap, top = 36, 28, 90
    col_w = (w - 2 * margin - (columns - 1) * gap) // columns
    line_h = round(font_size * 1.3)
    drawn = 0
    for c in range(columns):
        x0 = margin + c * (col_w + gap)
        y = top
        while y + line_h < h - margin and drawn < words:
            line: list[str] = []
            while drawn < words:
                word = rng.choice(vocab).upper() if rng.random() < 0.05 else rng.choice(vocab)
                if draw.textlength(" ".join([*line, word]), font=font) > col_w:
                    break
                line.append(word)
                drawn += 1
            draw.text((x0, y), " ".join(line), fill="black", font=font)
            y += line_h
            if rng.random() < 0.08:  # a paragraph break
                y += line_h // 2
    return np.asarray(page, dtype=np.uint8), drawn
