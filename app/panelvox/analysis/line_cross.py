"""Lines the detector ran across a balloon's outline, cut there.

Two balloons that touch (two speakers side by side), or a balloon against a caption box,
can letter rows at one height; the page's detection then finds one box across both and
reads it as one line ("ISLAND PIRATE! WAS! 'TIS ABOARD MY": the end of one speaker's row
and the start of the other's; "HOW WONDERFUL! TERRIFIC!"). An outline crossing a row is a
stroke that runs through the row's whole height and on past it, where a letter stays inside
its row: straight on above and below it, or curving away on one side where the two rims
part. Where the rims are cut off (by the panel's border) or the two rows have the art
between them, the gap between the pieces tells: far wider than the row's word spaces, with
an outline or the art across it (:func:`panelvox.analysis.letter_gaps.walled_gap`). There
the line is cut, and each part read again, so each joins its own balloon.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.letter_gaps import walled_gap
from panelvox.analysis.tilted_text import Line, Read
from panelvox.model import Image
from panelvox.models.ocr import Detection, crop_quad
from panelvox.models.text_boxes import Quad, axis_box

Mask = npt.NDArray[np.uint8]

#: how far (line heights) the stroke must run on above and below the row
_REACH = 0.6
#: letters on each side of the cut, at least (line heights of width)
_SIDE = 1.5


def stroke_mask(image: Image) -> Mask:
    """1 on the page's dark strokes (darker than 0.6 of its paper's lightness)."""
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    return (gray < 0.6 * float(np.percentile(gray, 98))).astype(np.uint8)


def _curving_away(box: tuple[int, int, int, int], dark: Mask) -> int | None:
    """The page column where one thin stroke covers the row's height, well inside its
    ends, and runs on at least 0.75 line heights above or below it: an outline that curves
    away from the row on its other side (where two balloons' rims part). A stroke no wider
    than the line is high; thin: its pixels lie near its edge (dark art that a letter touches
    is no thin line). ``dark``: :func:`stroke_mask` of the page."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    top, bottom = max(0, y0 - h), min(dark.shape[0], y1 + h)
    _n, labels, stats, _c = cv2.connectedComponentsWithStats(
        np.ascontiguousarray(dark[top:bottom, x0:x1]), connectivity=8
    )
    middle = labels[y0 - top + round(0.25 * h) : y1 - top - round(0.25 * h)]
    reach = round(0.5 * h)
    # only a stroke that reaches 0.75 line heights past the row can be one (letters stay in it)
    ry0, ry1 = y0 - top, y1 - top
    far = (stats[:, 1] <= ry0 - 0.75 * h) | (stats[:, 1] + stats[:, 3] >= ry1 + 0.75 * h)
    for k in set(np.unique(middle).tolist()) - {0}:
        if not far[k]:
            continue
        cols = np.nonzero((middle == k).any(axis=0))[0]
        # the stroke's separate passes through the row (a rim, a crossing)
        for run in np.split(cols, np.nonzero(np.diff(cols) > 2)[0] + 1):
            x = x0 + float(run.mean())
            if run[-1] - run[0] > 0.8 * h or not x0 + _SIDE * h < x < x1 - _SIDE * h:
                continue
            near = labels[:, max(0, run[0] - reach) : run[-1] + reach + 1] == k
            rows = np.nonzero(near.any(axis=1))[0] + top
            covers = rows[0] <= y0 + 0.15 * h and rows[-1] >= y1 - 0.15 * h
            depth = cv2.distanceTransform(np.pad(near.astype(np.uint8), 1), cv2.DIST_L2, 3)
            thin = float(np.percentile(depth[depth > 0], 95)) <= 0.2 * h
            # between words: no other ink in the row just beside it (letters of two rows
            # touching across tight leading also make a thin stroke through a row)
            row = labels[y0 - top : y1 - top]
            side = round(0.15 * h)
            beside = np.hstack(
                [row[:, max(0, run[0] - side) : run[0]], row[:, run[-1] + 1 : run[-1] + 1 + side]]
            )
            clear = float(((beside != 0) & (beside != k)).mean()) <= 0.1 if beside.size else False
            if covers and thin and clear and max(y0 - rows[0], rows[-1] - y1) >= 0.75 * h:
                return round(x)
    return None


def outline_column(image: Image, d: Detection, dark: Mask | None = None) -> int | None:
    """The page column where an outline crosses the row of ``d``'s box (a level,
    horizontal box), with lettering on both sides of it; None where none does. Two shapes:
    a stroke running straight through the row and on above and below it on light paper, or
    a thin stroke that covers the row and curves away on one side (:func:`_curving_away`,
    given the page's ``dark`` strokes)."""
    x0, y0, x1, y1 = (round(v) for v in axis_box(d))
    box = (max(0, x0), y0, min(image.shape[1], x1), y1)
    if dark is not None and box[2] - box[0] >= 4 * (y1 - y0) and y1 - y0 >= 4:
        found = _curving_away(box, dark)
        if found is not None:
            return found
    h = y1 - y0
    height, width = image.shape[:2]
    top, bottom = y0 - int(_REACH * h), y1 + int(_REACH * h)
    if h < 6 or x1 - x0 < 2 * _SIDE * h + h or top < 0 or bottom > height or x1 > width or x0 < 0:
        return None
    gray = cv2.cvtColor(np.ascontiguousarray(image[top:bottom, x0:x1]), cv2.COLOR_RGB2GRAY)
    threshold, _ = cv2.threshold(gray[y0 - top : y1 - top], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ink = (gray < threshold).astype(np.uint8)
    # a drawn outline wavers by a few pixels over its run; a row of letters has light
    # between it and the rows above and below
    r = max(1, int(0.15 * h))
    band = cv2.dilate(ink, np.ones((1, 2 * r + 1), np.uint8))
    through = band.min(axis=0) > 0
    margin = int(_SIDE * h)
    through[:margin] = False
    through[len(through) - margin :] = False
    cols = np.flatnonzero(through)
    if cols.size == 0:
        return None
    # the run of crossing columns nearest the box's middle
    runs = np.split(cols, np.flatnonzero(np.diff(cols) > 1) + 1)
    middle = (x1 - x0) / 2
    run = min(runs, key=lambda c: abs(float(c.mean()) - middle))
    row = ink[y0 - top : y1 - top]
    a, b = int(run[0]) - r, int(run[-1]) + r + 1
    if row[:, :a].sum() < 2 * h or row[:, b:].sum() < 2 * h:
        return None  # no lettering on one side
    # a thin stroke on light paper: beside it, above and below the row, little ink (lettering
    # on a dark screentone has ink all round)
    off = np.vstack([ink[: y0 - top], ink[y1 - top :]])
    near = np.hstack([off[:, max(0, a - h // 2) : a], off[:, b : b + h // 2]])
    if near.size == 0 or near.mean() > 0.3:
        return None
    return x0 + round(float(run.mean()))


def _cut(quad: Quad, x: float) -> tuple[float, float]:
    """Where the page column ``x`` meets the quad's top and bottom edges (their y)."""
    out = []
    for a, b in ((quad[0], quad[1]), (quad[3], quad[2])):
        t = (x - float(a[0])) / max(1e-6, float(b[0] - a[0]))
        out.append(float(a[1] + t * (b[1] - a[1])))
    return out[0], out[1]


def split_quad(quad: Quad, x: float, gap: float) -> tuple[Quad, Quad]:
    """``quad`` cut at page column ``x``, ``gap`` pixels left out on each side."""
    lt, lb = _cut(quad, x - gap)
    rt, rb = _cut(quad, x + gap)
    left = np.array([quad[0], (x - gap, lt), (x - gap, lb), quad[3]], dtype=np.float32)
    right = np.array([(x + gap, rt), quad[1], quad[2], (x + gap, rb)], dtype=np.float32)
    return left, right


def cut_at_outlines(image: Image, lines: list[Line], read: Read) -> list[Line]:
    """``lines`` with each horizontal line that an outline crosses cut there into two lines,
    each read again; where either part reads as nothing, the line stays whole."""
    todo = []
    dark = stroke_mask(image)
    for k, (d, _r, v) in enumerate(lines):
        if v or d.width <= d.height:
            continue
        x = outline_column(image, d, dark)
        if x is None and abs(float(d.quad[1][1] - d.quad[0][1])) <= 0.25 * d.height:
            # a gap no word space is, with an outline or the art between two balloons in it
            x = walled_gap(image, axis_box(d))
        if x is not None:
            gap = max(2.0, 0.2 * d.height)
            todo.append((k, [Detection(q, d.score) for q in split_quad(d.quad, x, gap)]))
    if not todo:
        return lines
    parts = [p for _k, ps in todo for p in ps]
    reads = iter(read([crop_quad(image, p.quad, vertical=False) for p in parts]))
    cut = {k: [(p, next(reads), False) for p in ps] for k, ps in todo}
    out: list[Line] = []
    for k, line in enumerate(lines):
        if k not in cut:
            out.append(line)
            continue
        kept = [part for part in cut[k] if any(c.isalnum() for c in part[1].text)]
        out.extend(kept if len(kept) == 2 else [line])
    return out
