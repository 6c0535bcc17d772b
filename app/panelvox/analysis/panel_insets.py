"""Insets: panels drawn inside a larger panel (a splash page's small panels set into a corner).

The classical detector finds panels by their gutters and by ruled borders that run across a
region from outline to outline. An inset has neither: it sits inside its host's art, which
closes round it on one or two sides, so no straight cut separates it. An artist draws it
with a frame of its own, set into the host against its border (in a corner, or along an
edge) with a strip of paper between them, and a balloon often breaks that frame. So, inside
each detected panel:

- a **rectangular inset** is a rectangle whose four sides are ruled frame lines, each drawn
  along most of its length (a balloon may hide the rest) and ending at its corners (a
  horizon or a table's edge runs on);
- a **circular inset** is a circle whose dark outline runs round nearly all of it, as a
  frame line drawn with compasses does;

and it is set in: it lies against the host's border, with paper between them along the
sides that face the border (a caption box or a title panel sharing the host's frame, or a
picture framed in the middle of the art, is not an inset). An inset is large enough to be
a panel and leaves most of its host outside it. Everything works on the detector's working
copy; insets are returned as outlines (contours).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.panel_geometry import ClassicalParams, Contour, Mask, longest_runs

Box = tuple[int, int, int, int]
#: added to an inset's stage ("panels:classical+inset")
INSET = "+inset"


@dataclass(frozen=True, slots=True)
class InsetParams:
    """Tuning of inset detection (fractions of the page's longer side unless named otherwise)."""

    side_cover: float = 0.7  # a drawn side: frame line along this share of its length...
    overrun: float = 0.04  # ...with less than half of the stretch this long beyond each end drawn
    min_area: float = 0.03  # an inset covers at least this share of the page...
    max_host_share: float = 0.45  # ...and at most this share of its host
    hug: float = 0.03  # a side this close to the host's border lies against it
    gutter_paper: float = 0.7  # paper between a side and the host's border along this share
    circle_cover: float = 0.85  # a circle's outline drawn round this share of it
    hough_perfect: float = 0.3  # circle candidates: OpenCV's HOUGH_GRADIENT_ALT perfectness...
    hough_dp: tuple[float, ...] = (1.0, 2.0)  # ...and accumulator resolutions, pooled
    max_candidates: int = 40  # candidate lines per axis (more: hatching, not frames)


def find_insets(
    rgb: Mask,
    ink: Mask,
    lines: tuple[Mask, Mask],
    host: Box,
    p: ClassicalParams,
    q: InsetParams | None = None,
) -> list[Contour]:
    """Outlines of the insets inside the panel ``host`` (x0, y0, x1, y1, exclusive ends) of
    the working copy ``rgb``, whose ink (what differs from the paper) is ``ink`` and ruled
    frame lines ``lines`` (horizontal, vertical), largest first; none overlap."""
    q = q or InsetParams()
    h, w = rgb.shape[:2]
    x0, y0, x1, y1 = host
    if (x1 - x0) * (y1 - y0) * q.max_host_share < q.min_area * h * w:
        return []
    side = max(h, w)
    paper = ink[y0:y1, x0:x1] == 0
    rects = _rectangles(lines[0][y0:y1, x0:x1], lines[1][y0:y1, x0:x1], p, q, h * w, side)
    found = [c for c in rects if _set_in(c, paper, p, q, side, rectangle=True)]
    found += [c for c in _circles(rgb[y0:y1, x0:x1], p, q, h * w, side) if _set_in(c, paper, p, q, side)]
    kept: list[Contour] = []
    for c in sorted(found, key=lambda c: -cv2.contourArea(c)):
        if not _overlaps(c, kept):
            kept.append(c)
    return [c + np.array([x0, y0], np.int32) for c in kept]


def _set_in(
    inset: Contour, paper: Mask, p: ClassicalParams, q: InsetParams, side: int, rectangle: bool = False
) -> bool:
    """Whether ``inset`` lies against its host's border (``paper``'s edges) on some side and,
    on every side that does, with paper between them along most of it: across the gutter
    from each point of the side (a rectangle), or in the corners between the circle and the
    border (a circle)."""
    hh, ww = paper.shape
    hug = max(2, round(q.hug * side))
    x, y, w, h = cv2.boundingRect(inset)
    x1, y1 = x + w - 1, y + h - 1
    if rectangle:  # its own frame line, then paper, then the host's border
        strips = []
        if x <= hug:
            strips.append(paper[y : y1 + 1, : max(0, x - 1)])
        if x1 >= ww - 1 - hug:
            strips.append(paper[y : y1 + 1, x1 + 2 :])
        if y <= hug:
            strips.append(paper[: max(0, y - 1), x : x1 + 1].T)
        if y1 >= hh - 1 - hug:
            strips.append(paper[y1 + 2 :, x : x1 + 1].T)
        return bool(strips) and all(s.size > 0 and s.any(axis=1).mean() >= q.gutter_paper for s in strips)
    shape = np.zeros((hh, ww), np.uint8)
    cv2.drawContours(shape, [inset], 0, 1, thickness=cv2.FILLED)
    band = max(3, round(p.line_band * side) | 1)
    corners = np.zeros((hh, ww), bool)
    cx, cy = x + w // 2, y + h // 2
    if x <= hug:
        corners[y : y1 + 1, :cx] = True
    if x1 >= ww - 1 - hug:
        corners[y : y1 + 1, cx:] = True
    if y <= hug:
        corners[:cy, x : x1 + 1] = True
    if y1 >= hh - 1 - hug:
        corners[cy:, x : x1 + 1] = True
    corners &= cv2.dilate(shape, np.ones((band, band), np.uint8)) == 0
    return bool(corners.any()) and float(paper[corners].mean()) >= q.gutter_paper


def _rectangles(
    hl: Mask, vl: Mask, p: ClassicalParams, q: InsetParams, page_area: int, side: int
) -> list[Contour]:
    """Rectangles of the host whose four sides are drawn frame lines."""
    hh, ww = hl.shape
    min_len = p.min_line_len * side
    ys = _candidates(hl, min_len, q.max_candidates)
    xs = _candidates(vl.T, min_len, q.max_candidates)
    if not ys or not xs:
        return []
    # drawn share of a stretch of a row (column): cumulative sums along each line
    hcum = np.concatenate([np.zeros((hh, 1), np.int32), np.cumsum(hl > 0, axis=1, dtype=np.int32)], axis=1)
    vcum = np.concatenate([np.zeros((ww, 1), np.int32), np.cumsum(vl.T > 0, axis=1, dtype=np.int32)], axis=1)
    ya, yb = _pairs(ys, min_len)
    xa, xb = _pairs(xs, min_len)
    if ya.size == 0 or xa.size == 0:
        return []
    # [pair of rows, pair of columns]
    area = (yb - ya)[:, None] * (xb - xa)[None, :]
    ok = (area >= q.min_area * page_area) & (area <= q.max_host_share * hh * ww)
    over = max(2, round(q.overrun * side))
    ok &= _drawn(hcum, ya, xa, xb, over, q) & _drawn(hcum, yb, xa, xb, over, q)
    ok &= _drawn(vcum, xa, ya, yb, over, q).T & _drawn(vcum, xb, ya, yb, over, q).T
    boxes = [(int(xa[j]), int(ya[i]), int(xb[j]), int(yb[i])) for i, j in zip(*np.nonzero(ok), strict=True)]
    return [np.array([[a, b], [c, b], [c, d], [a, d]], np.int32).reshape(-1, 1, 2) for a, b, c, d in boxes]


def _drawn(
    cum: npt.NDArray[np.int32],
    at: npt.NDArray[np.int64],
    start: npt.NDArray[np.int64],
    end: npt.NDArray[np.int64],
    over: int,
    q: InsetParams,
) -> npt.NDArray[np.bool_]:
    """[line, stretch]: whether row ``at`` of ``cum`` (cumulative drawn pixels along each
    row) is drawn along the stretch start..end and ends there (a frame side stops at its
    corners; a horizon or a table's edge runs on)."""
    n = cum.shape[1] - 1

    def share(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        a, b = np.clip(a, 0, n), np.clip(b, 0, n)
        s = cum[at[:, None], b[None, :]] - cum[at[:, None], a[None, :]]
        return np.asarray(s / np.maximum(b - a, 1)[None, :], np.float64)

    beyond = np.maximum(share(start - over, start - over // 2), share(end + over // 2, end + over))
    return (share(start, end + 1) >= q.side_cover) & (beyond < 0.5)


def _pairs(values: list[int], min_len: float) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """All (first, second) pairs of ``values`` at least ``min_len`` apart."""
    v = np.array(values, np.int64)
    i, j = np.nonzero(v[None, :] - v[:, None] >= min_len)
    return v[i], v[j]


def _candidates(lines: Mask, min_len: float, most: int) -> list[int]:
    """Rows of ``lines`` holding a stroke at least half ``min_len`` long (a balloon may break
    a side in two), one per band of rows (the row with the longest stroke); none when there
    are too many (hatching, a grid, not frame lines)."""
    runs = longest_runs(lines.T)
    rows = np.flatnonzero(runs >= min_len / 2)
    out: list[int] = []
    start = 0
    for i in range(1, rows.size + 1):
        if i == rows.size or rows[i] - rows[i - 1] > 1:
            group = rows[start:i]
            out.append(int(group[np.argmax(runs[group])]))
            start = i
    return out if len(out) <= most else []


def _circles(rgb: Mask, p: ClassicalParams, q: InsetParams, page_area: int, side: int) -> list[Contour]:
    """Circles of the host drawn as frame lines (see :func:`_fit_circle`), as 30-gons."""
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    hh, ww = gray.shape
    r_min = max(8, round(np.sqrt(q.min_area * page_area / np.pi)))
    r_max = min(round(np.sqrt(q.max_host_share * hh * ww / np.pi)), min(hh, ww) // 2)
    if r_max <= r_min:
        return []
    # candidates from a half-size copy (an inset's circle is large), each then fitted
    half = cv2.medianBlur(
        cv2.resize(gray, (max(1, ww // 2), max(1, hh // 2)), interpolation=cv2.INTER_AREA), 3
    )
    guesses: list[list[float]] = []
    for dp in q.hough_dp:
        found = cv2.HoughCircles(
            half,
            cv2.HOUGH_GRADIENT_ALT,
            dp=dp,
            minDist=r_min / 2,
            param1=300,
            param2=q.hough_perfect,
            minRadius=r_min // 2,
            maxRadius=r_max // 2,
        )
        guesses.extend([] if found is None else (2 * found[0]).tolist())
    if not guesses:
        return []
    # an outline: darker than something within two pixels of it (a line, or a fill's edge)
    lighter = cv2.dilate(gray, np.ones((5, 5), np.uint8)).astype(np.int16)
    edge = ((lighter - gray.astype(np.int16)) > p.line_contrast).astype(np.uint8)
    outline = cv2.dilate(edge, np.ones((3, 3), np.uint8))
    hug = max(2, round(q.hug * side))
    angles = np.linspace(0, 2 * np.pi, 30, endpoint=False)
    kept: list[Contour] = []
    for gx, gy, gr in guesses:
        circle = _fit_circle(outline, gx, gy, gr, q)
        if circle is None:
            continue
        cx, cy, r = circle
        if cx - r < -hug or cy - r < -hug or cx + r > ww - 1 + hug or cy + r > hh - 1 + hug:
            continue  # not inside its host
        pts = np.stack([cx + r * np.cos(angles), cy + r * np.sin(angles)], axis=1)
        kept.append(np.clip(np.round(pts), 0, [ww - 1, hh - 1]).astype(np.int32).reshape(-1, 1, 2))
    return kept


def _fit_circle(
    outline: Mask, cx: float, cy: float, r: float, q: InsetParams
) -> tuple[float, float, float] | None:
    """The circle near (cx, cy, r) best covered by ``outline``, when it is drawn round nearly
    all of it, as a frame line drawn with compasses is (a head or a round balloon in the art
    is only roughly round)."""
    hh, ww = outline.shape

    def cover(x: np.ndarray, y: np.ndarray, rad: np.ndarray, n: int = 180) -> np.ndarray:
        angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
        px = np.clip(np.round(x[..., None] + rad[..., None] * np.cos(angles)), 0, ww - 1).astype(np.intp)
        py = np.clip(np.round(y[..., None] + rad[..., None] * np.sin(angles)), 0, hh - 1).astype(np.intp)
        return np.asarray(outline[py, px].mean(axis=-1), np.float64)

    best = (0.0, cx, cy, r)
    # Hough's centres and radii are rough: a coarse search, then a fine one where it is promising
    for reach, step, n, least in ((20, 4, 60, q.circle_cover - 0.15), (3, 1, 180, q.circle_cover)):
        offsets = np.arange(-reach, reach + 1, step, dtype=np.float64)
        x, y, rad = np.meshgrid(best[1] + offsets, best[2] + offsets, best[3] + offsets, indexing="ij")
        got = cover(x, y, rad, n)
        k = np.unravel_index(int(np.argmax(got)), got.shape)
        best = (float(got[k]), float(x[k]), float(y[k]), float(rad[k]))
        if best[0] < least:
            return None
    return best[1:]


def _box_overlap(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _overlaps(c: Contour, others: list[Contour]) -> bool:
    x, y, w, h = cv2.boundingRect(c)
    for o in others:
        ox, oy, ow, oh = cv2.boundingRect(o)
        if _box_overlap((x, y, x + w, y + h), (ox, oy, ox + ow, oy + oh)):
            return True
    return False
