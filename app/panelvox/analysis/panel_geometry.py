"""Geometry helpers of the classical panel detector: its tuning, page-edge bleeds, ruled borders.

Split from :mod:`panelvox.analysis.panels_stage`, which runs the detector; everything here
works on the detector's downscaled working copy of the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

#: OpenCV returns loosely typed arrays; masks are uint8 0/1, contours int32 points.
Mask = npt.NDArray[Any]
Contour = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class ClassicalParams:
    """Tuning of the classical detector (fractions are of the page unless named otherwise)."""

    work_size: int = 900  # longer side of the working copy, pixels
    margin: float = 0.015  # width of the ring the paper colour is taken from
    ink_threshold: float = 28.0  # Lab distance from the paper colour that counts as ink
    min_panel_area: float = 0.02  # smaller regions are balloons, figures cut off a panel, logos
    cut_tolerance: float = 0.12  # a cut line may cross this share of filled pixels...
    max_bridge: float = 0.65  # ...or this share, where it is a sharp dip (a bridged gutter)
    dip_depth: float = 0.3  # how much more the lines beside a bridged gutter are filled
    dip_width: float = 0.02  # how far beside it (share of the page side; half a wide gutter)
    min_cut_content: float = 0.04  # each side of a cut must hold this share of the region
    max_depth: int = 8
    # ruled borders (panels sharing a frame line, no paper between them)
    line_kernel: float = 0.03  # straight strokes this long (share of the page side) may be borders
    line_contrast: float = 70.0  # a border is this much darker (grey levels) than one side
    line_gap: float = 0.02  # gaps this long in a border (a balloon breaking the frame) close
    line_band: float = 0.015  # borders this close (share of the short side) are one line
    line_cover: float = 0.75  # a border cut: border strokes cover this share of the line...
    line_run: float = 0.3  # ...one unbroken stroke at least this share...
    line_isolation: float = 0.03  # ...and within this distance (share of the page side)...
    line_neighbours: int = 1  # ...lie at most this many other ruled lines (not hatching)
    min_line_content: float = 0.1  # each side of a border cut must hold this share of the region
    min_line_len: float = 0.15  # a border is at least this long (share of the page side)
    min_line_part: float = 0.12  # each side of a border cut is at least this deep
    line_reach: float = 0.015  # a border runs to within this of the region's outline at both
    # ends (share of the page side): door frames and horizons inside a panel stop short...
    line_reach_frame: float = 0.2  # ...or end on a frame line this long (share of the region)...
    line_span: float = 0.9  # ...or run along this share of the region (art overlaps an end)
    sliver_aspect: float = 5.0  # a region this many times longer than wide may be a cut-off sliver
    open_size: float = 0.008  # strands thinner than this (share of the short side) are cut
    edge_inset: float = 0.004  # scans are cropped unevenly: look for bleeds this far inside
    max_gutter: float = 0.05  # wider stretches of paper along an edge are a bleeding panel
    seal_corners: bool = True  # close white panels bled off two sides at a page corner...
    max_edge_ink: float = 0.5  # ...unless an edge is mostly ink (a binding shadow)...
    max_corner_panel: float = 0.7  # ...or the panel would cover most of the page (a margin)
    notch_depth: float = 0.03  # a short stretch of edge paper is a gutter only if ink walls
    # run this far inward on both sides of it; otherwise a notch in a bleeding panel's art
    seal_sides: bool = True  # close white panels bled off three sides...
    max_side_panel: float = 0.45  # ...at most this deep
    # slanted gutters (manga): where no straight cut is left, cuts tilted by these slopes
    # (rise per run, both ways) are tried, with the same gutter and bridged-gutter rules
    slants: tuple[float, ...] = (0.04, 0.08, 0.12, 0.16, 0.22)
    slant_size: int = 300  # longer side of the copy slanted cuts are searched on, pixels
    fragment_area: float = 0.04  # a region this small cut off a panel through its art...
    fragment_seam: float = 0.5  # ...along this share of its shorter side is part of that panel
    fragment_fill: float = 0.93  # ...unless it is a rectangle (fills this share of its box)
    insets: bool = True  # look for panels drawn inside a panel (panelvox.analysis.panel_insets)
    max_panels: int = 24  # more regions than this: not a panel layout (a text page)
    min_coverage: float = 0.20  # panels covering less of the page: not a panel layout


def seal_bleeds(ink: Mask, p: ClassicalParams) -> None:  # noqa: C901 (over the budget before it existed; split it when next changed)
    """Close panels whose frame runs off the page edge, in place.

    Along each edge, a stretch of paper between two inked points is a gutter when it is
    short and walled (ink runs inward beside both ends: the frame lines of the panels on
    either side) and the inside of a bleeding panel otherwise (long, or a short notch
    between art and a frame); those are inked so the panel's outline closes along the edge. A corner is inside a bleeding panel when
    both edges meeting there run a long way on paper from their last inked point to it
    (a white panel bled off two sides: only its two inner frame lines reach the edges).
    """
    h, w = ink.shape
    k = max(1, round(p.edge_inset * min(h, w)))
    # top, bottom, left, right: each a view of the inset line, start at the top/left corner
    edges = [
        ink[min(k, h - 1), :],
        ink[max(0, h - 1 - k), :],
        ink[:, min(k, w - 1)],
        ink[:, max(0, w - 1 - k)],
    ]
    found = [np.flatnonzero(e) for e in edges]
    # the ink inward of each inset line, depth first: (depth, position along the line)
    d = max(3, round(p.notch_depth * min(h, w)))
    bands = [ink[k : k + d, :], ink[h - 1 - k : max(0, h - 1 - k - d) : -1, :]]
    bands += [ink[:, k : k + d].T, ink[:, w - 1 - k : max(0, w - 1 - k - d) : -1].T]
    for line, on, band in zip(edges, found, bands, strict=True):
        if on.size < 2:
            continue
        gaps = np.diff(on)
        for i in np.flatnonzero(gaps > 1):
            a, b = int(on[i]), int(on[i + 1])
            if gaps[i] <= p.max_gutter * line.size and _walled(band, a, b):
                continue  # a gutter: frame lines run inward on both sides of it
            line[a : b + 1] = 1
    if not p.seal_corners:
        return
    # corners: (edge, end) pairs meeting there; end 0 = start of the line, 1 = its end
    for (ea, enda), (eb, endb) in (((0, 0), (2, 0)), ((0, 1), (3, 0)), ((1, 0), (2, 1)), ((1, 1), (3, 1))):
        ona, onb = found[ea], found[eb]
        if ona.size == 0 or onb.size == 0:
            continue
        if max(ona.size / edges[ea].size, onb.size / edges[eb].size) > p.max_edge_ink:
            continue  # a dark scan border or binding shadow, not frame lines meeting the edge
        la, lb = edges[ea].size, edges[eb].size
        da = int(ona[0]) if enda == 0 else la - 1 - int(ona[-1])
        db = int(onb[0]) if endb == 0 else lb - 1 - int(onb[-1])
        if da > p.max_gutter * la and db > p.max_gutter * lb and da * db < p.max_corner_panel * la * lb:
            if enda == 0:
                edges[ea][: int(ona[0]) + 1] = 1
            else:
                edges[ea][int(ona[-1]) :] = 1
            if endb == 0:
                edges[eb][: int(onb[0]) + 1] = 1
            else:
                edges[eb][int(onb[-1]) :] = 1
    # a panel bled off three sides: no ink on one edge, and on both edges beside it one
    # crossing only, well away from it, at the same depth (one border from edge to edge)
    for e, end, (s1, s2) in ((0, 0, (2, 3)), (1, 1, (2, 3)), (2, 0, (0, 1)), (3, 1, (0, 1))):
        if not p.seal_sides or found[e].size or not found[s1].size or not found[s2].size:
            continue
        n = edges[s1].size
        d1 = int(found[s1][0]) if end == 0 else n - 1 - int(found[s1][-1])
        d2 = int(found[s2][0]) if end == 0 else n - 1 - int(found[s2][-1])
        if min(d1, d2) <= p.max_gutter * n or max(d1, d2) > p.max_side_panel * n:
            continue
        if abs(d1 - d2) > p.max_gutter * n:
            continue  # not one border running from edge to edge
        if any(int(found[i][-1] - found[i][0]) > p.max_gutter * n for i in (s1, s2)):
            continue  # more than that border reaches the side edges: art bleeds there
        edges[e][:] = 1
        for side in (s1, s2):
            if end == 0:
                edges[side][: int(found[side][0]) + 1] = 1
            else:
                edges[side][int(found[side][-1]) :] = 1


def _walled(band: Mask, a: int, b: int) -> bool:
    """Whether ink runs inward from the edge beside both ends of the paper stretch ``a..b``."""
    if band.shape[0] == 0:
        return True
    left = band[:, max(0, a - 2) : a + 1].any(axis=1).mean()
    right = band[:, b : b + 3].any(axis=1).mean()
    return bool(left >= 0.8 and right >= 0.8)


def frame_lines(rgb: Mask, ink: Mask, p: ClassicalParams) -> tuple[Mask, Mask]:
    """Long straight horizontal and vertical dark lines (frame borders), thickened to a band.

    A border is darker than what lies on at least one side of it (the gutter's paper, the
    panel's background, screen tone), so only ink pixels clearly darker than the pixels a
    couple of rows above or below (left or right, for vertical borders) count: the inside
    of a solid black fill does not, a border with art touching one side does.
    """
    h, w = ink.shape
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.int16)
    out = []
    for axis in (0, 1):
        k = 2
        lighter = np.zeros(gray.shape, np.int16)
        if axis == 0:
            lighter[k:] = np.maximum(lighter[k:], gray[:-k])
            lighter[:-k] = np.maximum(lighter[:-k], gray[k:])
        else:
            lighter[:, k:] = np.maximum(lighter[:, k:], gray[:, :-k])
            lighter[:, :-k] = np.maximum(lighter[:, :-k], gray[:, k:])
        edge = ((ink > 0) & (lighter - gray > p.line_contrast)).astype(np.uint8)
        n = max(5, round(p.line_kernel * (w if axis == 0 else h)))
        strokes = cv2.morphologyEx(edge, cv2.MORPH_OPEN, np.ones((1, n) if axis == 0 else (n, 1), np.uint8))
        # a balloon breaking the frame leaves a short gap in the border
        g = max(3, round(p.line_gap * (w if axis == 0 else h)))
        strokes = cv2.morphologyEx(
            strokes, cv2.MORPH_CLOSE, np.ones((1, g) if axis == 0 else (g, 1), np.uint8)
        )
        # the two borders facing across a narrow gutter count as one line: where art breaks
        # one of them, the other usually runs on
        b = max(3, round(p.line_band * min(h, w)) | 1)
        out.append(cv2.dilate(strokes, np.ones((b, 1) if axis == 0 else (1, b), np.uint8)))
    return out[0], out[1]


def longest_runs(m: Mask) -> npt.NDArray[np.float64]:
    """Length of the longest run of set pixels in each column of ``m``."""
    rows, cols = m.shape
    padded = np.zeros((rows + 2, cols), np.int8)
    padded[1:-1] = m > 0
    d = np.diff(padded, axis=0).T  # per column
    out = np.zeros(cols, np.float64)
    sc, sr = np.nonzero(d == 1)
    _, er = np.nonzero(d == -1)
    if sc.size:
        np.maximum.at(out, sc, (er - sr).astype(np.float64))
    return out


def line_reach(ruled: Mask, own: Mask, across: Mask, tol: int, p: ClassicalParams) -> npt.NDArray[np.bool_]:
    """Per row, whether the ruled stroke runs from the region's outline to its outline.

    ``ruled`` and ``own`` (the region's filled pixels) hold one row per candidate line;
    ``across`` holds the ruled strokes perpendicular to the rows, over the whole region
    (same columns, one row per line of the region). A frame border
    shared by two panels runs from outline to outline (``tol`` pixels of slack at each end),
    or ends on another long frame line (the outer frame of panels drawn inside a page
    margin), or runs along nearly all of the region (art overlapping one end). A door frame
    or a horizon drawn inside a panel stops short at one end, at a floor or a figure.
    """
    n = ruled.shape[1]
    r, f = ruled > 0, own > 0
    has = r.any(axis=1) & f.any(axis=1)
    first_r, last_r = np.argmax(r, axis=1), n - 1 - np.argmax(r[:, ::-1], axis=1)
    first_f, last_f = np.argmax(f, axis=1), n - 1 - np.argmax(f[:, ::-1], axis=1)
    start = first_r - first_f <= tol
    end = last_f - last_r <= tol
    spans = last_r - first_r + 1 >= p.line_span * (last_f - first_f + 1)
    ok = has & ((start & end) | spans)
    if (has & ~ok).any():
        # long perpendicular strokes (frame lines, not a window sill) near each end
        frames = longest_runs(across) >= p.line_reach_frame * across.shape[0]
        cum = np.concatenate([[0], np.cumsum(frames, dtype=np.int32)])

        def crossed(at: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
            lo, hi = np.clip(at - tol, 0, n), np.clip(at + tol + 1, 0, n)
            return np.asarray(cum[hi] - cum[lo] > 0)

        ok |= has & (start | crossed(first_r)) & (end | crossed(last_r))
    return np.asarray(ok)


def line_cut(
    cover: npt.NDArray[np.float64], prof: npt.NDArray[np.float64], page_len: int, p: ClassicalParams
) -> tuple[float, int] | None:
    """A cut along a ruled frame line that spans the region: panels sharing a border, no gutter.

    ``cover`` is the share of each line covered by long straight strokes; a frame border
    covers nearly all of it. Hatching repeats, a border does not: at most one other ruled
    line (the facing panel's border across a narrow gutter) may lie nearby.
    """
    n = cover.size
    if n < 8:
        return None
    total = prof.sum()
    if total <= 0:
        return None
    cum = np.cumsum(prof) / total
    m = round(p.min_line_part * page_len)
    lo = max(1, m, int(np.searchsorted(cum, p.min_line_content)))
    hi = min(n - 1 - m, int(np.searchsorted(cum, 1.0 - p.min_line_content)))
    if hi <= lo:
        return None
    strong = cover >= p.line_cover
    cand = np.flatnonzero(strong[lo:hi]) + lo
    if cand.size == 0:
        return None
    d = max(3, round(p.line_isolation * page_len))
    band = max(3, round(p.line_band * page_len))
    best: tuple[float, int] | None = None
    for run in np.split(cand, np.flatnonzero(np.diff(cand) > 1) + 1):
        a, b = int(run[0]), int(run[-1])
        near = strong[max(0, a - d) : min(n, b + d + 1)]
        runs = int(np.count_nonzero(np.diff(near.astype(np.int8)) == 1)) + int(near[0])
        if runs > p.line_neighbours + 1 or b - a > 3 * band:
            continue  # hatching or a ruled background, not a border
        score = 1.0 - float(cover[a : b + 1].max())
        if best is None or score < best[0]:
            best = (score + 0.02, (a + b) // 2)
    return best


def slanted_profiles(
    own: Mask, p: ClassicalParams
) -> list[tuple[int, float, float, npt.NDArray[np.float64]]]:
    """Filled share along tilted lines of a region: ``(axis, slope, scale, profile)`` per slope.

    Axis 0 profiles run down the region (one value per nearly horizontal line
    ``y = i + slope * (x - w / 2)``), axis 1 across it (nearly vertical lines). They are
    taken on a copy at most ``p.slant_size`` pixels long; ``scale`` maps its indices back.
    Lines that leave the region over a tenth of their length read as filled (no cut there).
    """
    h, w = own.shape
    scale = min(1.0, p.slant_size / max(h, w))
    src: Mask = own.astype(np.float32)
    if scale < 1.0:
        src = cv2.resize(
            src, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
    out = []
    for axis in (0, 1):
        m = src if axis == 0 else np.ascontiguousarray(src.T)
        mh, mw = m.shape
        if mh < 8 or mw < 8:
            continue
        cx = mw / 2.0
        rows = np.arange(mh, dtype=np.float64)
        for slope in (*p.slants, *(-s for s in p.slants)):
            # destination (x, i) reads the source at (x, i + slope * (x - cx))
            aff = np.array([[1.0, 0.0, 0.0], [slope, 1.0, -slope * cx]], np.float64)
            flags = cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP
            sheared = cv2.warpAffine(m, aff, (mw, mh), flags=flags, borderValue=0.0)
            # how many x keep the line inside the copy: 0 <= i + slope * (x - cx) < mh
            lo, hi = cx - rows / slope, cx + (mh - rows) / slope
            if slope < 0:
                lo, hi = hi, lo
            valid = np.clip(hi, 0, mw) - np.clip(lo, 0, mw)
            prof = sheared.sum(axis=1) / np.maximum(valid, 1.0)
            prof[valid < 0.9 * mw] = 1.0
            out.append((axis, slope, scale, prof.astype(np.float64)))
    return out


def slanted_split(own: Mask, axis: int, slope: float, idx: int) -> tuple[Mask, Mask, Mask]:
    """The two sides of a tilted cut through ``own`` and the cut itself (two pixels thick,
    so no diagonal step of the line joins the sides), all shaped like ``own``."""
    h, w = own.shape
    if axis == 0:
        xs = np.arange(w, dtype=np.float64)
        line = np.rint(idx + slope * (xs - w / 2.0)).astype(np.int64)[None, :]
        pos = np.arange(h)[:, None]
    else:
        ys = np.arange(h, dtype=np.float64)
        line = np.rint(idx + slope * (ys - h / 2.0)).astype(np.int64)[:, None]
        pos = np.arange(w)[None, :]
    on = own > 0
    before = on & (pos < line)
    after = on & (pos > line + 1)
    cut = ((pos == line) | (pos == line + 1)) & np.ones_like(on)
    return before.astype(np.uint8), after.astype(np.uint8), cut.astype(np.uint8)
