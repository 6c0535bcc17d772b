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
    min_panel_area: float = 0.012  # smaller regions are balloons, page numbers, logos
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
    sliver_aspect: float = 5.0  # a region this many times longer than wide may be a cut-off sliver
    open_size: float = 0.008  # strands thinner than this (share of the short side) are cut
    edge_inset: float = 0.004  # scans are cropped unevenly: look for bleeds this far inside
    max_gutter: float = 0.05  # wider stretches of paper along an edge are a bleeding panel
    seal_corners: bool = True  # close white panels bled off two sides at a page corner...
    max_edge_ink: float = 0.5  # ...unless an edge is mostly ink (a binding shadow)...
    max_corner_panel: float = 0.7  # ...or the panel would cover most of the page (a margin)
    seal_sides: bool = True  # close white panels bled off three sides...
    max_side_panel: float = 0.45  # ...at most this deep
    max_panels: int = 24  # more regions than this: not a panel layout (a text page)
    min_coverage: float = 0.20  # panels covering less of the page: not a panel layout


def seal_bleeds(ink: Mask, p: ClassicalParams) -> None:
    """Close panels whose frame runs off the page edge, in place.

    Along each edge, a stretch of paper between two inked points is a gutter when it is
    short and the inside of a bleeding panel when it is long; the long ones are inked so the
    panel's outline closes along the page edge. A corner is inside a bleeding panel when
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
    for line, on in zip(edges, found, strict=True):
        if on.size < 2:
            continue
        gaps = np.diff(on)
        for i in np.flatnonzero(gaps > p.max_gutter * line.size):
            line[int(on[i]) : int(on[i + 1]) + 1] = 1
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
