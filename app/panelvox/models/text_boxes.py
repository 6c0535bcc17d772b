"""Text-line boxes of the OCR detector and the geometry that corrects them.

The detector's probability map is read at several thresholds (see
:meth:`panelvox.models.ocr.OcrEngine.detect`); these functions join the pieces of one line,
re-cut boxes that hold several lines and drop duplicates. Each box's axis-aligned extent
is computed once per call; pairs are first screened with numpy, so a page of running text
with a thousand word boxes costs milliseconds, not seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import numpy.typing as npt

#: A text quadrilateral: 4 (x, y) points clockwise from top-left, page pixels.
Quad = npt.NDArray[np.float32]
Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Detection:
    quad: Quad  # tight around the letters: the crop that is read
    score: float
    #: the same line as the detector's usual (looser) pass outlines it, when it found it
    #: as one line; reported as the line's polygon
    outline: Quad | None = None

    @property
    def reported(self) -> Quad:
        return self.outline if self.outline is not None else self.quad

    @property
    def width(self) -> float:
        return float(np.linalg.norm(self.quad[0] - self.quad[1]))

    @property
    def height(self) -> float:
        return float(np.linalg.norm(self.quad[0] - self.quad[3]))


def axis_box(d: Detection) -> Box:
    q = d.quad
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


def _iou(a: Box, b: Box) -> float:
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _inside_box(a: Box, box: Box, share: float = 0.6) -> bool:
    """True when at least ``share`` of box ``a`` lies inside ``box``."""
    iw = min(a[2], box[2]) - max(a[0], box[0])
    ih = min(a[3], box[3]) - max(a[1], box[1])
    area = max(1e-6, (a[2] - a[0]) * (a[3] - a[1]))
    return iw > 0 and ih > 0 and iw * ih / area >= share


def _inside(d: Detection, box: Box, share: float = 0.6) -> bool:
    return _inside_box(axis_box(d), box, share)


_Item = tuple[Box, float, Detection]


def _merged(x: _Item, y: _Item, gap: float) -> _Item | None:
    """What two boxes become when they are one line (see :func:`merge_fragments`), or None."""
    a, b = x[0], y[0]
    if _iou(a, b) > 0.5:  # the same line found twice (a re-cut piece)
        return y if y[1] > x[1] else x
    if _inside_box(b, a, 0.8) or _inside_box(a, b, 0.8):
        # a piece inside a longer box of the same line: keep the longer one
        return y if (b[2] - b[0]) * (b[3] - b[1]) > (a[2] - a[0]) * (a[3] - a[1]) else x
    for along in (0, 1):  # 0: a horizontal line, 1: a vertical column
        across = 1 - along
        ta, tb = a[across + 2] - a[across], b[across + 2] - b[across]
        la, lb = a[along + 2] - a[along], b[along + 2] - b[along]
        if along == 1 and (la < 1.5 * ta or lb < 1.0 * tb):
            continue  # columns: both pieces must already be upright columns
        if along == 0 and (la < 0.8 * ta or lb < 0.8 * tb):
            continue
        if max(ta, tb) > 1.4 * min(ta, tb):
            continue
        offset = abs((a[across] + a[across + 2]) - (b[across] + b[across + 2])) / 2
        dist = max(a[along], b[along]) - min(a[along + 2], b[along + 2])
        if offset <= 0.3 * min(ta, tb) and -0.3 * min(la, lb) <= dist <= gap * min(ta, tb):
            box = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
            quad = np.array(
                [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]], dtype=np.float32
            )
            score = min(x[1], y[1])
            return (box, score, Detection(quad, score))
    return None


def merge_fragments(dets: Sequence[Detection], gap: float) -> list[Detection]:
    """Join boxes that are pieces of one line (words cut apart at a high threshold).

    Two upright boxes of similar thickness merge when they sit on the same line (their
    centres across the line are within 30 % of the thinner one) with a gap along the line of
    at most ``gap`` times the thickness: horizontal pieces side by side, vertical pieces
    (Japanese columns) one above the other. Of two boxes over the same line (IoU > 0.5)
    the better-scored one is kept; a box lying inside a larger one is dropped.

    Pairs are merged in order (the first mergeable pair in the boxes' order, again and
    again until none is left); only pairs closer than ``gap`` times their larger side can
    merge, so each box is tried against its neighbours only, and after a merge only the
    pairs with the changed box are tried again before it.
    """
    if gap <= 0 or len(dets) < 2:
        return list(dets)
    items: list[_Item] = [(axis_box(d), d.score, d) for d in dets]
    n = len(items)
    boxes = np.array([it[0] for it in items], dtype=np.float64)
    alive = np.ones(n, dtype=bool)

    def near(k: int) -> set[int]:
        b = boxes[k]
        side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        reach = gap * np.maximum(side, max(b[2] - b[0], b[3] - b[1])) + 1e-6
        sep_x = np.maximum(boxes[:, 0] - b[2], b[0] - boxes[:, 2])
        sep_y = np.maximum(boxes[:, 1] - b[3], b[1] - boxes[:, 3])
        ok = alive & (sep_x <= reach) & (sep_y <= reach)
        ok[k] = False
        return {int(j) for j in np.flatnonzero(ok)}

    neighbours = [near(k) for k in range(n)]
    changed: int | None = None
    i = 0
    while i < n:
        if not alive[i]:
            i += 1
            continue
        if changed is not None and i < changed:
            # every other pair before the changed box was tried and stays apart
            candidates = [changed] if changed in neighbours[i] else []
        else:
            candidates = sorted(j for j in neighbours[i] if j > i)
        for j in candidates:
            joined = _merged(items[i], items[j], gap)
            if joined is None:
                continue
            items[i] = joined
            boxes[i] = joined[0]
            alive[j] = False
            for k in neighbours[j]:
                neighbours[k].discard(j)
            for k in neighbours[i]:
                neighbours[k].discard(i)
            neighbours[i] = near(i)
            for k in neighbours[i]:
                neighbours[k].add(i)
            changed, i = i, -1
            break
        i += 1
    return [items[k][2] for k in range(n) if alive[k]]


def combine_passes(
    loose: Sequence[Detection], strict: Sequence[Detection], split_ratio: float
) -> list[Detection]:
    """Lines from the usual (loose) pass, corrected by a strict pass where lines ran together.

    Closely spaced lettering merges in the probability map at the loose threshold: one box
    then covers several lines and cannot be read, or its mean score is too low and the
    lines vanish; or one box runs along a line into the next balloon. A loose box much
    thicker than the page's median line is replaced by the thinner strict boxes inside it
    when there are two or more, and so is one whose strict pieces lie apart along it by
    more than a letter; strict boxes that lie in no loose box
    (and hardly overlap one) are lines the loose pass lost, and are added when they are
    lines of several letters (isolated specks and single letters are mostly texture).
    """
    if not strict:
        return list(loose)
    thick = [min(d.width, d.height) for d in loose]
    typical = float(np.median(thick)) if thick else 0.0
    strict_boxes = [axis_box(p) for p in strict]
    out: list[Detection] = []
    split: list[Detection] = []  # lines cut out of a box that held several
    for d, t in zip(loose, thick, strict=True):
        box = axis_box(d)
        pieces = [p for p, pb in zip(strict, strict_boxes, strict=True) if _inside_box(pb, box, 0.3)]
        if len(pieces) < 2:
            out.append(d)
        elif len(loose) >= 3 and t >= split_ratio * typical:
            # several lines in one box: keep the pieces if they are thinner lines
            thinner = max(min(p.width, p.height) for p in pieces) < 0.75 * t
            out.extend(pieces if thinner else [d])
            if thinner:
                split.extend(pieces)
        else:
            # one line long enough to run into the next balloon's: pieces apart along it
            out.extend(pieces if _apart_along(pieces, d) else [d])
    out = _whole_lines(out, split)
    boxes = [axis_box(d) for d in out]
    for p, pb in zip(strict, strict_boxes, strict=True):
        long_line = max(p.width, p.height) >= 2.5 * min(p.width, p.height)
        if long_line and all(_iou(pb, b) < 0.2 and not _inside_box(pb, b, 0.5) for b in boxes):
            out.append(p)
    return dedupe(out)


def _whole_lines(out: list[Detection], split: list[Detection]) -> list[Detection]:
    """``out`` without the loose boxes that lie inside a line cut out of a merged box.

    Where the first words of two lines ran together into one box ("HE" over "DO"), the
    loose pass kept the rest of each line ("CAN'T", "THAT") on its own; the strict line
    holds the whole line ("HE CAN'T"), so the piece is that line read short, not a line.
    """
    if not split:
        return out
    boxes = [axis_box(p) for p in split]
    held = {id(p) for p in split}
    return [d for d in out if id(d) in held or not any(_inside(d, b, 0.85) for b in boxes)]


def _apart_along(pieces: Sequence[Detection], line: Detection) -> bool:
    """True when ``pieces`` lie one after another along ``line`` with a gap of more than a
    letter between them (two balloons' lines that the loose pass ran together)."""
    along = 0 if line.width >= line.height else 1
    thick = min(line.width, line.height)
    spans = sorted((float(p.quad[:, along].min()), float(p.quad[:, along].max())) for p in pieces)
    return all(b0 - a1 > 1.0 * thick for (_, a1), (b0, _) in pairwise(spans))


def dedupe(dets: Sequence[Detection]) -> list[Detection]:
    """Drop boxes over the same line as a better-scored one (IoU > 0.5)."""
    kept: list[tuple[Detection, Box]] = []
    for d in sorted(dets, key=lambda d: -d.score):
        box = axis_box(d)
        if all(_iou(box, k) <= 0.5 for _, k in kept):
            kept.append((d, box))
    return [d for d, _ in kept]
