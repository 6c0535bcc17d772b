"""Reading order of panels and of the text blocks inside them (the ``order`` stage).

Order comes from an explicit grouping step, never from a fuzzy comparator: a recursive
XY-cut splits the boxes into tiers (horizontal cuts) or columns (vertical cuts) wherever a
line separates them, allowing a little overlap; tiers read top-down, columns in the book's
direction. A tall panel that spans two rows stops the row cut, so the column cut runs first
there and the reader finishes one column of the L before the other. Insets (a panel drawn
inside another) are read right after the panel that holds them. Where no cut separates
overlapping boxes, the eye sweeps along the top line: a box level with the topmost one and
clearly before it across reads first. A caption strip ruled off above a panel's art (outside
every detected panel, on its top edge) is read with the panel it introduces. On a Western page,
two panels that a balloon lettered deep across an undrawn border shows to be one are joined first
(:mod:`panelvox.analysis.panel_join`), and a block sits in the panel whose outline holds it
(a balloon inside an inset is read with the inset).

Every decision carries a confidence: 1.0 where a clean gutter separates the groups, lower
where the cut needed the overlap tolerance, lowest where no cut exists and a top-first
fallback decided; the narrator says "the order of these panels is unclear" when it is low.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from panelvox.analysis.panel_insets import INSET
from panelvox.analysis.panel_join import JOINED, join_split_panels
from panelvox.model import Balloon, BalloonKind, BBox, Image, PageAnalysis, Panel, Point, ReadingDirection

#: confidence of an order decided by the fallback (no clean cut between the boxes)
FALLBACK_CONFIDENCE = 0.4
#: confidence of an inset's place (right after the panel that holds it)
INSET_CONFIDENCE = 0.7
#: confidence of a block outside every panel, slotted in between panels
UNASSIGNED_CONFIDENCE = 0.5


@dataclass(frozen=True, slots=True)
class OrderParams:
    tolerance: float = 0.2  # share of a box's extent that may straddle a cut line
    inset_cover: float = 0.85  # a panel this much inside a larger one is an inset
    block_in_panel: float = 0.2  # a block with less of its area in any panel is unassigned


@dataclass(frozen=True, slots=True)
class Ranked:
    """One box's place in a reading order."""

    index: int  # index into the boxes that were ordered
    confidence: float


def order_boxes(
    boxes: Sequence[BBox], direction: ReadingDirection, params: OrderParams | None = None
) -> list[Ranked]:
    """The reading order of ``boxes`` (indices, first to last) with a confidence each."""
    p = params or OrderParams()
    return _xy_order(list(range(len(boxes))), boxes, direction, p, 1.0)


def _xy_order(
    items: list[int], boxes: Sequence[BBox], direction: ReadingDirection, p: OrderParams, conf: float
) -> list[Ranked]:
    if len(items) <= 1:
        return [Ranked(i, conf) for i in items]
    # yonkoma: columns (right first) before rows; otherwise rows (tiers) before columns
    axes = (1, 0) if direction is ReadingDirection.TTB_RTL else (0, 1)
    for axis in axes:
        groups = _split(items, boxes, axis, p)
        if groups is None:
            continue
        parts, cut_conf = groups
        if axis == 1 and direction.right_to_left:
            parts = parts[::-1]
        out: list[Ranked] = []
        for part in parts:
            out.extend(_xy_order(part, boxes, direction, p, min(conf, cut_conf)))
        return out
    return _fallback(items, boxes, direction, p, conf)


def _split(
    items: list[int], boxes: Sequence[BBox], axis: int, p: OrderParams
) -> tuple[list[list[int]], float] | None:
    """Group ``items`` along ``axis`` (0: into rows by y, 1: into columns by x).

    Each box's interval is shrunk by the tolerance at both ends; intervals that still overlap
    are one group. Returns the groups in coordinate order and the cut confidence (1.0 when
    the unshrunk intervals are already apart), or None when everything is one group.
    """

    def span(i: int) -> tuple[float, float]:
        b = boxes[i]
        return (b.y0, b.y1) if axis == 0 else (b.x0, b.x1)

    def shrunk(i: int) -> tuple[float, float]:
        a, b = span(i)
        m = p.tolerance * (b - a) / 2
        return a + m, b - m

    ordered = sorted(items, key=lambda i: (shrunk(i)[0], shrunk(i)[1], i))
    groups: list[list[int]] = [[ordered[0]]]
    end = shrunk(ordered[0])[1]
    for i in ordered[1:]:
        a, b = shrunk(i)
        if a >= end:
            groups.append([i])
        else:
            groups[-1].append(i)
        end = max(end, b) if a < end else b
    if len(groups) < 2:
        return None
    # how far the groups reach into each other before shrinking: 0 is a clean gutter
    worst = 0.0
    for g0, g1 in itertools.pairwise(groups):
        reach = max(span(i)[1] for i in g0) - min(span(i)[0] for i in g1)
        extent = min(min(span(i)[1] - span(i)[0] for i in g) for g in (g0, g1))
        if reach > 0 and extent > 0:
            worst = max(worst, reach / extent)
    confidence = 1.0 if worst <= 0 else max(0.5, 1.0 - worst / p.tolerance * 0.5)
    return groups, confidence


def _fallback(
    items: list[int], boxes: Sequence[BBox], direction: ReadingDirection, p: OrderParams, conf: float
) -> list[Ranked]:
    """No cut separates the boxes (a pinwheel, overlapping balloons): the box that starts first
    in reading terms goes first, then the rest are ordered again.

    Rows read before columns (yonkoma the other way round): the topmost box opens a line of
    reading; a box whose middle lies within that line and which starts clearly before it
    across (by more than the tolerance of the narrower box) is read first, as the eye sweeps
    along the row: a balloon a little lower than its neighbour but left of it comes first.
    Of several such boxes the topmost is taken, and the step repeats from it.
    """
    down, across = (0, 1) if direction is not ReadingDirection.TTB_RTL else (1, 0)

    def span(i: int, axis: int) -> tuple[float, float]:
        b = boxes[i]
        a, z = (b.y0, b.y1) if axis == 0 else (b.x0, b.x1)
        return (-z, -a) if axis == 1 and direction.right_to_left else (a, z)

    def key(i: int) -> tuple[float, float, int]:
        return (span(i, down)[0], span(i, across)[0], i)

    def before_on_line(i: int, top: int) -> bool:
        (a0, a1), (t0, t1) = span(i, down), span(top, down)
        (x0, x1), (u0, u1) = span(i, across), span(top, across)
        lead = p.tolerance * min(x1 - x0, u1 - u0)
        return t0 <= (a0 + a1) / 2 <= t1 and x0 < u0 - lead

    # each step moves clearly back along the line, so this ends
    first = min(items, key=key)
    while ahead := [i for i in items if before_on_line(i, first)]:
        first = min(ahead, key=key)
    rest = [i for i in items if i != first]
    low = min(conf, FALLBACK_CONFIDENCE)
    return [Ranked(first, low), *_xy_order(rest, boxes, direction, p, low)]


def order_panels(
    panels: Sequence[Panel], direction: ReadingDirection, params: OrderParams | None = None
) -> tuple[Panel, ...]:
    """``panels`` with ``order`` (1-based) and ``order_confidence`` set; insets follow their host."""
    p = params or OrderParams()
    host: dict[int, int] = {}
    for i, a in enumerate(panels):
        candidates = [
            j
            for j, b in enumerate(panels)
            if j != i and b.bbox.area > a.bbox.area and a.bbox.coverage_by(b.bbox) >= p.inset_cover
        ]
        if candidates:
            host[i] = min(candidates, key=lambda j: panels[j].bbox.area)
    top = [i for i in range(len(panels)) if i not in host]
    boxes = [q.bbox for q in panels]
    sequence: list[Ranked] = []

    def emit(ranked: Ranked) -> None:
        sequence.append(ranked)
        insets = [i for i, h in host.items() if h == ranked.index]
        for r in _xy_order(insets, boxes, direction, p, min(ranked.confidence, INSET_CONFIDENCE)):
            emit(r)

    for r in _xy_order(top, boxes, direction, p, 1.0):
        emit(r)
    out = list(panels)
    for n, r in enumerate(sequence, start=1):
        out[r.index] = replace(panels[r.index], order=n, order_confidence=round(r.confidence, 4))
    return tuple(out)


def order_blocks(
    blocks: Sequence[Balloon],
    panels: Sequence[Panel],
    direction: ReadingDirection,
    params: OrderParams | None = None,
) -> tuple[Balloon, ...]:
    """``blocks`` with ``panel`` (the panel holding most of each), page-wide ``order`` and
    ``order_confidence``. ``panels`` must already be ordered. The story's title comes first,
    in no panel; a panel's signs (``OTHER``) come after its other blocks."""
    p = params or OrderParams()
    # Text inside a yonkoma panel reads like any manga panel: rows, right to left.
    inner = ReadingDirection.RTL if direction is ReadingDirection.TTB_RTL else direction
    ordered_panels = sorted(panels, key=lambda q: q.order if q.order is not None else 1 << 30)
    owner: list[str | None] = []
    for b in blocks:
        best = _innermost(b.bbox, ordered_panels)
        held = b.bbox.coverage_by(best.bbox) if best is not None else 0.0
        if best is not None and held >= p.block_in_panel:
            owner.append(best.id)
        else:
            below = _panel_below(b.bbox, ordered_panels) if b.kind is BalloonKind.CAPTION else None
            owner.append(below.id if below is not None else None)

    # Unassigned blocks go after the panel that precedes them when ordered with the panels.
    after: dict[str | None, list[int]] = {}
    panel_boxes = [q.bbox for q in ordered_panels]
    for i, b in enumerate(blocks):
        if owner[i] is not None:
            continue
        ranked = order_boxes([*panel_boxes, b.bbox], direction, p)
        pos = next(k for k, r in enumerate(ranked) if r.index == len(panel_boxes))
        before = [r.index for r in ranked[:pos]]
        after.setdefault(ordered_panels[before[-1]].id if before else None, []).append(i)

    sequence: list[tuple[int, float, str | None]] = [(i, 1.0, None) for i, b in enumerate(blocks) if b.title]
    titled = {i for i, _c, _p in sequence}
    for waiting in after.values():
        waiting[:] = [i for i in waiting if i not in titled]

    def emit_loose(key: str | None) -> None:
        loose = after.get(key, [])
        for r in order_boxes([blocks[i].bbox for i in loose], inner, p):
            sequence.append((loose[r.index], min(r.confidence, UNASSIGNED_CONFIDENCE), None))

    emit_loose(None)
    for q in ordered_panels:
        mine = [i for i in range(len(blocks)) if owner[i] == q.id and i not in titled]
        ranked = order_boxes([blocks[i].bbox for i in mine], inner, p)
        ranked = _captions_first([blocks[i] for i in mine], ranked)
        # signs in the art are read after the panel's dialogue, captions and sounds
        ranked = sorted(ranked, key=lambda r: blocks[mine[r.index]].kind is BalloonKind.OTHER)
        for r in ranked:
            sequence.append((mine[r.index], min(r.confidence, q.order_confidence), q.id))
        emit_loose(q.id)
    out = list(blocks)
    for n, (i, conf, panel_id) in enumerate(sequence, start=1):
        out[i] = replace(blocks[i], panel=panel_id, order=n, order_confidence=round(conf, 4))
    return tuple(out)


def _captions_first(blocks: Sequence[Balloon], ranked: list[Ranked]) -> list[Ranked]:
    """``ranked`` with each caption laid over the top of another block's box ("MEANWHILE..."
    in a box set on a balloon's top corner: most of it inside the box, its top within its
    own height of the box's top) read just before that block: it sets the scene."""
    out = list(ranked)
    for r in ranked:
        c = blocks[r.index].bbox
        if blocks[r.index].kind is not BalloonKind.CAPTION:
            continue
        at = out.index(r)
        over = [
            k
            for k, o in enumerate(out[:at])
            if blocks[o.index].kind is not BalloonKind.CAPTION
            and c.coverage_by(blocks[o.index].bbox) >= 0.8
            and c.y0 - blocks[o.index].bbox.y0 <= c.height
        ]
        if over:
            out.insert(over[0], out.pop(at))
    return out


def _innermost(box: BBox, panels: Sequence[Panel]) -> Panel | None:
    """The panel holding most of ``box``, or an inset drawn inside it whose outline holds the
    block's middle; where that panel was joined from two (an L) and the block's middle lies
    outside its outline, in the corner its box takes in, the panel there: a block sits in the
    panel whose outline holds it. (Only insets and joined panels: a detected panel's box is
    its own, and a smaller panel found inside it otherwise is as often a false one.)"""
    best = max(panels, key=lambda q: box.intersection(q.bbox), default=None)
    middle = box.center
    if best is None:
        return None
    insets = [q for q in panels if q is not best and q.stage.endswith(INSET) and _holds(q, middle)]
    if insets:
        return min(insets, key=lambda q: q.bbox.area)
    if not best.stage.endswith(JOINED) or not best.polygon or _inside(middle, best.polygon):
        return best
    there = [q for q in panels if q is not best and _holds(q, middle)]
    return min(there, key=lambda q: q.bbox.area, default=best)


def _holds(panel: Panel, pt: Point) -> bool:
    """Whether ``pt`` lies inside ``panel``'s outline (its box where it has none)."""
    return _inside(pt, panel.polygon) if panel.polygon else panel.bbox.contains_point(pt)


def _inside(pt: Point, polygon: Sequence[Point]) -> bool:
    """Whether ``pt`` lies inside ``polygon`` (even-odd rule)."""
    inside = False
    for a, b in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (a.y > pt.y) != (b.y > pt.y) and pt.x < a.x + (pt.y - a.y) * (b.x - a.x) / (b.y - a.y):
            inside = not inside
    return inside


def _panel_below(box: BBox, panels: Sequence[Panel]) -> Panel | None:
    """The panel whose top edge the caption ``box`` sits on, when it lies outside every
    panel: a caption strip ruled off above a panel's art introduces that panel (narration
    opens a panel, at its top), so it is read with it. It must touch the top edge (a gap of at most half its height)
    and lie mostly within the panel's width."""

    def fits(q: Panel) -> bool:
        across = min(box.x1, q.bbox.x1) - max(box.x0, q.bbox.x0)
        gap = q.bbox.y0 - box.y1
        return box.center.y < q.bbox.y0 and gap <= box.height / 2 and across >= box.width / 2

    return min((q for q in panels if fits(q)), key=lambda q: q.bbox.y0 - box.y1, default=None)


class OrderStage:
    """The ``order`` stage: panel order, then block assignment and order, for the page's direction."""

    name = "order"

    def __init__(self, params: OrderParams | None = None) -> None:
        self.params = params or OrderParams()

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        joined = join_split_panels(analysis.panels, analysis.blocks, image, analysis.direction)
        panels = order_panels(joined, analysis.direction, self.params)
        blocks = order_blocks(analysis.blocks, panels, analysis.direction, self.params)
        return replace(analysis, panels=panels, blocks=blocks, stages=(*analysis.stages, "order:xy-cut"))
