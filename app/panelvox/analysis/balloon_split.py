"""Two balloons traced as one region: split their lettering where the outline pinches in.

When two balloons touch or overlap (one drawn over the other, "HAR-UMPH!" then
"KER-CHOO!"), the stroke between them is often missing and the flood fill takes both
as one region. Its outline then has a *waist*: two deep notches facing each other with
a short neck between them, and a convex lobe on each side. A letterer never pinches a
single balloon like that, so lettering that lies in both lobes belongs to two balloons.

Untraced lettering is parted where a rule is drawn between two of its rows (a caption
box's edge against the balloon below it), and a tail shared by several blocks of one
region goes to the block nearest its tip.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.line_groups import extent, filled_outline
from panelvox.analysis.tail_geometry import balloon_body
from panelvox.model import BBox, Tail, TextLine

Mask = npt.NDArray[np.uint8]

#: a notch of the waist is at least this deep (fraction of the region's smaller side)
MIN_NOTCH = 0.15
#: the neck between the two notches is at most this long (fraction of the smaller side)
MAX_NECK = 0.5
#: each lobe holds at least this fraction of the body's area
MIN_LOBE = 0.2


def _lobes(body: Mask, side: int) -> list[Mask]:
    """The body's lobes: its large parts, or its two halves either side of a waist."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(body, connectivity=8)
    total = float(stats[1:, cv2.CC_STAT_AREA].sum()) if n > 1 else 0.0
    big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= MIN_LOBE * total]
    if len(big) >= 2:  # the opening that removes the tail already cut the neck
        return [(labels == i).astype(np.uint8) for i in big]
    if not big:
        return []
    part = (labels == big[0]).astype(np.uint8)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour, returnPoints=False)
    if hull is None or len(hull) < 4:
        return []
    try:
        defects = cv2.convexityDefects(contour, np.sort(hull, axis=0))
    except cv2.error:
        return []
    if defects is None:
        return []
    notches = [contour[d[0][2]][0] for d in defects if d[0][3] / 256.0 >= MIN_NOTCH * side]
    best: tuple[float, tuple[int, int], tuple[int, int]] | None = None
    for i, p in enumerate(notches):
        for q in notches[i + 1 :]:
            neck = float(np.hypot(*(p - q)))
            if neck <= MAX_NECK * side and (best is None or neck < best[0]):
                best = (neck, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])))
    if best is None:
        return []
    cut = part.copy()
    # the cut runs a little beyond both notches, so that it meets the outside
    (px, py), (qx, qy) = best[1], best[2]
    dx, dy = (qx - px) / max(best[0], 1.0), (qy - py) / max(best[0], 1.0)
    a = (round(px - 3 * dx), round(py - 3 * dy))
    b = (round(qx + 3 * dx), round(qy + 3 * dy))
    cv2.line(cut, a, b, 0, thickness=3)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cut, connectivity=4)
    area = float(part.sum())
    halves = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= MIN_LOBE * area]
    return [(labels == i).astype(np.uint8) for i in halves] if len(halves) == 2 else []


def split_at_waist(region: Mask, lines: Sequence[TextLine]) -> list[tuple[list[TextLine], Mask | None]]:
    """``lines`` (inside ``region``, a page-sized mask) as one group per balloon, each with
    its part of the region (page-sized): two when the region has a waist and each lobe
    holds lettering wholly its own (every pixel goes with the nearer lobe, a tail with
    its balloon), else one with no mask of its own."""
    whole: list[tuple[list[TextLine], Mask | None]] = [(list(lines), None)]
    if len(lines) < 2:
        return whole
    pad = 4
    found = filled_outline(region, pad)
    if found is None:
        return whole
    x, y, crop, filled = found
    h, w = crop.shape[0] - 2 * pad, crop.shape[1] - 2 * pad
    side = min(w, h)
    if side < 10:
        return whole
    lobes = _lobes(balloon_body(filled), side)
    if len(lobes) != 2:
        return whole
    groups: list[list[TextLine]] = [[], []]
    for ln in lines:
        x0, y0 = max(0, int(ln.bbox.x0) - x + pad), max(0, int(ln.bbox.y0) - y + pad)
        x1, y1 = int(ln.bbox.x1) - x + pad, int(ln.bbox.y1) - y + pad
        inside = [int(lobe[y0:y1, x0:x1].sum()) for lobe in lobes]
        first, second = sorted(inside, reverse=True)
        if first == 0 or second > 0.2 * first:
            return whole  # a line across the neck: one balloon after all
        groups[inside.index(first)].append(ln)
    if not all(groups):
        return whole
    near = [cv2.distanceTransform((1 - lobe).astype(np.uint8), cv2.DIST_L2, 3) for lobe in lobes]
    out: list[tuple[list[TextLine], Mask | None]] = []
    for k, group in enumerate(groups):
        mine = (crop > 0) & ((near[0] < near[1]) == (k == 0))  # a tie goes to the second lobe
        part = np.zeros_like(region)
        part[y : y + h, x : x + w] = mine[pad:-pad, pad:-pad]
        out.append((group, part))
    return out


def nearest_cluster(clusters: Sequence[Sequence[TextLine]], tail: Tail | None) -> int:
    """Index of the cluster whose text is nearest the tail's tip (-1 without a tail)."""
    if tail is None:
        return -1
    tip = tail.tip

    def dist(box: BBox) -> float:
        dx = max(box.x0 - tip.x, 0.0, tip.x - box.x1)
        dy = max(box.y0 - tip.y, 0.0, tip.y - box.y1)
        return math.hypot(dx, dy)

    return min(range(len(clusters)), key=lambda k: dist(extent(clusters[k])))


def split_at_rules(lines: Sequence[TextLine], light: Mask) -> list[list[TextLine]]:
    """Stacked lines cut where a drawn rule runs between two rows: a caption box's edge
    against the balloon or caption below it ("THAT NIGHT..." over "JANE, THERE'S ...").
    Lettering in one block has only paper between its rows; a stroke across the whole
    width the two rows share, in the gap between them, is a frame, however short that width
    (a small balloon under one end of a caption's last row shares only its own width; a
    letter high of it is enough to tell a rule from a stray mark). ``light``: 1 where the
    page is not stroke."""
    if len(lines) < 2 or any(ln.vertical for ln in lines):
        return [list(lines)]
    ordered = sorted(lines, key=lambda ln: ln.bbox.y0)
    out = [[ordered[0]]]
    for a, b in itertools.pairwise(ordered):
        y0, y1 = math.ceil(a.bbox.y1), int(b.bbox.y0)
        x0, x1 = math.ceil(max(a.bbox.x0, b.bbox.x0)), int(min(a.bbox.x1, b.bbox.x1))
        if y1 - y0 >= 2 and x1 - x0 >= min(a.bbox.height, b.bbox.height):
            stroke = light[max(0, y0) : y1, max(0, x0) : x1] == 0
            if stroke.size and stroke.any(axis=0).mean() >= 0.9:
                out.append([b])
                continue
        out[-1].append(b)
    return out
