"""The "balloons" stage: group text lines into blocks and tell what each block is.

For each group of lines the light region around the letters is flood-filled from a seed
between the letters (the balloon's inside, bounded by its stroke; small gaps in the stroke
are closed first). A region of plausible size and fill is the balloon: its outline gives
the block's polygon, its shape the kind (rectangle: caption; scalloped: thought; else
speech) and what sticks out of its body the tail (tip and direction; its wedge followed to
the tip by :mod:`panelvox.analysis.tail_geometry`). Lines outside any
balloon are grouped by proximity and classified as sound effects (large lettering), other
scene text (page numbers, signs, titles; lettering set at a slant) or, for ordinary
lettering whose outline could not be traced, speech with a lower confidence
(:mod:`panelvox.analysis.free_lettering`). Two balloons traced as one region are
parted at the outline's waist, and lettering where a rule is drawn between its rows
(:mod:`panelvox.analysis.balloon_split`).

Western (Latin-script) pages follow their captions' conventions: a box whose hull is a
rectangle is a caption even where its lettering bites into its fill; lettering on the
paper round the panels (a fill spanning the page) and untraced lettering against a
panel's top or bottom border are captions, unless they are a short cry ("HEY! WAIT!").
Manga draws rectangular balloons and borderless dialogue too, so these rules stay off
for Japanese, and so does the sign board's shape (:mod:`panelvox.analysis.sign_boards`):
manga sets dialogue in tilted boxes.

``bbox`` of a block is the box of its balloon outline (``polygon``) when found, else of
its text; the text's own box is the union of its ``lines``.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.balloon_split import nearest_cluster, split_at_rules, split_at_waist
from panelvox.analysis.block_roles import tell_roles
from panelvox.analysis.free_lettering import board_kind, free_kind
from panelvox.analysis.lettering import WordList, join_lines, language_of
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.line_groups import (
    cluster_lines,
    extent,
    join_outline,
    overlapping,
    reading_order,
    split_at_gaps,
    thickness,
)
from panelvox.analysis.sign_boards import board_outline
from panelvox.analysis.tail_geometry import balloon_body, tail_with_wedge
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Image,
    PageAnalysis,
    Panel,
    Point,
    Tail,
    TextLine,
    panel_of,
)

STAGE = "balloons"
#: words that address someone: "you" and its forms, "Mr."/"Mrs." (no caption says them)
_ADDRESS = re.compile(r"\b(?:YOU|YOUR|YOURS|YOURSELF|MR|MRS)\b")
Mask = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class BalloonParams:
    """Tunables of the balloon finder (page-size independent where possible)."""

    flood_tolerance: int = 40  # per channel, from the seed colour
    max_page_fraction: float = 0.2  # a "balloon" larger than this is background
    min_text_fill: float = 0.05  # text box area / region box area
    min_solidity: float = 0.55  # region area / its bounding-box area
    caption_rectangularity: float = 0.95
    # a rectangle whose lettering touches its frame (the fill is dented, its hull is not)
    caption_hull_rectangularity: float = 0.96
    max_box_fraction: float = 0.5  # a region whose box spans this much of the page: its margin
    caption_edge_gap: float = 1.0  # untraced lettering this near a panel's top or bottom (line heights)
    thought_min_bumps: int = 8
    sfx_height_ratio: float = 1.8  # line height vs the page's typical lettering


@dataclass(frozen=True, slots=True)
class Shape:
    kind: BalloonKind
    polygon: tuple[Point, ...]
    tail: Tail | None
    confidence: float
    board: bool = False  # a sign board's outline (:mod:`panelvox.analysis.sign_boards`)


# -- grouping ----------------------------------------------------------------------------
# -- the balloon region ------------------------------------------------------------------
def _barrier_image(image: Image) -> tuple[Mask, Mask]:
    """The page's lightness with dark strokes thickened by a pixel and set to 0, so flood
    fill stops at broken strokes. Lightness, not colour: a tail or balloon printed in a
    slightly different tint (misregistered colour plates) still belongs to the balloon.
    Also the mask (1) of what is not stroke, without the thickening, to follow tails."""
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    paper = float(np.percentile(gray, 98))
    stroke = (gray < 0.6 * paper).astype(np.uint8)
    dark = cv2.dilate(stroke, np.ones((3, 3), np.uint8))
    out = gray.copy()
    out[dark > 0] = 0
    return np.asarray(out, dtype=np.uint8), (1 - stroke).astype(np.uint8)


def _seeds(barrier: Mask, box: BBox) -> list[tuple[int, int]]:
    """Light pixels between the letters of ``box`` (centre, then above and below the
    middle of the line), of the box's typical light tone."""
    h, w = barrier.shape[:2]
    x0, y0 = max(0, int(box.x0)), max(0, int(box.y0))
    x1, y1 = min(w, math.ceil(box.x1)), min(h, math.ceil(box.y1))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    patch = barrier[y0:y1, x0:x1].astype(np.int32)
    brightest = float(np.percentile(patch, 98))
    light = patch >= 0.8 * brightest
    if brightest < 90 or light.mean() < 0.02:
        return []
    ref = float(np.median(patch[light]))
    dist = 3 * np.abs(patch - ref) + (~light) * 10_000
    yy, xx = np.mgrid[0 : y1 - y0, 0 : x1 - x0]
    out = []
    for fy in (0.5, 0.0, 1.0):
        # prefer pixels near the target point among those close to the reference tone
        target = np.hypot(yy - fy * (y1 - y0 - 1), xx - (x1 - x0) / 2)
        score = dist * 4 + target
        iy, ix = np.unravel_index(int(np.argmin(score)), score.shape)
        if dist[iy, ix] < 10_000:
            out.append((int(x0 + ix), int(y0 + iy)))
    return out


def flood_region(barrier: Mask, seed: tuple[int, int], tolerance: int) -> Mask:
    """The light region around ``seed`` (1 inside), bounded by dark strokes."""
    h, w = barrier.shape[:2]
    mask = np.zeros((h + 2, w + 2), np.uint8)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE | (1 << 8)
    cv2.floodFill(barrier, mask, seed, 0, tolerance, tolerance, flags)
    return mask[1:-1, 1:-1]


def _outline(region: Mask) -> npt.NDArray[np.int32] | None:
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    return np.asarray(max(contours, key=cv2.contourArea), dtype=np.int32)


def classify_shape(
    region: Mask, params: BalloonParams, light: Mask | None = None, *, dented_captions: bool = True
) -> Shape | None:
    """Kind, outline and tail of a balloon region (``None`` when it has no usable outline).

    With ``light`` (1 where the page is not stroke, without the thickening of the fill's
    barrier), a tail's wedge is followed to its real tip and joins the outline. With
    ``dented_captions``, a region whose convex hull is a rectangle is a caption even where
    its lettering bites into the fill (Western captions; manga draws rectangular
    balloons for dialogue too).
    """
    # the region's box from OpenCV's scan, not np.nonzero: the mask is page-sized
    x0, y0, bw, bh = cv2.boundingRect(region)
    if bw == 0:
        return None
    x1, y1 = x0 + bw, y0 + bh
    side = min(x1 - x0, y1 - y0)
    pad = int(0.15 * side) + 6  # the opening that finds the body must not meet the border
    crop = np.zeros((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad), np.uint8)
    crop[pad:-pad, pad:-pad] = region[y0:y1, x0:x1]
    contour = _outline(crop)
    if contour is None or len(contour) < 5:
        return None
    filled = np.zeros_like(crop)
    cv2.drawContours(filled, [contour], -1, 1, thickness=cv2.FILLED)
    body = balloon_body(filled)
    if _solidity(body if body.any() else filled) < params.min_solidity:
        return None  # a ragged region: background between figures, not a balloon
    area = float(cv2.contourArea(contour))
    hull = cv2.convexHull(contour)
    hull_area = max(1.0, float(cv2.contourArea(hull)))
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    rectangularity = area / max(1.0, rw * rh)
    solidity = area / hull_area
    origin = (x0 - pad, y0 - pad)

    def polygon_of(c: npt.NDArray[np.int32], at: tuple[int, int] = origin) -> tuple[Point, ...]:
        approx = cv2.approxPolyDP(c, max(1.5, 0.01 * cv2.arcLength(c, True)), True)
        return tuple(Point(float(p[0][0] + at[0]), float(p[0][1] + at[1])) for p in approx)

    hull_rectangularity = hull_area / max(1.0, rw * rh)
    if (rectangularity >= params.caption_rectangularity and solidity >= 0.97) or (
        dented_captions and hull_rectangularity >= params.caption_hull_rectangularity
    ):
        return Shape(BalloonKind.CAPTION, polygon_of(contour), None, round(min(0.95, rectangularity), 3))
    bumps = _bumps(contour, hull_area)
    if light is None:
        tail, channel = tail_with_wedge(filled, None, origin, body)
    else:
        # a wider window, for the tail's wedge to go on (tails reach about a balloon's height)
        m = int(min(300, max(24, 0.8 * side)))
        filled, body = np.pad(filled, m), np.pad(body, m)
        origin = (origin[0] - m, origin[1] - m)
        tail, channel = tail_with_wedge(filled, _window(light, origin, filled.shape), origin, body)
    if bumps >= params.thought_min_bumps and solidity <= 0.965 and tail is None:
        return Shape(BalloonKind.THOUGHT, polygon_of(contour), None, round(min(0.9, 0.5 + 0.05 * bumps), 3))
    polygon = polygon_of(contour)
    if channel is not None:  # the balloon's outline runs to the tail's tip
        grown = np.asarray(cv2.dilate(channel, np.ones((3, 3), np.uint8)), dtype=np.uint8)
        whole = _outline(np.maximum(filled, grown))
        if whole is not None:
            polygon = polygon_of(whole, origin)
    conf = round(min(0.95, 0.5 + solidity / 2), 3)
    return Shape(BalloonKind.SPEECH, polygon, tail, conf, board=board_outline(filled, body))


def _solidity(mask: Mask) -> float:
    """Pixels of ``mask`` over the area of their bounding box."""
    _x, _y, w, h = cv2.boundingRect(mask)
    if w == 0:
        return 0.0
    return cv2.countNonZero(mask) / float(w * h)


def _window(mask: Mask, origin: tuple[int, int], shape: tuple[int, ...], off: int = 2) -> Mask:
    """``mask[origin : origin + shape]``, ``off`` where the window leaves the page."""
    out = np.full(shape[:2], off, np.uint8)
    h, w = mask.shape[:2]
    ox, oy = origin
    sx0, sy0 = max(0, ox), max(0, oy)
    sx1, sy1 = min(w, ox + shape[1]), min(h, oy + shape[0])
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - oy : sy1 - oy, sx0 - ox : sx1 - ox] = mask[sy0:sy1, sx0:sx1]
    return out


def _bumps(contour: npt.NDArray[np.int32], hull_area: float) -> int:
    """How many notches the outline has between bulges (a cloud has many)."""
    hull_idx = cv2.convexHull(contour, returnPoints=False)
    if hull_idx is None or len(hull_idx) < 4:
        return 0
    try:
        defects = cv2.convexityDefects(contour, np.sort(hull_idx, axis=0))
    except cv2.error:
        return 0
    if defects is None:
        return 0
    scale = math.sqrt(hull_area)
    depth = defects[:, 0, 3] / 256.0
    return int(((depth >= 0.025 * scale) & (depth <= 0.2 * scale)).sum())


def _body_hugs_text(region: Mask, rbox: BBox, tbox: BBox, thick: float) -> bool:
    """True when the region's body (without its tail) sits evenly around the text.

    The body is what survives an opening by a disc of 15 % of the region's smaller side
    (approximated by the box of the pixels that far inside, grown back by the radius). A
    balloon's or caption's body leaves about the same margin on opposite sides of its
    text; a fill that escaped through a gap in the outline spreads far out on one side.
    """
    x0, y0, x1, y1 = int(rbox.x0), int(rbox.y0), int(rbox.x1), int(rbox.y1)
    crop = np.zeros((y1 - y0 + 2, x1 - x0 + 2), np.uint8)
    crop[1:-1, 1:-1] = region[y0:y1, x0:x1]
    radius = max(2.0, 0.15 * min(x1 - x0, y1 - y0))
    core = cv2.distanceTransform(crop, cv2.DIST_L2, 3) >= radius
    ys, xs = np.nonzero(core)
    if len(xs) == 0:
        return True
    bx0, bx1 = x0 + xs.min() - 1 - radius, x0 + xs.max() + radius
    by0, by1 = y0 + ys.min() - 1 - radius, y0 + ys.max() + radius
    left, right = max(0.0, tbox.x0 - bx0), max(0.0, bx1 - tbox.x1)
    top, bottom = max(0.0, tbox.y0 - by0), max(0.0, by1 - tbox.y1)
    return bool(
        abs(left - right) <= 2.5 * thick + 0.3 * tbox.width
        and abs(top - bottom) <= 2.5 * thick + 0.3 * tbox.height
    )


# -- the stage ---------------------------------------------------------------------------
def _latin(lines: Sequence[TextLine]) -> bool:
    """Western lettering, whose captions are told by the conventions below (manga's are not)."""
    return sum(ln.script == "japanese" for ln in lines) * 2 <= len(lines)


def _narration(kind: BalloonKind, lines: Sequence[TextLine]) -> BalloonKind:
    """Untraced lettering where captions sit: speech becomes a caption, unless it is a short
    cry or question ("HOW WONDERFUL! TERRIFIC!") or speaks to someone ("YOU'RE A SPY",
    "HELLO MR. HAVCASH": narration tells, it does not address), dialogue in a balloon not
    traced."""
    text = " ".join(ln.text for ln in lines)
    cry = ("!" in text or "?" in text) and len(text.split()) < 8
    speaks_to = _ADDRESS.search(text.upper()) is not None
    return BalloonKind.CAPTION if kind is BalloonKind.SPEECH and not cry and not speaks_to else kind


def _spans_page(region: Mask, page_area: float, params: BalloonParams) -> bool:
    """Whether a fill's box spans the page: the margin and gutters round the panels."""
    _x, _y, w, h = cv2.boundingRect(region)
    return w * h > params.max_box_fraction * page_area


def _on_panel_edge(box: BBox, panels: Sequence[Panel], typical: float, params: BalloonParams) -> bool:
    """Whether ``box`` lies against the top or bottom border of the panel holding it."""
    gap = params.caption_edge_gap * typical
    for p in panels:
        b = p.bbox
        if box.coverage_by(b) >= 0.8 and (box.y0 - b.y0 <= gap or b.y1 - box.y1 <= gap):
            return True
    return False


class BalloonsStage:
    """Groups lines into balloons, captions and sound effects; finds outlines and tails."""

    name = STAGE

    def __init__(self, params: BalloonParams | None = None, words: WordList | None = None) -> None:
        self.params = params or BalloonParams()
        self._words = words
        self._lexicon: LetteringLexicon | None = None

    @property
    def words(self) -> WordList:
        if self._words is None:
            self._words = WordList.load()  # once per stage; read-only afterwards
        return self._words

    @property
    def lexicon(self) -> LetteringLexicon:
        if self._lexicon is None:
            self._lexicon = LetteringLexicon(self.words)
        return self._lexicon

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:  # noqa: C901 (over the budget before it existed; split it when next changed)
        words = self.words
        main = [ln for ln in analysis.lines if not ln.ruby]
        if not main:
            return replace(analysis, blocks=(), stages=(*analysis.stages, STAGE))
        params = self.params
        h, w = image.shape[:2]
        page_area = float(h * w)
        barrier, light = _barrier_image(image)
        typical = statistics.median(thickness(ln) for ln in main)

        labels = np.zeros((h, w), np.int32)
        regions: list[tuple[Mask, bool]] = []  # (mask, is a balloon)
        groups: dict[int, list[TextLine]] = {}
        free: list[TextLine] = []
        sizes: dict[int, int] = {}
        boxed: list[TextLine] = []  # lines whose every seed fell in a letter's hole
        for ln in sorted(main, key=lambda ln: -ln.bbox.area):
            label, holes = 0, True
            for seed in _seeds(barrier, ln.bbox):
                label = int(labels[seed[1], seed[0]])
                if label == 0:
                    region = flood_region(barrier, seed, params.flood_tolerance)
                    regions.append((region, False))
                    label = len(regions)
                    labels[(region > 0) & (labels == 0)] = label
                # a seed inside a letter's hole fills only that hole: try the next one
                if sizes.setdefault(label, int(regions[label - 1][0].sum())) >= ln.bbox.area:
                    break
                holes = holes and sizes[label] < thickness(ln) ** 2
                label = 0
            if label == 0:
                free.append(ln)
                if holes:
                    boxed.append(ln)
            else:
                groups.setdefault(label, []).append(ln)

        shaped: dict[int, tuple[Mask, list[TextLine], Shape | None]] = {}
        for label, members in groups.items():
            region = regions[label - 1][0]
            if _latin(members) and _spans_page(region, page_area, params):
                shaped[label] = (region, members, None)  # lettering on the paper round the panels
                continue
            shape = self._balloon_shape(region, members, page_area, params, light)
            if shape is None:
                free.extend(members)
            else:
                shaped[label] = (region, members, shape)
        # a line whose seeds all fell on letters (or in a neighbour's region) but that lies
        # inside a traced balloon, at its lettering's size, is part of it
        traced = [(region, members) for region, members, shape in shaped.values() if shape is not None]
        free = [ln for ln in free if not join_outline(ln, traced)]

        blocks: list[tuple[list[TextLine], BalloonKind, float, Shape | None]] = []
        for region, members, shape in shaped.values():
            if shape is None:
                # lettering on the paper round the panels, or in boxes open to it: captions
                # (a title's big letters are told apart by their size, a cry by its words),
                # with the lines of a tinted box among them (seeds found only letters' holes)
                joined = overlapping([ln for ln in boxed if ln in free], members)
                free, members = [ln for ln in free if ln not in joined], members + joined
                for cluster in (c for cl in cluster_lines(members) for c in split_at_rules(cl, light)):
                    kind, conf = free_kind(cluster, typical, words, params.sfx_height_ratio, captions=True)
                    blocks.append((cluster, _narration(kind, cluster), conf, None))
                continue
            # two balloons whose outlines touch: a waist between lobes of lettering, each
            # lobe with its own kind and tail (no outline: part of it is the cut)
            parts = (
                [(members, None)] if shape.kind is BalloonKind.CAPTION else split_at_waist(region, members)
            )
            for part, mask in parts:
                own = shape
                if mask is not None:
                    lobe = classify_shape(mask, params, light, dented_captions=_latin(part))
                    own = replace(lobe or shape, polygon=(), tail=lobe.tail if lobe else None)
                clusters = [
                    c for cl in cluster_lines(part, gap=1.6, size_ratio=3.0) for c in split_at_gaps(cl)
                ]
                # several blocks share one region (balloons joined by their outlines): the
                # tail belongs to the block nearest its tip, the outline to none of them
                nearest = nearest_cluster(clusters, own.tail) if len(clusters) > 1 else 0
                for k, cluster in enumerate(clusters):
                    one = own
                    if len(clusters) > 1:
                        one = replace(own, polygon=(), tail=own.tail if k == nearest else None)
                    board = own.board and _latin(cluster)  # manga tilts boxed dialogue
                    kind = board_kind(own.kind, cluster, words, board=board, tail=one.tail is not None)
                    blocks.append((cluster, kind, own.confidence, one))
        for cluster in (c for cl in cluster_lines(free) for c in split_at_rules(cl, light)):
            edge = _latin(cluster) and _on_panel_edge(extent(cluster), analysis.panels, typical, params)
            kind, conf = free_kind(cluster, typical, words, params.sfx_height_ratio, captions=edge)
            if edge:
                # lettering against a panel's top or bottom border whose outline was not
                # traced: a caption box its words fill to the frame
                kind = _narration(kind, cluster)
            blocks.append((cluster, kind, conf, None))

        out = []
        for n, (members, kind, shape_conf, shape) in enumerate(blocks, start=1):
            ordered = reading_order(members)
            script = (
                "japanese" if sum(ln.script == "japanese" for ln in ordered) * 2 > len(ordered) else "latin"
            )
            box = extent(ordered)
            if shape is not None and shape.polygon:
                box = box.union(BBox.from_points(shape.polygon))  # the balloon, not just its words
            text_conf = sum(ln.confidence for ln in ordered) / len(ordered)
            out.append(
                Balloon(
                    id=f"b{n}",
                    kind=kind,
                    bbox=box,
                    text=join_lines([ln.text for ln in ordered], script, words),
                    confidence=round(text_conf * shape_conf, 4),
                    stage=STAGE,
                    lines=tuple(ln.id for ln in ordered),
                    polygon=shape.polygon if shape is not None and shape.polygon else None,
                    tail=shape.tail if shape is not None else None,
                    panel=panel_of(box, analysis.panels),
                    language=language_of(script),
                )
            )
        told = tell_roles(out, main, float(h), words, self.lexicon, analysis.language, analysis.panels)
        return replace(analysis, blocks=tuple(told), stages=(*analysis.stages, STAGE))

    @staticmethod
    def _balloon_shape(
        region: Mask,
        members: Sequence[TextLine],
        page_area: float,
        params: BalloonParams,
        light: Mask | None = None,
    ) -> Shape | None:
        count = cv2.countNonZero(region)
        if count == 0 or count > params.max_page_fraction * page_area:
            return None
        x, y, bw, bh = cv2.boundingRect(region)  # a page-sized mask: no np.nonzero
        rbox = BBox(float(x), float(y), float(x + bw), float(y + bh))
        tbox = extent(members)
        if tbox.area / max(1.0, rbox.area) < params.min_text_fill or tbox.coverage_by(rbox) < 0.7:
            return None
        if not _body_hugs_text(region, rbox, tbox, max(thickness(ln) for ln in members)):
            return None  # the fill leaked out of a broken outline into the panel
        return classify_shape(region, params, light, dented_captions=_latin(members))
