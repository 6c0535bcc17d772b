"""Lines the detector ran across a balloon's outline, cut there.

Two balloons that touch (two speakers side by side), or a balloon against a caption box,
can letter rows at one height; the page's detection then finds one box across both and
reads it as one line ("ISLAND PIRATE! WAS! 'TIS ABOARD MY": the end of one speaker's row
and the start of the other's). An outline crossing a row is a stroke that runs through the
row's whole height and on above and below it, where a letter stays inside its row; there
the line is cut, and each part read again, so each joins its own balloon.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from panelvox.analysis.tilted_text import Line
from panelvox.model import Image
from panelvox.models.ocr import Detection, Recognition, crop_quad
from panelvox.models.text_boxes import Quad, axis_box

#: how far (line heights) the stroke must run on above and below the row
_REACH = 0.6
#: letters on each side of the cut, at least (line heights of width)
_SIDE = 1.5


def outline_column(image: Image, d: Detection) -> int | None:
    """The page column where an outline crosses the row of ``d``'s box (a level,
    horizontal box), with lettering on both sides of it; None where none does."""
    x0, y0, x1, y1 = (round(v) for v in axis_box(d))
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


def cut_at_outlines(
    image: Image, lines: list[Line], read: Callable[[list[Image]], list[Recognition]]
) -> list[Line]:
    """``lines`` with each horizontal line that an outline crosses cut there into two lines,
    each read again; a part read as nothing is left out."""
    todo = []
    for k, (d, _r, v) in enumerate(lines):
        if v or d.width <= d.height:
            continue
        x = outline_column(image, d)
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
