"""Panels that are one panel: a balloon lettered across a border that is not drawn.

The panel detector cuts a region where a straight line or a thin gap runs through it; in an
L-shaped panel, or a panel whose art has a long vertical edge (a wall, a door post), it can cut
one panel in two. A letterer never places a balloon deep into two panels' art: a balloon that
crosses a frame does so into the gutter, leaving most of itself in one panel. So a speech or
thought balloon with at least :data:`MIN_SHARE` of its box in each of two neighbouring panels,
where no frame line is drawn along the border between them (checked on the page, away from
the lettering: a gutter between framed panels has the frames' lines), shows the two are one
panel: they are joined (their outline the union of both). Panels that overlap are left alone: the balloon's shares
there say nothing about a border; so is a border mostly hidden by lettering.

This holds for Western pages (read left to right). Manga letters balloons across panel
borders as a matter of course (on openmantra's true panels, 4 pages of 214 have a balloon
half in each of two panels whose thin, slanted border is drawn), so right-to-left and
vertical pages are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from panelvox.analysis.line_groups import linked_groups
from panelvox.model import Balloon, BalloonKind, BBox, Image, Panel, Point, ReadingDirection

#: share of a balloon's box that must lie in each of the two panels
MIN_SHARE = 0.25
#: panels whose boxes overlap by more than this share of the smaller one are not side by side
MAX_OVERLAP = 0.02
#: a column along the border this dark along its length is a frame line
FRAME_DARK = 0.7
#: added to a joined panel's stage ("panels:classical+joined")
JOINED = "+joined"
_DIALOGUE = (BalloonKind.SPEECH, BalloonKind.THOUGHT)


def join_split_panels(
    panels: Sequence[Panel], blocks: Sequence[Balloon], image: Image, direction: ReadingDirection
) -> tuple[Panel, ...]:
    """``panels`` with each pair that a balloon shows to be one panel joined (the first
    keeps its id); unchanged when no balloon crosses an undrawn border, or on a manga page."""
    if direction is not ReadingDirection.LTR:
        return tuple(panels)
    boxes = [q.bbox for q in blocks]
    dialogue = [b.bbox for b in blocks if b.kind in _DIALOGUE and b.bbox.area > 0]

    def one_panel(i: int, j: int) -> bool:
        pi, pj = panels[i].bbox, panels[j].bbox
        if pi.intersection(pj) > MAX_OVERLAP * min(pi.area, pj.area):
            return False
        crossed = any(min(b.intersection(pi), b.intersection(pj)) >= MIN_SHARE * b.area for b in dialogue)
        return crossed and not _border_drawn(image, pi, pj, boxes)

    groups = linked_groups(len(panels), one_panel)
    return tuple(_joined([panels[k] for k in g]) if len(g) > 1 else panels[g[0]] for g in groups)


def _border_drawn(image: Image, a: BBox, b: BBox, blocks: Sequence[BBox]) -> bool:
    """Whether a dark frame line runs along the border between ``a`` and ``b`` (side by side
    or one above the other), over their shared span less the lettering; also when too little
    of it is seen to tell, or when the two are not neighbours."""
    side = min(a.x1, b.x1) <= max(a.x0, b.x0) + 4  # side by side: the border runs down
    if side:
        g0, g1 = sorted((min(a.x1, b.x1), max(a.x0, b.x0)))
        lo, hi = max(a.y0, b.y0), min(a.y1, b.y1)
    else:
        g0, g1 = sorted((min(a.y1, b.y1), max(a.y0, b.y0)))
        lo, hi = max(a.x0, b.x0), min(a.x1, b.x1)
    if hi - lo < 4:
        return True  # not neighbours: no border between them to be missing
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    h, w = gray.shape[:2]
    half = max(3, round(0.01 * max(h, w)))  # the boxes' edges only roughly follow the border
    keep = np.ones(max(0, int(hi) - int(lo)), bool)
    for q in blocks:  # rows (or columns) crossed by lettering say nothing about the border
        (q0, q1), (r0, r1) = ((q.y0, q.y1), (q.x0, q.x1)) if side else ((q.x0, q.x1), (q.y0, q.y1))
        if r0 <= g1 + half and r1 >= g0 - half:
            keep[max(0, int(q0 - lo)) : max(0, int(q1 - lo))] = False
    if keep.sum() < 0.3 * keep.size:
        return True  # too little of it seen past the lettering to say it is not drawn
    c0, c1 = max(0, int(g0) - half), min(w if side else h, int(g1) + half + 1)
    band = gray[int(lo) : int(hi), c0:c1] if side else gray[c0:c1, int(lo) : int(hi)].T
    band = band[keep[: band.shape[0]]].astype(np.float64)
    return bool(((band < 128).mean(axis=0) >= FRAME_DARK).any())


def _joined(parts: Sequence[Panel]) -> Panel:
    """One panel covering ``parts``: the union of their boxes, outlined by their union."""
    box = parts[0].bbox
    for q in parts[1:]:
        box = box.union(q.bbox)
    scale = min(1.0, 512.0 / max(box.width, box.height, 1.0))
    mask = np.zeros((int(box.height * scale) + 3, int(box.width * scale) + 3), np.uint8)
    for q in parts:
        pts = q.polygon or (
            Point(q.bbox.x0, q.bbox.y0),
            Point(q.bbox.x1, q.bbox.y0),
            Point(q.bbox.x1, q.bbox.y1),
            Point(q.bbox.x0, q.bbox.y1),
        )
        poly = np.array([[(p.x - box.x0) * scale + 1, (p.y - box.y0) * scale + 1] for p in pts], np.int32)
        cv2.fillPoly(mask, [poly], 255)
    closed = cv2.dilate(mask, np.ones((5, 5), np.uint8))  # close the border's seam
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    outline = cv2.approxPolyDP(outline, 2.0, True).reshape(-1, 2)
    polygon = tuple(
        Point(
            min(max(box.x0, x / scale + box.x0 - 1), box.x1), min(max(box.y0, y / scale + box.y0 - 1), box.y1)
        )
        for x, y in outline
    )
    first = parts[0]
    return replace(
        first,
        bbox=box,
        polygon=polygon if len(polygon) > 4 else None,
        confidence=min(q.confidence for q in parts),
        stage=first.stage + JOINED,
    )
