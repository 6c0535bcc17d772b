"""Sign boards in the art, which the balloon tracer takes for balloons.

A painted board (a notice on a post, a card in a window, a placard) is light, holds lettering
and is bounded by a dark stroke, as a balloon is, so the flood fill traces it like one, and
its post, a straight strip leaving it, can pass for a tail. A letterer tells them apart at a
glance: a balloon's body is a smooth rounded outline (an oval, a rounded box) set level with
the page, its tail a wedge; a board is a straight-edged quadrilateral with sharp corners,
drawn in the scene's perspective, so turned off the level or with its opposite sides not
parallel. A level square-cornered box is a caption's shape and is told by the balloons
stage's caption rules, not here.

:func:`board_outline` tests a traced region for that shape: its convex hull is a
quadrilateral (no side bows out of a straight line by more than :data:`STRAIGHT` of the
region's smaller side: an oval's quarter bows about 30 % of its radius), the region fills
that hull (:data:`SOLID`: no tail and no rounded lobes outside it; where lettering touches
a board's edge it bites into the fill but not into the hull), and one side runs at least
:data:`TURNED` degrees off the page's axes. Each side is drawn: the region's outline runs
along it (:data:`DRAWN`), where a rounded box with a stepped side has a hull whose chord
crosses empty paper. A balloon that a panel's border cuts has straight sides too, but its
rounded side and its tail leave its hull part empty. A post light enough to be traced with
the board is a thin part reaching far from the board's body (:data:`POST`) and is left out.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.tail_geometry import balloon_body

Mask = npt.NDArray[np.uint8]

#: a board's sides bow out of straight lines by at most this share of its smaller side
STRAIGHT = 0.07
#: ... and the region fills at least this share of its convex hull
SOLID = 0.85
#: ... and a side runs this many degrees off the page's axes: turned, or in perspective
TURNED = 4.0
#: each side of the quadrilateral is drawn: the region's outline runs along at least this
#: share of it (within :data:`ON_SIDE` of the smaller side; lettering may bite the rest)
DRAWN = 0.5
ON_SIDE = 0.03
#: a post or a tail: a thin part of the region (what the balloon body's opening takes off)
#: reaching more than this share of the region's smaller side from the body (the corners
#: the opening rounds off reach about 6 %)
POST = 0.12


def quadrilateral(filled: Mask) -> npt.NDArray[np.float64] | None:
    """The four corners (x, y) of ``filled``'s convex hull, in order round it, where the
    hull is a quadrilateral (see the module docstring), else ``None``; none either where
    the region does not fill its hull."""
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    hull_area = float(cv2.contourArea(hull))
    if hull_area <= 0 or cv2.contourArea(outline) < SOLID * hull_area:
        return None
    (_c, (rw, rh), _a) = cv2.minAreaRect(hull)
    corners = cv2.approxPolyDP(hull, STRAIGHT * min(rw, rh), True)
    if len(corners) != 4:
        return None
    quad = np.asarray(corners[:, 0, :], dtype=np.float64)
    near = max(2.0, ON_SIDE * min(rw, rh))
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        on = [
            abs(cv2.pointPolygonTest(outline, (float(x), float(y)), True)) <= near
            for x, y in (a + (b - a) * t for t in np.linspace(0.1, 0.9, 17))
        ]
        if sum(on) < DRAWN * len(on):
            return None  # a hull's chord across a rounded or stepped side, not a drawn side
    return quad


def turned(corners: npt.NDArray[np.float64]) -> float:
    """How far (degrees) the most turned side of a polygon runs off the page's axes."""
    most = 0.0
    for k in range(len(corners)):
        dx, dy = corners[(k + 1) % len(corners)] - corners[k]
        angle = math.degrees(math.atan2(abs(dy), abs(dx)))  # 0 level .. 90 upright
        most = max(most, min(angle, 90.0 - angle))
    return most


def without_post(filled: Mask, body: Mask) -> Mask:
    """``filled`` less its post or tail: the thin parts (outside ``body``, the region less
    what an opening takes off) reaching far from the body; its corners stay square."""
    _x, _y, bw, bh = cv2.boundingRect(filled)
    if not body.any():
        return filled
    thin = ((filled > 0) & (body == 0)).astype(np.uint8)
    _count, labels = cv2.connectedComponents(thin)
    away = cv2.distanceTransform((body == 0).astype(np.uint8), cv2.DIST_L2, 3)
    far = np.unique(labels[(thin > 0) & (away > POST * min(bw, bh))])
    out = filled.copy()
    out[np.isin(labels, far[far > 0])] = 0
    return out


def board_outline(filled: Mask, body: Mask | None = None) -> bool:
    """Whether a traced region (1 inside, its holes filled) is a sign board's outline: less
    its post or tail (``body``: the region less its thin parts, :func:`balloon_body`'s), a
    square-cornered quadrilateral turned off the level or drawn in perspective."""
    corners = quadrilateral(filled)
    if corners is None:
        corners = quadrilateral(without_post(filled, balloon_body(filled) if body is None else body))
    return corners is not None and turned(corners) >= TURNED
