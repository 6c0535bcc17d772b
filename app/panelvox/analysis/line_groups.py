"""Which text lines belong to one block, and the order they are read in.

Used by the balloons stage before it looks for the balloon around a group: lines that sit
close together, at one size, are one block (a caption's drop capital and furigana
included); a block's lines are read in rows top-down, or in columns right to left.
"""

from __future__ import annotations

from collections.abc import Sequence

from panelvox.model import TextLine


def thickness(line: TextLine) -> float:
    """A line's thickness: its height, or a vertical column's width."""
    return line.bbox.width if line.vertical else line.bbox.height


def cluster_lines(
    lines: Sequence[TextLine], gap: float = 0.9, size_ratio: float = 2.0
) -> list[list[TextLine]]:
    """Group lines that sit close together, as lettering in one block does.

    Lines whose thickness differs by more than ``size_ratio`` are kept apart (a sound
    effect beside speech) unless one is furigana; a drop capital makes a caption's first
    line up to about twice as thick as the rest. Vertical columns of one block start at
    the same height (Japanese balloons are top-aligned): a column starting more than a
    character lower or higher begins another block.
    """
    n = len(lines)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        a = lines[i]
        for j in range(i + 1, n):
            b = lines[j]
            if a.vertical != b.vertical:
                continue
            ta, tb = thickness(a), thickness(b)
            if max(ta, tb) > size_ratio * min(ta, tb) and not (a.ruby or b.ruby):
                continue
            if a.vertical and abs(a.bbox.y0 - b.bbox.y0) > 1.2 * max(ta, tb):
                continue
            limit = gap * min(ta, tb)
            if a.vertical:
                dist = max(a.bbox.x0, b.bbox.x0) - min(a.bbox.x1, b.bbox.x1)
                overlap = min(a.bbox.y1, b.bbox.y1) - max(a.bbox.y0, b.bbox.y0)
            else:
                dist = max(a.bbox.y0, b.bbox.y0) - min(a.bbox.y1, b.bbox.y1)
                overlap = min(a.bbox.x1, b.bbox.x1) - max(a.bbox.x0, b.bbox.x0)
            # side by side is two blocks (two captions, two columns); stacked is one
            if dist <= limit and overlap > 0.2 * min(ta, tb):
                parent[find(i)] = find(j)
    groups: dict[int, list[TextLine]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(lines[i])
    return list(groups.values())


def reading_order(lines: Sequence[TextLine]) -> list[TextLine]:
    """Lines of one block in reading order: rows top-down (left to right), or
    vertical columns right to left (each top-down)."""
    if lines and sum(ln.vertical for ln in lines) * 2 > len(lines):
        return sorted(lines, key=lambda ln: (-ln.bbox.center.x, ln.bbox.y0))
    rows: list[list[TextLine]] = []
    for ln in sorted(lines, key=lambda ln: ln.bbox.center.y):
        if rows and abs(ln.bbox.center.y - rows[-1][0].bbox.center.y) < 0.5 * thickness(rows[-1][0]):
            rows[-1].append(ln)
        else:
            rows.append([ln])
    return [ln for row in rows for ln in sorted(row, key=lambda ln: ln.bbox.x0)]
