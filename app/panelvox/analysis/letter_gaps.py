"""Whether the lettering has room for a space where the word model would put one.

A letterer leaves a wider gap between words than between the letters of a word. Where the
recogniser read no space and the word-frequency model (:mod:`panelvox.analysis.spacing`)
cuts a token in two ("HONEYLAND" as "HONEY LAND", "NAWWOW" as "NAW WOW"), the line's ink
tells whether a word ends there: on the cib pages every right cut had a blank gap of at
least 0.15 line heights near it (the space the recogniser missed: "SERUM|TUBE" 0.21,
"IHOPE|THIS" 0.16), every wrong one at most 0.10 (letters of one word: "HONEY|LAND" 0.07,
"GOO|DAY" 0.05, "INTER|COMMUNICATION" none); marks smaller than a letter (periods, commas,
a neighbouring row's descenders) do not fill a gap. Where the ink has no such gap the space
put in is taken out again: the token stays as lettered.

The gap is looked for within a letter's width of where the cut falls when the line's
characters are spaced evenly over its ink (narrow marks and "I" counted narrower). Only
lines in capitals are judged: that is what the gaps were measured on (hand lettering);
mixed-case type kerns otherwise.

The other way round, a gap far wider than a word space with an outline or the art across it
is no gap inside one balloon's lettering: two balloons' rows the detector ran into one line
(:func:`walled_gap`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.model import Image

#: a blank gap this wide (line heights) or wider can be a word space; letters of one word
#: are set closer
WORD_GAP = 0.11
#: the smallest mark (line heights) that is a letter
MARK = 0.3
#: a gap this wide (line heights) between two pieces of a row, with a wall in it, and this
#: many times its next widest gap, is no word space (see :func:`walled_gap`)
WALL_GAP = 0.6
WALL_RATIO = 1.8
#: widths of characters, in letters, for placing a cut along the line
_NARROW = {**dict.fromkeys(".,'!:;\"’", 0.4), "I": 0.5, " ": 0.8}


@dataclass(frozen=True, slots=True)
class Gaps:
    """The blank columns between the ink of a line's crop: the inked extent and each gap
    as (first column, width), with the crop's height."""

    x0: int
    x1: int
    runs: tuple[tuple[int, int], ...]
    height: int


def blank_gaps(crop: Image) -> Gaps | None:
    """The gaps of a horizontal line's crop, or None where it holds no ink. Ink: darker
    than the crop's Otsu threshold, in the middle 70 % of its height, of a mark at least
    :data:`MARK` line heights tall: a letter, not a period or a comma (which sit in a word
    space: "LAND..DILLON'S") nor the tip of a neighbouring row's letter the box took in."""
    if crop.size == 0 or min(crop.shape[:2]) < 4:
        return None
    gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    threshold, _ = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    h = gray.shape[0]
    n, labels, stats, _c = cv2.connectedComponentsWithStats(
        (gray <= threshold).astype(np.uint8), connectivity=8
    )
    letter = np.zeros(n, dtype=bool)
    letter[1:] = stats[1:, cv2.CC_STAT_HEIGHT] >= MARK * h
    cols: npt.NDArray[np.bool_] = np.asarray(letter[labels][int(0.15 * h) : int(0.85 * h)].any(axis=0))
    return _gaps_of(cols, h)


def _gaps_of(cols: npt.NDArray[np.bool_], height: int) -> Gaps | None:
    """The gaps between the inked columns ``cols`` of a line ``height`` high."""
    xs = np.flatnonzero(cols)
    if xs.size < 2:
        return None
    inside = cols[xs[0] : xs[-1] + 1]
    edges = np.flatnonzero(np.diff(inside.astype(np.int8)))
    # a gap starts where ink ends and ends where ink starts again
    starts = [int(e) + 1 for e in edges if inside[e]]
    ends = [int(e) + 1 for e in edges if not inside[e]]
    runs = tuple((int(xs[0]) + s, e - s) for s, e in zip(starts, ends, strict=False))
    return Gaps(int(xs[0]), int(xs[-1]), runs, height)


def walled_gap(image: Image, box: tuple[float, float, float, float]) -> int | None:
    """The page column of a gap in the level line boxed ``box`` that no word space is: two
    pieces lettered on one row of two balloons, or of a caption box and a balloon ("HOW
    WONDERFUL! | TERRIFIC!", "MEANWHILE... | THE GUESTS"), that the detector ran together.

    A letterer spaces the words of one balloon evenly on its paper. A gap of at least
    :data:`WALL_GAP` line heights, :data:`WALL_RATIO` times the line's next widest, with a
    line's width of letters on each side, crossed by a wall (a column where all but a tenth
    of the row is darker than its paper: an outline, or the art or tint between two
    balloons) parts two pieces. Letters are the marks that stay within the row (a quarter of
    its height beyond it at most); an outline runs on past it. None where there is no such
    gap."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = (round(v) for v in box)
    x0, x1 = max(0, x0), min(width, x1)
    h = y1 - y0
    if h < 6 or x1 - x0 < 3 * h or y0 < 0 or y1 > height:
        return None
    top, bottom = max(0, y0 - h // 2), min(height, y1 + h // 2)
    gray = cv2.cvtColor(np.ascontiguousarray(image[top:bottom, x0:x1]), cv2.COLOR_RGB2GRAY)
    r0, r1 = y0 - top, y1 - top
    row = gray[r0:r1]
    threshold, _ = cv2.threshold(row, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    _n, labels, stats, _c = cv2.connectedComponentsWithStats(
        (gray <= threshold).astype(np.uint8), connectivity=8
    )
    first, tall = stats[:, cv2.CC_STAT_TOP], stats[:, cv2.CC_STAT_HEIGHT]
    letter = (first >= r0 - 0.25 * h) & (first + tall <= r1 + 0.25 * h) & (tall >= MARK * h)
    letter[0] = False
    gaps = _gaps_of(np.asarray(letter[labels[r0:r1]].any(axis=0)), h)
    if gaps is None:
        return None
    wall = (row < 0.8 * float(np.percentile(row, 90))).mean(axis=0) >= 0.9
    for s, w in gaps.runs:
        others = [w2 for s2, w2 in gaps.runs if s2 != s]
        wide = w >= WALL_GAP * h and w >= WALL_RATIO * max(others, default=0)
        if wide and s - gaps.x0 >= h and gaps.x1 - (s + w) >= h and wall[s : s + w].any():
            return x0 + s + w // 2
    return None


def room_for_space(text: str, at: int, gaps: Gaps) -> bool:
    """Whether the ink of the line read as ``text`` has a word-wide gap near the start of
    its character ``at``."""
    widths = [_NARROW.get(c, 1.0) for c in text]
    total = sum(widths)
    if total <= 0:
        return True
    per = (gaps.x1 - gaps.x0) / total
    x = gaps.x0 + per * sum(widths[:at])
    return any(w >= WORD_GAP * gaps.height for s, w in gaps.runs if abs(s + w / 2 - x) <= per)


def unspace_tight(read: str, cleaned: str, gaps: Gaps | None) -> str:
    """``cleaned`` (the line ``read`` after the per-line fixes) without each space put in
    between two letters the recogniser read together where the ink has no room for one.
    Left as it is where the fixes changed which letters there are, or the line is not in
    capitals."""
    if gaps is None or not read.isupper() or not cleaned.isupper():
        return cleaned
    a = [i for i, c in enumerate(read) if c.isalnum()]
    b = [i for i, c in enumerate(cleaned) if c.isalnum()]
    if len(a) != len(b):
        return cleaned
    out = cleaned
    for k in range(len(a) - 2, -1, -1):
        together = a[k + 1] == a[k] + 1
        if together and cleaned[b[k] + 1 : b[k + 1]] == " " and not room_for_space(read, a[k + 1], gaps):
            out = out[: b[k] + 1] + out[b[k + 1] :]
    return out
