"""Where a speech balloon's tail points: its body, its tail and the tail's true tip.

The balloon's region comes from a flood fill bounded by the page's dark strokes thickened
by a pixel (so the fill does not escape through small breaks in an outline). That
thickening also closes the thin end of a wedge-shaped tail: the fill stops where the
wedge's inside is about two pixels wide, often tens of pixels before the tip, and a very
narrow wedge is hardly entered at all. :func:`follow_wedge` follows the light channel
between the wedge's two edges on the *unthickened* stroke mask until they meet; a
channel that widens out is a leak through a broken outline and is not taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.model import Point, Tail

Mask = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Wedge:
    """The thin end of a tail beyond the filled region (crop coordinates)."""

    tip: tuple[float, float]
    start: tuple[float, float]  # where the channel leaves the filled region
    channel: Mask  # 1 on the channel's pixels
    length: float  # distance of the tip from the filled region, in pixels


def balloon_body(filled: Mask) -> Mask:
    """The balloon without its tail: an opening by a disc of 30 % of the smaller side.

    Done with two distance transforms, so the cost does not grow with the disc (a
    morphological opening by a large ellipse takes seconds on a page-sized region)."""
    _x, _y, bw, bh = cv2.boundingRect(filled)
    if bw == 0:
        return filled.copy()
    radius = max(5, int(0.3 * min(bw, bh)) | 1) / 2
    inner = cv2.distanceTransform(filled, cv2.DIST_L2, cv2.DIST_MASK_PRECISE) > radius
    if not inner.any():
        return np.zeros_like(filled)
    grown = cv2.distanceTransform((~inner).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    return ((grown <= radius) & (filled > 0)).astype(np.uint8)


def find_tail(filled: Mask, origin: tuple[int, int], body: Mask | None = None) -> Tail | None:
    """The tail: the thin part that an opening removes from the balloon's body."""
    found = _tail_parts(filled, body)
    if found is None:
        return None
    length, tx, ty, bx0, by0, side = found
    return _tail(tx, ty, bx0, by0, length, side, origin)


def _tail_parts(filled: Mask, body: Mask | None) -> tuple[float, float, float, float, float, float] | None:
    """(length, tip x, tip y, base x, base y, the balloon's smaller side) of the tail."""
    if cv2.countNonZero(filled) < 50:
        return None
    _x, _y, bw, bh = cv2.boundingRect(filled)
    if body is None:
        body = balloon_body(filled)
    # no opening of the residual: it would erase a narrow wedge; specks along a ragged
    # outline are too short to pass as a tail
    residual = cv2.subtract(filled, body)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(residual, connectivity=8)
    if n <= 1 or not body.any():
        return None
    by, bx = np.nonzero(body)
    cx, cy = float(bx.mean()), float(by.mean())
    body_dist = cv2.distanceTransform((1 - body).astype(np.uint8), cv2.DIST_L2, 3)
    best: tuple[float, float, float, float, float] | None = None
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < 20:
            continue
        # within the component's box: the window can be far larger than the tail
        x, y = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        ry, rx = np.nonzero(labels[y : y + h, x : x + w] == i)
        ry, rx = ry + y, rx + x
        d = body_dist[ry, rx]
        j = int(np.argmax(d))
        length = float(d[j])
        if best is None or length > best[0]:
            base = d <= 2.5
            bx0 = float(rx[base].mean()) if base.any() else cx
            by0 = float(ry[base].mean()) if base.any() else cy
            best = (length, float(rx[j]), float(ry[j]), bx0, by0)
    side = float(min(bw, bh))
    if best is None or best[0] < max(5.0, 0.08 * side):
        return None
    return (*best, side)


def _tail(
    tx: float,
    ty: float,
    bx0: float,
    by0: float,
    length: float,
    side: float,
    origin: tuple[int, int],
) -> Tail:
    # the way the tail itself points (base to tip), not where it sits on the balloon: a
    # tail on a balloon's left side may lean right, towards a speaker below the middle
    dx, dy = tx - bx0, ty - by0
    angle = math.degrees(math.atan2(dy, dx)) % 360
    conf = min(0.95, 0.4 + length / (0.6 * side))
    return Tail(Point(tx + origin[0], ty + origin[1]), round(angle, 1), round(conf, 3))


def follow_wedge(
    filled: Mask,
    light: Mask,
    near: tuple[float, float] | None = None,
    max_width: float = 3.5,
) -> Wedge | None:
    """The light channel that continues a tail beyond ``filled`` (both masks one crop).

    ``light`` is 1 where the page is not stroke (no thickening). The channel is the part
    of the light pixels connected to ``filled`` that lies more than two pixels out (past
    the one-pixel ring the thickened strokes left unfilled). It must stay thin (mean
    width ≤ ``max_width``): a wide one is the panel behind a broken outline. With
    ``near`` (the tail found on the filled region), only a channel starting close to it
    is taken; without, the longest thin channel, if long enough to be a tail.
    """
    if cv2.countNonZero(filled) < 50:
        return None
    _x, _y, bw, bh = cv2.boundingRect(filled)
    side = float(min(bw, bh))
    free = ((light == 1) & (filled == 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(free, connectivity=8)
    if n <= 1:
        return None
    touching = np.unique(labels[cv2.dilate(filled, np.ones((3, 3), np.uint8)) > 0])
    touching = touching[touching > 0]
    if len(touching) == 0:
        return None
    dist = cv2.distanceTransform((1 - filled).astype(np.uint8), cv2.DIST_L2, 3)
    candidate = (np.isin(labels, touching) & (dist >= 2.5)).astype(np.uint8)
    m, parts, stats, _ = cv2.connectedComponentsWithStats(candidate, connectivity=8)
    best: Wedge | None = None
    min_len = max(6.0, 0.06 * side) if near is not None else max(10.0, 0.12 * side)
    if m <= 1:
        return None
    # per channel in one pass (a halftone behind a broken outline makes thousands)
    index = np.arange(1, m)
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    on = candidate > 0
    lab, dv = parts[on].astype(np.intp), dist[on].astype(np.float64)
    d_min, d_max = np.full(m, np.inf), np.zeros(m)
    np.minimum.at(d_min, lab, dv)
    np.maximum.at(d_max, lab, dv)
    d_min, d_max = d_min[1:], d_max[1:]
    # joined to the region (not a pocket behind a letter), long, and thin
    keep = (area >= 4) & (d_min <= 3.5) & (d_max >= min_len) & (area <= max_width * d_max)
    for i in index[keep]:
        x, y = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        py, px = np.nonzero(parts[y : y + h, x : x + w] == i)
        py, px = py + y, px + x
        d = dist[py, px]
        j = int(np.argmax(d))
        length = float(d[j])
        start_sel = d <= float(d.min()) + 1.5
        start = (float(px[start_sel].mean()), float(py[start_sel].mean()))
        if near is not None and math.dist(start, near) > max(12.0, 0.2 * side):
            continue
        if best is None or length > best.length:
            channel = (parts == i).astype(np.uint8)
            best = Wedge((float(px[j]), float(py[j])), start, channel, length)
    return best


def trace_spike(
    light: Mask, tip: tuple[float, float], toward: tuple[float, float], max_len: float
) -> tuple[float, float]:
    """Where the merged strokes at a wedge's end stop: the tail's real tip.

    Past the last light pixel of a narrow wedge its two edges run on as one dark spike
    (the scan blurs them together). Walk from ``tip`` along ``toward`` (a direction),
    recentring on the dark run across the walk at each step, until no stroke is left
    ahead, or the run widens (the spike ran into the artwork), or ``max_len`` is reached.
    ``light`` is 1 on paper, 0 on strokes, 2 off the page.
    """
    h, w = light.shape[:2]
    norm = math.hypot(*toward)
    if norm == 0:
        return tip
    dx, dy = toward[0] / norm, toward[1] / norm
    x, y = tip
    reach = 6
    offsets = np.arange(-reach, reach + 1, dtype=np.float64)
    start_span: float | None = None
    walked = 0.0
    while walked < max_len:
        nx, ny = x + dx, y + dy
        px = np.rint(nx - dy * offsets).astype(np.int64)
        py = np.rint(ny + dx * offsets).astype(np.int64)
        inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        if not inside.all():
            break
        dark = light[py, px] == 0
        if not dark.any():
            break
        hit = offsets[dark]
        span = float(hit.max() - hit.min() + 1)
        if start_span is None:
            start_span = span
        elif span > start_span + 3 or (dark[0] and dark[-1]):
            break  # widening: the artwork behind, not the tail
        mid = float(hit.mean())
        cx, cy = nx - dy * mid, ny + dx * mid
        # follow a gently curving spike, but never turn back
        sx, sy = cx - x, cy - y
        sn = math.hypot(sx, sy) or 1.0
        ndx, ndy = 0.7 * dx + 0.3 * sx / sn, 0.7 * dy + 0.3 * sy / sn
        nn = math.hypot(ndx, ndy) or 1.0
        dx, dy = ndx / nn, ndy / nn
        walked += math.hypot(cx - x, cy - y)
        x, y = cx, cy
    return (x, y)


def tail_with_wedge(
    filled: Mask, light: Mask | None, origin: tuple[int, int], body: Mask | None = None
) -> tuple[Tail | None, Mask | None]:
    """The tail of ``filled`` (crop at ``origin``), its tip moved to the end of the wedge
    when ``light`` (1 paper, 0 stroke, 2 off the page) shows the wedge going on; also the
    pixels to add to the balloon's outline for it (``None`` when there are none)."""
    if body is None:
        body = balloon_body(filled)
    found = _tail_parts(filled, body)
    if light is None:
        return find_tail(filled, origin, body), None
    channel: Mask | None = None
    if found is not None:
        length, tx, ty, bx0, by0, side = found
        wedge = follow_wedge(filled, light, near=(tx, ty))
        if wedge is not None:
            (tx, ty), channel = wedge.tip, wedge.channel
            length += wedge.length
    else:
        wedge = follow_wedge(filled, light)
        if wedge is None:
            return None, None
        _x, _y, bw, bh = cv2.boundingRect(filled)
        side = float(min(bw, bh))
        (tx, ty), (bx0, by0), channel, length = wedge.tip, wedge.start, wedge.channel, wedge.length
    end = trace_spike(light, (tx, ty), (tx - bx0, ty - by0), max(20.0, 0.35 * side))
    if math.dist(end, (tx, ty)) >= 2:
        spike = np.zeros_like(filled)
        cv2.line(spike, (round(tx), round(ty)), (round(end[0]), round(end[1])), 1, 2)
        channel = spike if channel is None else np.maximum(channel, spike)
        length += math.dist(end, (tx, ty))
        tx, ty = end
    return _tail(tx, ty, bx0, by0, length, side, origin), channel
