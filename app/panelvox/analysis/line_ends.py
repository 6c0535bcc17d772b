"""A line's ends that its detected box cut off, read again.

The detector's box often starts inside a line's first letter (a caption's large initial,
"UDDENLY" for "SUDDENLY") or leaves out a lone "I" a word space before the rest of the line
("CAN'T LOOK!"). Where the box's end cuts ink, or a lone upright letter stands just before
it, the line is read again with its box widened to take the letter in, and the new reading is
kept only when it has fewer non-words, or is the old one with its first "I".

A line whose reading has a non-word is also read again with a margin round its box
(:func:`reread_non_words`): a box that grazes its letters' tops (a large initial, "HAT
NIGHT") or halves a stroke is read whole from the wider view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.tilted_text import Line
from panelvox.model import Image
from panelvox.models.ctc_beam import CtcDecoder
from panelvox.models.ocr import Detection, Recognition, crop_quad
from panelvox.models.text_boxes import Box, Quad, axis_box

TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

#: a letter cut by the box reaches at most this many line heights beyond it (a large initial)
_CUT_REACH = 1.5
#: a lone letter stands at most this many line heights (a word space) before the box
_LONE_GAP = 0.8


def _beyond(
    ink: np.ndarray,
    stats: np.ndarray,
    labels: np.ndarray,
    rows: tuple[int, int],
    edge: int,
    side: int,
    h: float,
) -> int | None:
    """Where the letters cut by the box's ``edge`` column end beyond it (``side`` 0: left,
    1: right); ``edge`` itself when none is cut; None when the ink cut runs on (a border or
    the art, not a letter)."""
    out = edge
    for c in set(np.unique(labels[rows[0] : rows[1], edge]).tolist()) - {0}:
        cx, cy, cw, ch = (int(v) for v in stats[c][:4])
        end = cx if side == 0 else cx + cw - 1
        if (side == 0 and end >= edge) or (side == 1 and end <= edge):
            continue
        touches = cx == 0 or cy == 0 or cx + cw >= ink.shape[1] or cy + ch >= ink.shape[0]
        if touches or ch > 2.0 * h or cw > _CUT_REACH * h:
            return None
        out = min(out, end) if side == 0 else max(out, end)
    return out


def _lone_letter(stats: np.ndarray, rows: tuple[int, int], start: int, h: float) -> int | None:
    """The left column of a lone upright letter ("I") a word space before ``start``: the
    nearest ink there, within the line's rows (a quarter of their height over at most), at
    least 0.6 of their height tall and under half of it wide; None when it is no such."""
    best = None
    for c in range(1, len(stats)):
        cx, cy, cw, ch = (int(v) for v in stats[c][:4])
        right = cx + cw - 1
        if right >= start or start - right > _LONE_GAP * h:
            continue
        if min(cy + ch, rows[1]) - max(cy, rows[0]) < 0.5 * ch:
            continue  # a letter of the line above or below
        if best is None or right > stats[best][0] + stats[best][2] - 1:
            best = c
    if best is None:
        return None
    cx, cy, cw, ch = (int(v) for v in stats[best][:4])
    inside = cy >= rows[0] - 0.25 * h and cy + ch <= rows[1] + 0.25 * h and cx > 0
    return cx if inside and ch >= 0.6 * h and cw <= 0.45 * h else None


def widen(image: Image, det: Detection, others: Sequence[Box]) -> tuple[float, float]:
    """How many pixels to move a horizontal line's left and right ends outwards: to where a
    letter its box cuts ends, and on the left to a lone letter a word space before it. An end
    whose cut ink lies in another box (``others``: another piece of the line) stays."""
    x0, y0, x1, y1 = axis_box(det)
    h = y1 - y0
    height, width = image.shape[:2]
    top, left = int(max(0, y0 - 0.5 * h)), int(max(0, x0 - _CUT_REACH * h))
    region = image[top : int(min(height, y1 + 0.5 * h)), left : int(min(width, x1 + _CUT_REACH * h))]
    gray = cv2.cvtColor(region, cv2.COLOR_RGB2GRAY)
    bx0, bx1 = int(x0) - left, int(x1) - left
    rows = (int(y0) - top, int(y1) - top)
    inner = gray[rows[0] : rows[1], bx0:bx1]
    if inner.size == 0 or bx0 < 0 or bx1 > gray.shape[1]:
        return 0.0, 0.0
    threshold, _ = cv2.threshold(inner, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ink = (gray < threshold).astype(np.uint8)
    _n, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
    mid = (y0 + y1) / 2
    moves = []
    for side, edge, probe in ((0, bx0, x0 - 2), (1, bx1 - 1, x1 + 2)):
        if any(b[0] <= probe <= b[2] and b[1] <= mid <= b[3] for b in others):
            moves.append(0.0)
            continue
        end = _beyond(ink, stats, labels, rows, edge, side, h)
        if end is None:
            moves.append(0.0)
            continue
        if side == 0:
            end = _lone_letter(stats, rows, end, h) or end
        moves.append(float(abs(end - edge) + 2) if end != edge else 0.0)
    return moves[0], moves[1]


def _non_words(text: str, lexicon: LetteringLexicon) -> int:
    """Tokens that are no word, counting a lone letter other than A, I, O and a lone digit."""
    return sum(
        1
        for t in TOKEN.findall(text)
        if CtcDecoder.token_penalised(t, lexicon) or (len(t) == 1 and t not in "AIOaio")
    )


def better_reading(old: str, new: str, lexicon: LetteringLexicon) -> bool:
    """Whether the widened box's reading ``new`` replaces ``old``: it has fewer non-words, or
    is ``old`` with the lone "I" that began the line. A reading of under three letters or
    digits is too little to judge by and stays."""
    if sum(c.isalnum() for c in old) < 3:
        return False
    before, after = _non_words(old, lexicon), _non_words(new, lexicon)
    return after < before or (after == before and TOKEN.findall(new) == ["I", *TOKEN.findall(old)])


def _shifted(quad: Quad, left: float, right: float, width: int) -> Quad:
    q = quad.copy()
    q[[0, 3], 0] -= left
    q[[1, 2], 0] += right
    q[:, 0] = np.clip(q[:, 0], 0, width - 1)
    return q


def is_level(d: Detection) -> bool:
    """Whether a line's box lies level (not at a slant): only such a box is widened or stretched."""
    q = d.quad
    return abs(float(q[1, 1] - q[0, 1])) <= 0.05 * max(1.0, float(q[1, 0] - q[0, 0]))


def reread_ends(
    image: Image,
    dets: Sequence[Detection],
    tall: Sequence[bool],
    recs: list[Recognition],
    read: Callable[[list[Image], list[bool]], list[Recognition]],
    lexicon: LetteringLexicon,
) -> None:
    """Read again, widened (see :func:`widen`), each upright horizontal line whose box cuts a
    letter or leaves out a lone one; ``recs`` takes the better readings in place.

    ``read(crops, wanted)`` reads the wanted crops as they read among all of them (see
    :meth:`~panelvox.models.ocr.OcrEngine.recognize`). A widened box whose reading cannot
    be kept (:func:`could_be_better`) is not read."""
    boxes = [axis_box(d) for d in dets]
    todo: list[int] = []
    crops: list[Image] = []
    wanted: list[bool] = []
    for i, (d, v) in enumerate(zip(dets, tall, strict=True)):
        if v or not is_level(d):
            continue  # columns and boxes at a slant keep theirs
        left, right = widen(image, d, [*boxes[:i], *boxes[i + 1 :]])
        if left or right:
            todo.append(i)
            crops.append(crop_quad(image, _shifted(d.quad, left, right, image.shape[1]), vertical=False))
            wanted.append(could_be_better(recs[i].text, left, lexicon))
    if not any(wanted):
        return
    for i, r, w in zip(todo, read(crops, wanted), wanted, strict=True):
        if w and better_reading(recs[i].text, r.text, lexicon):
            recs[i] = r


def could_be_better(old: str, left: float, lexicon: LetteringLexicon) -> bool:
    """Whether a reading of the box widened by ``left`` pixels on the left (and perhaps on
    the right) can pass :func:`better_reading` over ``old``: not when ``old`` is too short
    to judge, nor when it is all words and nothing was added on the left, where the only
    reading kept is ``old`` with a lone "I" before it."""
    if sum(c.isalnum() for c in old) < 3:
        return False
    return left > 0 or _non_words(old, lexicon) > 0


#: the margin, in line heights, a line with a non-word is read again with (sides, top and bottom)
_MARGIN = (0.3, 0.2)


def _grown(quad: Quad, dx: float, dy: float, width: int, height: int) -> Quad:
    q = _shifted(quad, dx, dx, width)
    q[[0, 1], 1] -= dy
    q[[2, 3], 1] += dy
    q[:, 1] = np.clip(q[:, 1], 0, height - 1)
    return q


def reread_non_words(
    image: Image,
    dets: Sequence[Detection],
    tall: Sequence[bool],
    recs: list[Recognition],
    read: Callable[[list[Image]], list[Recognition]],
    lexicon: LetteringLexicon,
) -> None:
    """Read again, with a margin round its box, each upright horizontal line whose reading
    has a non-word; ``recs`` takes the new reading where it has fewer non-words, is read
    with no less confidence and has no more digits (a smudge read "0JA" is not the number
    "10001"). A letter the box grazes (the top of a large initial, a stroke the box's edge
    halves) is read whole from the wider view; lettering that is no word ("ZUN", "VE
    VILL") reads the same and stays."""
    todo: list[int] = []
    crops: list[Image] = []
    height, width = image.shape[:2]
    for i, (d, v) in enumerate(zip(dets, tall, strict=True)):
        if v or not is_level(d) or not _non_words(recs[i].text, lexicon):
            continue
        if sum(c.isalnum() for c in recs[i].text) < 3:
            continue
        box = axis_box(d)
        h = float(box[3] - box[1])
        q = _grown(d.quad, _MARGIN[0] * h, _MARGIN[1] * h, width, height)
        todo.append(i)
        crops.append(crop_quad(image, q, vertical=False))
    for i, r in zip(todo, read(crops) if crops else [], strict=True):
        old = recs[i]
        if (
            _non_words(r.text, lexicon) < _non_words(old.text, lexicon)
            and r.score >= old.score
            and _digits(r.text) <= _digits(old.text)
        ):
            recs[i] = r


def _digits(text: str) -> int:
    return sum(c.isdigit() for c in text)


#: a word cut off a line's end stands at most this many line heights (a word space) from it
_PIECE_GAP = 0.8
#: a sure word's box touching a line's end (at most this many line heights from it, or
#: overlapping it) is the same row cut in two by the detector
_TOUCH = 0.15
#: a piece read with less confidence than this may be a word of the line beside it
_UNSURE = 0.6


def _piece_of(piece: Box, line: Box, *, touching: bool = False) -> int:
    """Which end of ``line`` the short box ``piece`` continues (-1: before it, 1: after it),
    or 0: it lies on the line's row (its middle within the line's height, itself at least
    half as tall, not above or below it) at most a word space from that end. With
    ``touching``, the piece must touch that end: at most a hairline away, or overlapping
    it by less than half the piece's width."""
    h = line[3] - line[1]
    mid = (piece[1] + piece[3]) / 2
    if not (line[1] <= mid <= line[3]) or piece[3] - piece[1] < 0.5 * h or piece[2] - piece[0] > 2 * h:
        return 0
    low = -0.5 * (piece[2] - piece[0]) if touching else 0
    high = (_TOUCH if touching else _PIECE_GAP) * h
    if low <= piece[0] - line[2] <= high:
        return 1
    if low <= line[0] - piece[2] <= high:
        return -1
    return 0


def join_pieces(
    image: Image,
    lines: list[Line],
    read: Callable[[list[Image]], list[Recognition]],
    lexicon: LetteringLexicon,
) -> list[Line]:
    """``lines`` with each short word the detector cut off a line's end read as part of it.

    A lone "I" a word space after "THE FIRST THING" can come out of detection as a box of
    its own, read "1" and unsure. Where a piece of at most two letters, read unsure or as no
    word, lies on an upright line's row just beyond its end (see :func:`_piece_of`), the line
    is read again with its box stretched over the piece; the new reading is kept, and the
    piece dropped, when it is the old one with one more word at that end and has no more
    non-words. A piece read surely as a word is a word of its own, unless its box touches
    the line's end: "THE LAW" and a thin box round "OF" whose ink the line's box grazes are
    one row, "THE LAW OF", cut in two (said apart, the "OF" came after the balloon).
    """
    boxes = [axis_box(d) for d, _r, _v in lines]
    short = {
        k: not (r.score < _UNSURE or _non_words(r.text, lexicon) or not TOKEN.findall(r.text))
        for k, (_d, r, v) in enumerate(lines)
        if not v and sum(c.isalnum() for c in r.text) <= 2
    }  # piece: read surely as a word
    todo: list[tuple[int, int, int]] = []  # line, piece, end
    for k, sure in short.items():
        found = [
            (i, end)
            for i, (d, r, v) in enumerate(lines)
            if i != k and not v and is_level(d) and sum(c.isalnum() for c in r.text) >= 3
            if (end := _piece_of(boxes[k], boxes[i], touching=sure))
        ]
        if len(found) == 1 and all(t[0] != found[0][0] for t in todo):
            todo.append((found[0][0], k, found[0][1]))
    if not todo:
        return lines
    width = image.shape[1]
    stretched: list[Detection] = []
    for i, k, end in todo:
        d = lines[i][0]
        left = boxes[i][0] - boxes[k][0] + 2 if end < 0 else 0.0
        right = boxes[k][2] - boxes[i][2] + 2 if end > 0 else 0.0
        outline = None if d.outline is None else _shifted(d.outline, left, right, width)
        stretched.append(Detection(_shifted(d.quad, left, right, width), d.score, outline))
    news = read([crop_quad(image, s.quad, vertical=False) for s in stretched])
    out = list(lines)
    dropped: set[int] = set()
    for (i, k, end), s, new in zip(todo, stretched, news, strict=True):
        old = lines[i][1].text
        before, after = TOKEN.findall(old), TOKEN.findall(new.text)
        one_more = after[:-1] == before if end > 0 else after[1:] == before
        if (
            len(after) == len(before) + 1
            and one_more
            and _non_words(new.text, lexicon) <= _non_words(old, lexicon)
        ):
            out[i] = (s, new, False)
            dropped.add(k)
    return [ln for k, ln in enumerate(out) if k not in dropped]
