"""Which text lines belong to one block, and the order they are read in.

Used by the balloons stage before it looks for the balloon around a group: lines that sit
close together, at one size, are one block (a caption's drop capital and furigana
included); a block's lines are read in rows top-down, or in columns right to left.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Sequence

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.model import BBox, TextLine


def linked_groups(n: int, linked: Callable[[int, int], bool]) -> list[list[int]]:
    """The indices ``0..n-1`` in groups joined by ``linked`` (for ``i < j``, asked only of
    two not yet in one group), each group in index order, the groups in the order of their
    first members."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if find(i) != find(j) and linked(i, j):
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def thickness(line: TextLine) -> float:
    """A line's thickness: its height, or a vertical column's width; a horizontal line with a
    four-point outline is measured across its slope (a tilted line's box is taller than its
    letters)."""
    if line.vertical:
        return line.bbox.width
    t = line.bbox.height
    p = line.polygon
    if p is not None and len(p) == 4:
        t = min(t, math.dist((p[0].x, p[0].y), (p[3].x, p[3].y)))
    return t


def cluster_lines(
    lines: Sequence[TextLine], gap: float = 0.9, size_ratio: float = 2.0
) -> list[list[TextLine]]:
    """Group lines that sit close together, as lettering in one block does.

    Lines whose thickness differs by more than ``size_ratio`` are kept apart (a sound
    effect beside speech) unless one is furigana; a drop capital makes a caption's first
    line up to about twice as thick as the rest. Vertical columns of one block start at
    the same height (Japanese balloons are top-aligned): a column starting more than a
    character lower or higher begins another block. The rows of one block run parallel:
    two words lettered at angles :data:`ACROSS` degrees apart are two sounds ("CRASH!" level,
    "BANG!" on a slant). A story's closing "THE END", larger than the lettering it sits by,
    is its own block, not the last row of the closing caption.
    """

    def linked(i: int, j: int) -> bool:
        a, b = lines[i], lines[j]
        if a.vertical != b.vertical:
            return False
        ta, tb = thickness(a), thickness(b)
        if max(ta, tb) > size_ratio * min(ta, tb) and not (a.ruby or b.ruby or _set_within(a, b)):
            return False
        if a.vertical and abs(a.bbox.y0 - b.bbox.y0) > 1.2 * max(ta, tb):
            return False
        if not a.vertical and (_across(a, b) or _closing(a, tb) or _closing(b, ta)):
            return False
        limit = gap * min(ta, tb)
        if a.vertical:
            dist = max(a.bbox.x0, b.bbox.x0) - min(a.bbox.x1, b.bbox.x1)
            overlap = min(a.bbox.y1, b.bbox.y1) - max(a.bbox.y0, b.bbox.y0)
        else:
            dist = max(a.bbox.y0, b.bbox.y0) - min(a.bbox.y1, b.bbox.y1)
            overlap = min(a.bbox.x1, b.bbox.x1) - max(a.bbox.x0, b.bbox.x0)
        # side by side is two blocks (two captions, two columns); stacked is one
        return dist <= limit and overlap > 0.2 * min(ta, tb)

    return [[lines[i] for i in g] for g in linked_groups(len(lines), linked)]


#: rows this many degrees apart in slope or more are no rows of one block
ACROSS = 20.0
_THE_END = re.compile(r"(?:THE\s*)?END[.!?]*", re.IGNORECASE)


def _across(a: TextLine, b: TextLine) -> bool:
    """Whether two Latin lines of at least three letters each run at angles :data:`ACROSS`
    apart (measured on Latin lettering; Japanese sets its rows in columns)."""
    sa, sb = slope(a), slope(b)
    if sa is None or sb is None or a.script != "latin" or b.script != "latin":
        return False
    if min(sum(c.isalnum() for c in ln.text) for ln in (a, b)) < 3:
        return False
    return abs(sa - sb) >= math.radians(ACROSS)


def _closing(line: TextLine, other: float) -> bool:
    """Whether ``line`` is a story's "THE END" lettered larger (a third or more) than
    lettering ``other`` thick."""
    return thickness(line) >= 1.3 * other and _THE_END.fullmatch(line.text.strip()) is not None


def extent(lines: Sequence[TextLine]) -> BBox:
    """The box round ``lines`` (at least one)."""
    box = lines[0].bbox
    for ln in lines[1:]:
        box = box.union(ln.bbox)
    return box


def overlapping(lines: Sequence[TextLine], members: Sequence[TextLine]) -> list[TextLine]:
    """Of ``lines``, those whose box overlaps the box of one of ``members``: rows of one
    block (a tilted caption's line boxes overlap; two blocks' do not)."""
    return [ln for ln in lines if any(ln.bbox.intersection(m.bbox) > 0 for m in members)]


def _set_within(a: TextLine, b: TextLine, share: float = 0.5) -> bool:
    """Whether the smaller of two lines lies at least ``share`` inside the larger's box: the
    small words set among a title's large display letters ("RESCUE / in the / DARK"). A
    lone mark (a speck read as "1") is no such word."""
    first = thickness(a) < thickness(b)
    if sum(c.isalnum() for c in (a if first else b).text) < 2:
        return False
    small, large = (a.bbox, b.bbox) if first else (b.bbox, a.bbox)
    iw = min(small.x1, large.x1) - max(small.x0, large.x0)
    ih = min(small.y1, large.y1) - max(small.y0, large.y0)
    return iw > 0 and ih > 0 and iw * ih >= share * small.width * small.height


def split_at_gaps(lines: list[TextLine], gap: float = 0.9, jump: float = 0.6) -> list[list[TextLine]]:
    """Stacked horizontal lines cut where one row is far below the last: two balloons joined
    by their outlines (one speaker's two balloons), lettered at the same leading.

    A cut needs a gap of more than ``gap`` line thicknesses that also exceeds the block's
    median gap between rows by ``jump`` thicknesses: lettering set loosely but evenly in one
    balloon stays whole."""
    if len(lines) < 2 or any(ln.vertical for ln in lines):
        return [lines]
    ordered = sorted(lines, key=lambda ln: ln.bbox.y0)
    t = statistics.median(thickness(ln) for ln in lines)
    gaps, bottom = [], ordered[0].bbox.y1
    for ln in ordered[1:]:
        gaps.append(ln.bbox.y0 - bottom)
        bottom = max(bottom, ln.bbox.y1)
    usual = statistics.median(gaps)
    out = [[ordered[0]]]
    for ln, g in zip(ordered[1:], gaps, strict=True):
        if g > gap * t and g > usual + jump * t:
            out.append([ln])
        else:
            out[-1].append(ln)
    return out


def filled_outline(
    region: npt.NDArray[np.uint8], pad: int = 0
) -> tuple[int, int, npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None:
    """``region`` (a page-sized mask) cut to its box with ``pad`` pixels of border round it,
    and the same crop with its outer outline filled (the holes its letters make closed); with
    the box's page position (x, y). None for an empty region. The box comes from OpenCV's
    scan, not ``np.nonzero``: the mask is page-sized."""
    x, y, w, h = cv2.boundingRect(region)
    if w == 0 or h == 0:
        return None
    crop = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    crop[pad : pad + h, pad : pad + w] = region[y : y + h, x : x + w]
    filled = np.zeros_like(crop)
    contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if contours:
        cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 1, thickness=cv2.FILLED)
    return x, y, crop, filled


def inside_outline(region: npt.NDArray[np.uint8], box: BBox) -> float:
    """The share of ``box`` inside the outer outline of ``region`` (1 inside; the holes its
    letters make filled)."""
    found = filled_outline(region)
    if found is None:
        return 0.0
    x0, y0, _crop, filled = found
    bx0, by0 = max(0, int(box.x0) - x0), max(0, int(box.y0) - y0)
    bx1, by1 = math.ceil(box.x1) - x0, math.ceil(box.y1) - y0
    inside = float(filled[by0:by1, bx0:bx1].sum()) if bx1 > bx0 and by1 > by0 else 0.0
    return inside / max(1.0, box.area)


def join_outline(line: TextLine, traced: Sequence[tuple[npt.NDArray[np.uint8], list[TextLine]]]) -> bool:
    """Add ``line`` to the lines of the traced balloon (its inside ``region``, its lines) that
    holds at least 80 % of its box, when its letters are of that balloon's size (within 35 %);
    True when it was added. A line none of whose seeds found the balloon's inside (bold
    letters that touch) is still one of its lines; a sound drawn over a balloon is not."""
    t = thickness(line)
    for region, members in traced:
        size = statistics.median(thickness(ln) for ln in members)
        if size / 1.35 <= t <= 1.35 * size and inside_outline(region, line.bbox) >= 0.8:
            members.append(line)
            return True
    return False


def slope(line: TextLine) -> float | None:
    """The angle (radians) of a horizontal line's top edge, from its polygon; None without one."""
    p = line.polygon
    if p is None or len(p) != 4 or line.vertical:
        return None
    dx, dy = p[1].x - p[0].x, p[1].y - p[0].y
    return math.atan2(dy, dx) if dx > 0 else None


def reading_order(lines: Sequence[TextLine]) -> list[TextLine]:
    """Lines of one block in reading order: rows top-down (left to right), or
    vertical columns right to left (each top-down).

    Lettering set at a slant (a tilted caption) is read along its slope: the rows are
    found across the block's median line angle, so a line's words that the detector cut
    into pieces at different heights still come in one row, before the next line.
    """
    if lines and sum(ln.vertical for ln in lines) * 2 > len(lines):
        return sorted(lines, key=lambda ln: (-ln.bbox.center.x, ln.bbox.y0))
    slopes = [a for a in (slope(ln) for ln in lines) if a is not None]
    angle = statistics.median(slopes) if slopes else 0.0
    if abs(angle) < math.radians(3):
        angle = 0.0  # upright lettering: the boxes alone order it
    cos, sin = math.cos(angle), math.sin(angle)

    def across(ln: TextLine) -> float:
        return ln.bbox.center.y * cos - ln.bbox.center.x * sin

    def along(ln: TextLine) -> float:
        return ln.bbox.center.x * cos + ln.bbox.center.y * sin

    def beside(a: TextLine, b: TextLine) -> bool:
        # pieces of one row lie side by side; lines stacked one over the other are two rows
        # however much their (loose) outlines overlap
        overlap = min(a.bbox.x1, b.bbox.x1) - max(a.bbox.x0, b.bbox.x0)
        return overlap < 0.3 * min(a.bbox.width, b.bbox.width)

    rows: list[list[TextLine]] = []
    for ln in sorted(lines, key=across):
        if (
            rows
            and abs(across(ln) - across(rows[-1][0])) < 0.5 * thickness(rows[-1][0])
            and all(beside(ln, other) for other in rows[-1])
        ):
            rows[-1].append(ln)
        else:
            rows.append([ln])
    key = along if angle else (lambda ln: ln.bbox.x0)
    return [ln for row in rows for ln in sorted(row, key=key)]
