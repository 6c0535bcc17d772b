"""Pieces of a balloon's lettering that were grouped apart from it, given back to it.

A line of a balloon whose letters touch the outline (bold lettering at the balloon's top)
can be left out of the balloon's traced inside and become a block of its own, said alone
("THENKS" apart from its balloon's "CHUM!"), as scene text or dropped as no word. A
letterer puts a balloon's lines inside it: an untraced block lying mostly within a traced
balloon, of the same panel and at that balloon's lettering size, is part of it:
narration of a caption box, dialogue (or lettering taken for scene text) of a balloon,
scene text of a sign's board (:mod:`panelvox.analysis.sign_boards`). A
caption laid over a balloon's corner ("MEANWHILE...") stays narration, and a sound drawn
over a balloon stays a sound. A piece lettered between two of a balloon's rows, under one
and over another, is its middle row whatever it was taken for: a caption never sits inside
a balloon's lettering, and a row boxed a little thick there keeps its place.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from panelvox.analysis.lettering import WordList, join_lines
from panelvox.analysis.line_groups import reading_order, thickness
from panelvox.model import Balloon, BalloonKind, TextLine

#: the kinds of balloon a piece of each kind can belong to: narration to a caption box,
#: dialogue or lettering taken for scene text to a balloon, scene text to a sign's traced
#: board too; a sound stays apart
_HOMES = {
    BalloonKind.CAPTION: (BalloonKind.CAPTION,),
    BalloonKind.SPEECH: (BalloonKind.SPEECH, BalloonKind.THOUGHT),
    BalloonKind.THOUGHT: (BalloonKind.SPEECH, BalloonKind.THOUGHT),
    BalloonKind.OTHER: (BalloonKind.SPEECH, BalloonKind.THOUGHT, BalloonKind.OTHER),
}
#: the share of a piece's box that lies within the balloon's
INSIDE = 0.6
#: a piece's letters are within this factor of the balloon's size
SAME_SIZE = 1.35
#: the same for a piece lettered between two of the balloon's rows (its box may take in
#: some of theirs)
BETWEEN_SIZE = 1.6


def _size(block: Balloon, by_id: Mapping[str, TextLine]) -> float:
    members = [by_id[i] for i in block.lines if i in by_id]
    return statistics.median(thickness(ln) for ln in members) if members else 0.0


def _between_rows(piece: Balloon, b: Balloon, by_id: Mapping[str, TextLine]) -> bool:
    """Whether ``piece`` is lettered between rows of ``b``: a row of it wholly above the
    piece's middle and one wholly below, each sharing the piece's width."""
    mid = (piece.bbox.y0 + piece.bbox.y1) / 2
    rows = [by_id[i].bbox for i in b.lines if i in by_id]
    beside = [r for r in rows if min(r.x1, piece.bbox.x1) > max(r.x0, piece.bbox.x0)]
    return any(r.y1 <= mid for r in beside) and any(r.y0 >= mid for r in beside)


def _home(piece: Balloon, traced: Sequence[Balloon], by_id: Mapping[str, TextLine]) -> Balloon | None:
    """The traced balloon that ``piece`` belongs to, if any."""
    area = piece.bbox.area
    size = _size(piece, by_id)
    kinds = _HOMES.get(piece.kind, ())
    if area <= 0 or size <= 0 or piece.language == "ja":
        return None
    for b in traced:
        own = _size(b, by_id)
        if b.panel != piece.panel or own <= 0 or piece.bbox.intersection(b.bbox) < INSIDE * area:
            continue
        if b.kind in kinds and own / SAME_SIZE <= size <= SAME_SIZE * own:
            return b
        between = piece.kind is not BalloonKind.SFX and b.kind is not BalloonKind.SFX
        if between and own / BETWEEN_SIZE <= size <= BETWEEN_SIZE * own and _between_rows(piece, b, by_id):
            return b
    return None


def rejoin_balloons(
    blocks: Sequence[Balloon],
    by_id: Mapping[str, TextLine],
    words: WordList,
    apart: Callable[[Balloon], bool] = lambda _b: False,
) -> list[Balloon]:
    """``blocks`` with each untraced block that lies within a traced balloon (see the module
    docstring) made part of that balloon: its lines join the balloon's, read in order.
    ``apart``: blocks that never join or take a piece (sounds spelt out)."""
    traced = [b for b in blocks if b.polygon is not None and not apart(b)]
    joined: dict[str, list[Balloon]] = {}
    homes: dict[str, str] = {}
    for b in blocks:
        if b.polygon is None and b.tail is None and not apart(b):
            home = _home(b, traced, by_id)
            if home is not None:
                joined.setdefault(home.id, []).append(b)
                homes[b.id] = home.id
    if not joined:
        return list(blocks)
    out = []
    for b in blocks:
        if b.id in homes:
            continue
        pieces = joined.get(b.id)
        if pieces:
            ids = [i for p in (b, *pieces) for i in p.lines]
            members = reading_order([by_id[i] for i in ids if i in by_id])
            box = b.bbox
            for p in pieces:
                box = box.union(p.bbox)
            b = replace(
                b,
                bbox=box,
                lines=tuple(ln.id for ln in members),
                text=join_lines([ln.text for ln in members], "latin", words),
            )
        out.append(b)
    return out
