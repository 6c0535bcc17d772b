"""Panel detection: a classical CPU detector (no model download) and the ``panels`` stage.

The classical detector works on a downscaled copy of the page:

1. the paper colour is estimated from the page margin (white, yellowed or black);
2. everything that differs from it is "ink"; panels bled off the page edges are closed along
   the edge (also at a corner, or off three sides); each ink region's outer contour is
   filled, so a framed panel becomes one solid region whatever is drawn inside it; a
   region that encloses a network of gutters (a frame round the page, or panels on a black
   page joined along its sealed side edges) is filled less that network;
3. regions joined by a balloon or a figure that crosses a gutter are split by a recursive
   XY-cut over the filled mask: at each step the cleanest cut line (fewest filled pixels,
   horizontal or vertical) below a tolerance is cut, one pixel wide. A long, straight, dark
   border line spanning the region is a cut too (panels sharing a frame line with no paper
   between them, screen tone on both sides), unless it repeats like hatching or stops short
   of the region's outline (a door frame, a horizon). Where no straight cut is left, a
   slanted gutter (tilted up to about 12 degrees) may be cut;
4. a small ragged region cut off another through filled pixels (a figure or balloon cut off
   its panel) is joined back to it; regions large enough to be panels become panels
   (bounding box, outline polygon when the shape is not a rectangle, confidence from how
   panel-like the shape is); a page whose structure is implausible (one tiny region, a
   text page) gets no panels;
5. inside each panel, insets (panels drawn inside it, set into a corner or along an edge
   of a splash) are looked for by their own frames (:mod:`panelvox.analysis.panel_insets`);
   they are panels too, inside their host.

Detectors follow :class:`panelvox.models.detector_contract.PanelDetector`, so an ONNX model
can replace or join this one; both produce :class:`~panelvox.model.Panel`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.panel_geometry import (
    ClassicalParams,
    Contour,
    Mask,
    frame_lines,
    line_cut,
    line_reach,
    longest_runs,
    seal_bleeds,
    slanted_profiles,
    slanted_split,
)
from panelvox.analysis.panel_insets import INSET, find_insets
from panelvox.model import BBox, Image, PageAnalysis, Panel, Point
from panelvox.models.detector_contract import PanelDetector

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, eq=False)
class _Region:
    bbox: tuple[int, int, int, int]  # x0, y0, x1, y1 on the working copy, exclusive ends
    contour: Contour
    area: float
    inset: bool = False  # drawn inside another region (panelvox.analysis.panel_insets)


class ClassicalPanelDetector:
    """Gutter and contour analysis with OpenCV; CPU only, no model."""

    name = "classical"

    def __init__(self, params: ClassicalParams | None = None) -> None:
        self.params = params or ClassicalParams()

    def detect_panels(self, image: Image) -> tuple[Panel, ...]:
        """Panels of ``image`` (RGB uint8), unordered, in page pixel coordinates."""
        p = self.params
        h, w = image.shape[:2]
        if h < 16 or w < 16:
            return ()
        scale = min(1.0, p.work_size / max(h, w))
        small: Mask = (
            cv2.resize(
                image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
            )
            if scale < 1.0
            else image
        )
        regions = self._regions(small, *_ink_mask(small, p))
        if not _plausible(regions, small.shape[0] * small.shape[1], p):
            return ()
        panels = []
        for i, reg in enumerate(sorted(regions, key=lambda r: (r.bbox[1], r.bbox[0])), start=1):
            panels.append(_to_panel(reg, i, 1.0 / scale, w, h, f"panels:{self.name}"))
        return tuple(panels)

    def _regions(self, small: Mask, ink: Mask, raw: Mask) -> list[_Region]:
        """Candidate panel regions of the working copy, before the plausibility check."""
        p = self.params
        filled = _fill_regions(ink, p)
        cuts = np.zeros_like(filled)
        sh, sw = filled.shape
        lines = frame_lines(small, raw, p)
        _xy_cut(filled, (0, 0, sw, sh), p, cuts, 0, lines)
        seam = (cuts > 0) & (filled > 0)  # cuts through art, not along an empty gutter
        filled[cuts > 0] = 0
        regions = _merge_slivers(_join_fragments(_regions(_fill_regions(filled, p), p), seam, p), p)
        if not p.insets:
            return regions
        insets = [c for r in regions for c in find_insets(small, raw, lines, r.bbox, p)]
        return regions + [_Region(_box(c), c, float(cv2.contourArea(c)), inset=True) for c in insets]


class PanelStage:
    """The ``panels`` stage: runs one detector and records it as ``panels:<detector>``."""

    name = "panels"

    def __init__(self, detector: PanelDetector | None = None) -> None:
        self.detector: PanelDetector = detector or ClassicalPanelDetector()

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        panels = self.detector.detect_panels(image)
        return replace(analysis, panels=panels, stages=(*analysis.stages, f"panels:{self.detector.name}"))


# -- steps -------------------------------------------------------------------------------


def _ink_mask(rgb: Mask, p: ClassicalParams) -> tuple[Mask, Mask]:
    """Pixels that differ from the paper colour (the commonest colour of the page margin).

    Returns the ink mask prepared for region filling (small breaks closed, bleeds sealed)
    and the raw one, where one-pixel gutters between two frame lines are still open.
    """
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    m = max(2, round(p.margin * min(h, w)))
    ring = np.concatenate(
        [
            lab[:m].reshape(-1, 3),
            lab[-m:].reshape(-1, 3),
            lab[:, :m].reshape(-1, 3),
            lab[:, -m:].reshape(-1, 3),
        ]
    )
    # The mode, not the median: art bleeding off the edge must not shift the paper colour.
    q = (ring // 16).astype(np.int32)
    keys = q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    mode = values[int(np.argmax(counts))]
    paper = np.median(ring[keys == mode], axis=0)
    dist = np.sqrt(((lab - paper) ** 2).sum(axis=2))
    # Paper grain and uneven yellowing: the threshold rises with the margin's own spread.
    near = np.sqrt(((ring - paper) ** 2).sum(axis=1))
    near = near[near < 2.0 * p.ink_threshold]
    spread = float(np.percentile(near, 90)) if near.size else 0.0
    thr = max(p.ink_threshold, 2.0 * spread)
    raw = (dist > thr).astype(np.uint8)
    # Faded frame lines with tiny breaks close (an opening would erase one-pixel frames).
    ink = cv2.morphologyEx(raw, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    seal_bleeds(ink, p)
    return ink, raw


def _fill_regions(mask: Mask, p: ClassicalParams) -> Mask:
    """Each connected region filled to its outer contour (a framed panel becomes solid).

    A region that frames the whole layout (a border drawn round the page, a scanner's dark
    edge) is not filled: the regions inside its gutter network are filled instead. Thin
    strands (binding shadows, balloon tails across a gutter) are then opened away.
    """
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    if hierarchy is None:
        return out
    tree = hierarchy[0]  # per contour: next, previous, first child, parent
    h, w = mask.shape
    page_area = float(h * w)

    def children(i: int) -> list[int]:
        kids = []
        c = int(tree[i][2])
        while c >= 0:
            kids.append(c)
            c = int(tree[c][0])
        return kids

    stack = [i for i in range(len(contours)) if tree[i][3] < 0]
    while stack:
        i = stack.pop()
        area = float(cv2.contourArea(contours[i]))
        holes = (
            [j for j in children(i) if _is_gutter_network(contours[j], area)]
            if area > 0.4 * page_area
            else []
        )
        if holes:
            # The region minus its gutter network: a frame round the page leaves a thin ring
            # (opened away below), panels joined along a sealed page edge stay panels.
            cv2.drawContours(out, contours, i, 1, thickness=cv2.FILLED)
            for j in holes:
                cv2.drawContours(out, contours, j, 0, thickness=cv2.FILLED)
                cv2.drawContours(out, contours, j, 0, thickness=2)
                stack.extend(children(j))
        else:
            cv2.drawContours(out, contours, i, 1, thickness=cv2.FILLED)
    k = max(3, round(p.open_size * min(h, w)))
    return cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))


def _is_gutter_network(hole: Contour, outer_area: float) -> bool:
    """A hole that is a large, thin network of paper (gutters), not a panel's empty inside."""
    area = float(cv2.contourArea(hole))
    _, _, bw, bh = cv2.boundingRect(hole)
    return area > 0.05 * outer_area and area < 0.5 * bw * bh and bw * bh > 0.5 * outer_area


def _xy_cut(  # noqa: C901 (over the budget before it existed: split when next changed)
    filled: Mask,
    region: tuple[int, int, int, int],
    p: ClassicalParams,
    cuts: Mask,
    depth: int,
    lines: tuple[Mask, Mask],
    own: Mask | None = None,
) -> None:
    """Mark in ``cuts`` the gutter lines that separate ``region`` into panels, recursively.

    ``own`` is the region's own filled pixels within its box (a slanted cut leaves the
    other side's pixels in the box of each side); by default all filled pixels of the box.
    """
    if depth > p.max_depth:
        return
    x0, y0, x1, y1 = region
    sub = filled[y0:y1, x0:x1] if own is None else own
    if sub.size == 0:
        return
    best: tuple[float, int, int] | None = None  # (score, axis 0=row 1=column, index)
    for axis in (0, 1):
        found = _best_cut(sub.mean(axis=1 - axis).astype(np.float64), filled.shape[axis], p)
        if found is not None and (best is None or found[0] < best[0] - 1e-9):
            best = (found[0], axis, found[1])
    # Ruled frame lines compete with gutters: panels that share a border (no paper between
    # them) or whose gutter is bridged by art are told apart by the border line itself.
    for axis in (0, 1):
        ruled = lines[axis][y0:y1, x0:x1]
        across = ruled.shape[1 - axis]
        if across < p.min_line_len * filled.shape[1 - axis]:
            continue  # too narrow a region for a border to tell from any stroke
        cover = ruled.mean(axis=1 - axis).astype(np.float64)
        longest = longest_runs(ruled if axis == 1 else ruled.T) / across
        cover[longest < p.line_run] = 0.0
        # a border runs from outline to outline; a door frame or a horizon stops short
        strong = np.flatnonzero(cover >= p.line_cover)
        if strong.size:
            perp = lines[1 - axis][y0:y1, x0:x1]
            tol = max(2, round(p.line_reach * filled.shape[1 - axis]))
            if axis == 0:
                reach = line_reach(ruled[strong], sub[strong], perp, tol, p)
            else:
                reach = line_reach(ruled.T[strong], sub.T[strong], perp.T, tol, p)
            cover[strong[~reach]] = 0.0
        found = line_cut(cover, sub.mean(axis=1 - axis).astype(np.float64), filled.shape[axis], p)
        if found is not None and (best is None or found[0] < best[0] - 1e-9):
            best = (found[0], axis, found[1])
    # Where no straight cut is left, a slanted gutter (common in manga) may still be cut.
    slanted: tuple[float, int, float, int] | None = None  # (score, axis, slope, index)
    if best is None and sub.sum() >= 2 * p.min_panel_area * filled.size:
        for axis, slope, scale, prof in slanted_profiles(sub, p):
            found = _best_cut(prof, round(filled.shape[axis] * scale), p)
            if found is not None and (slanted is None or found[0] < slanted[0]):
                slanted = (found[0], axis, slope, round(found[1] / scale))
    if slanted is not None:
        _, axis, slope, idx = slanted
        before, after, cut = slanted_split(sub, axis, slope, idx)
        cuts[y0:y1, x0:x1] |= cut
        for side in (before, after):
            box = _trim(side, (0, 0, x1 - x0, y1 - y0))
            if box is not None:
                bx0, by0, bx1, by1 = box
                part = (x0 + bx0, y0 + by0, x0 + bx1, y0 + by1)
                _xy_cut(filled, part, p, cuts, depth + 1, lines, side[by0:by1, bx0:bx1])
        return
    if best is None:
        return
    _, axis, idx = best
    if axis == 0:
        cuts[y0 + idx, x0:x1] = 1
        sides = [(0, 0, x1 - x0, idx), (0, idx + 1, x1 - x0, y1 - y0)]
    else:
        cuts[y0:y1, x0 + idx] = 1
        sides = [(0, 0, idx, y1 - y0), (idx + 1, 0, x1 - x0, y1 - y0)]
    for half in sides:
        box = _trim(sub, half)
        if box is not None:
            bx0, by0, bx1, by1 = box
            part = (x0 + bx0, y0 + by0, x0 + bx1, y0 + by1)
            _xy_cut(filled, part, p, cuts, depth + 1, lines, None if own is None else own[by0:by1, bx0:bx1])


def _best_cut(prof: npt.NDArray[np.float64], page_len: int, p: ClassicalParams) -> tuple[float, int] | None:
    """Best gutter along one axis of a region: (score, index), lower score is cleaner.

    A gutter is either nearly empty (a share of filled pixels below the tolerance) or a
    sharp, narrow dip in an otherwise filled profile: a balloon or figure bridging the gutter
    fills part of the line, but the panels on both sides fill much more of theirs.
    """
    n = prof.size
    if n < 8:
        return None
    total = prof.sum()
    if total <= 0:
        return None
    cum = np.cumsum(prof) / total
    lo = max(1, int(np.searchsorted(cum, p.min_cut_content)))
    hi = min(n - 1, int(np.searchsorted(cum, 1.0 - p.min_cut_content)))
    if hi <= lo:
        return None
    d = max(2, round(p.dip_width * page_len))
    padded = np.pad(prof, d, mode="edge")
    # filled share a gutter-width away on each side of every line
    before = padded[:n]
    after = padded[2 * d :]
    shoulder = np.minimum(before, after)
    dip = shoulder - prof
    score = np.where(
        prof < p.cut_tolerance,
        prof,
        np.where((dip >= p.dip_depth) & (prof < p.max_bridge), prof + 0.5 * (1.0 - dip), np.inf),
    )
    seg = score[lo:hi]
    k = int(np.argmin(seg))
    val = float(seg[k])
    if not np.isfinite(val):
        return None
    # centre of the flat minimum, so the cut runs down the middle of the gutter
    flat = np.flatnonzero(seg <= val + 1e-9)
    return val, lo + int(np.median(_run_around(flat, k)))


def _run_around(idx: npt.NDArray[np.intp], k: int) -> npt.NDArray[np.intp]:
    """The consecutive run of indices in ``idx`` that contains ``k``."""
    pos = int(np.searchsorted(idx, k))
    a = b = pos
    while a > 0 and idx[a - 1] == idx[a] - 1:
        a -= 1
    while b + 1 < idx.size and idx[b + 1] == idx[b] + 1:
        b += 1
    return idx[a : b + 1]


def _trim(mask: Mask, region: tuple[int, int, int, int]) -> tuple[int, int, int, int] | None:
    x0, y0, x1, y1 = region
    sub = mask[y0:y1, x0:x1]
    rows = np.flatnonzero(sub.any(axis=1))
    cols = np.flatnonzero(sub.any(axis=0))
    if rows.size == 0 or cols.size == 0:
        return None
    return (x0 + int(cols[0]), y0 + int(rows[0]), x0 + int(cols[-1]) + 1, y0 + int(rows[-1]) + 1)


def _regions(filled: Mask, p: ClassicalParams) -> list[_Region]:
    h, w = filled.shape
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        area = float(cv2.contourArea(c))
        if area < p.min_panel_area * h * w:
            continue
        out.append(_Region(_box(c), c, area))
    return out


def _join_fragments(regions: list[_Region], seam: Mask, p: ClassicalParams) -> list[_Region]:
    """Join a small region cut off a panel through its art to the panel it was cut from.

    A small framed panel is surrounded by gutters; a small region that borders another
    across a cut through filled pixels (a figure or a balloon cut off a panel along a
    bridged gutter or a ruled line inside it) is a fragment of its neighbour.
    """
    h, w = seam.shape
    small = [
        i for i, r in enumerate(regions) if r.area < p.fragment_area * h * w and _fill(r) < p.fragment_fill
    ]
    if not small or not seam.any():
        return regions
    labels = np.zeros((h, w), np.int32)
    for i, r in enumerate(regions):
        cv2.drawContours(labels, [r.contour], 0, i + 1, thickness=cv2.FILLED)
    k = max(3, round(p.line_band * min(h, w)) | 1)
    out: list[_Region | None] = list(regions)
    for i in sorted(small, key=lambda j: regions[j].area):
        x0, y0, x1, y1 = regions[i].bbox
        bx0, by0, bx1, by1 = max(0, x0 - k), max(0, y0 - k), min(w, x1 + k), min(h, y1 + k)
        near = labels[by0:by1, bx0:bx1]
        own = (near == i + 1).astype(np.uint8)
        ring = (cv2.dilate(own, np.ones((k, k), np.uint8)) > 0) & (own == 0)
        if np.count_nonzero(ring & seam[by0:by1, bx0:bx1]) < p.fragment_seam * min(x1 - x0, y1 - y0):
            continue  # bordered by gutters: a small panel of its own
        beside = near[ring]
        beside = beside[(beside > 0) & (beside != i + 1)]
        if beside.size == 0:
            continue
        j = int(np.bincount(beside).argmax()) - 1
        frag, host = out[i], out[j]
        if frag is None or host is None:
            continue
        joined = np.concatenate([frag.contour, host.contour])
        out[j] = _Region(_box(joined), cv2.convexHull(joined), frag.area + host.area)
        out[i] = None
    return [r for r in out if r is not None]


def _box(contour: Contour) -> tuple[int, int, int, int]:
    """A contour's bounding box (x0, y0, x1, y1), exclusive ends."""
    x, y, w, h = cv2.boundingRect(contour)
    return (x, y, x + w, y + h)


def _fill(reg: _Region) -> float:
    """Share of its bounding box a region fills: 1.0 for a rectangle."""
    x0, y0, x1, y1 = reg.bbox
    return reg.area / max(1.0, float((x1 - x0) * (y1 - y0)))


def _merge_slivers(regions: list[_Region], p: ClassicalParams) -> list[_Region]:
    """Join a thin sliver to the region it was cut from (a cut that ran down a caption's edge)."""
    out = list(regions)
    changed = True
    while changed:
        changed = False
        for a in out:
            ax0, ay0, ax1, ay1 = a.bbox
            aw, ah = ax1 - ax0, ay1 - ay0
            if max(aw, ah) < p.sliver_aspect * min(aw, ah):
                continue
            for b in out:
                if b is a:
                    continue
                bx0, by0, bx1, by1 = b.bbox
                if aw < ah:  # a tall sliver: b beside it, sharing most of its height
                    gap = max(bx0 - ax1, ax0 - bx1)
                    shared = min(ay1, by1) - max(ay0, by0)
                    fits = shared >= 0.8 * ah and min(by1 - by0, ah) > 0 and (by1 - by0) <= 1.3 * ah
                else:
                    gap = max(by0 - ay1, ay0 - by1)
                    shared = min(ax1, bx1) - max(ax0, bx0)
                    fits = shared >= 0.8 * aw and (bx1 - bx0) <= 1.3 * aw
                if fits and gap <= 3:
                    joined = np.concatenate([a.contour, b.contour])
                    hull = cv2.convexHull(joined)
                    out = [r for r in out if r is not a and r is not b]
                    out.append(_Region(_box(joined), hull, a.area + b.area))
                    changed = True
                    break
            if changed:
                break
    return out


def _plausible(regions: list[_Region], page_area: float, p: ClassicalParams) -> bool:
    """False for pages whose regions do not look like a panel layout (text pages, covers of type)."""
    if not regions or len(regions) > p.max_panels:
        return False
    covered = sum(r.area for r in regions)
    return covered >= p.min_coverage * page_area


def _to_panel(reg: _Region, i: int, inv: float, w: int, h: int, stage: str) -> Panel:
    x0, y0, x1, y1 = reg.bbox
    bbox = BBox(min(w, x0 * inv), min(h, y0 * inv), min(w, x1 * inv), min(h, y1 * inv))
    box_area = max(1.0, float((x1 - x0) * (y1 - y0)))
    fill = reg.area / box_area  # 1.0 for a rectangle
    hull_area = max(1.0, float(cv2.contourArea(cv2.convexHull(reg.contour))))
    solidity = reg.area / hull_area
    polygon = None
    if fill < 0.95:
        peri = cv2.arcLength(reg.contour, True)
        approx = cv2.approxPolyDP(reg.contour, 0.01 * peri, True).reshape(-1, 2)
        polygon = tuple(Point(min(w, float(x) * inv), min(h, float(y) * inv)) for x, y in approx)
    # Rectangular, solid regions are panels; ragged ones may be borderless art or a merge.
    confidence = float(np.clip(0.35 + 0.4 * fill + 0.25 * solidity, 0.0, 1.0))
    stage += INSET if reg.inset else ""
    return Panel(id=f"p{i}", bbox=bbox, confidence=confidence, stage=stage, polygon=polygon)
