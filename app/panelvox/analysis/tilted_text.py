"""Lettering the page's detection garbled, found again on its own: lines set at a slant (a
tilted caption) turned upright, and lines set so close that they came out as one box.

The text detector separates horizontal lines set close together, but lines at a slant of
more than a few degrees run into each other in its probability map: the page's pass finds
some lines whole, others cut in pieces, others merged two into one box, and some not at
all. Where several slanted lines lie together, their region is cut out, turned so the
lines are horizontal, and detected and read again (enlarged to at least
:data:`REREAD_MIN_SIDE`); the lines found there replace the page pass's lines they cover
when together they hold more letters of words than the page pass read there. Upright
lines with tight leading can also run together into one box, read as a garble: such a box
is detected again alone (:func:`reread_merged`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import numpy as np

from panelvox.analysis.line_groups import linked_groups
from panelvox.model import Image
from panelvox.models.ocr import Detection, Recognition, crop_quad

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")

#: a line sloping more than this (degrees) is slanted lettering
MIN_SLANT = 4.0
MAX_SLANT = 40.0
#: the turned region is detected at least this large (its longer side, pixels). The page's
#: own minimum (960) enlarged a caption's crop about 2.5 times, which cost two thirds of a
#: page's detection. The readings of a caption's punctuation move with the scale (a comma
#: or a closing quote, at 480, 560, 640 or 720 px on one copy of the sample page or the
#: other); at 480 the sample book's page reads as at 960, and `panelvox eval cib` moves by
#: under half a point (docs/benchmarks.md).
REREAD_MIN_SIDE = 480

Read = Callable[[Sequence[Image]], list[Recognition]]
Detect = Callable[[Image], list[Detection]]


def slant(d: Detection) -> float:
    """The angle (degrees) of a detection's top edge; positive slopes down to the right."""
    (x0, y0), (x1, y1) = d.quad[0], d.quad[1]
    return math.degrees(math.atan2(float(y1 - y0), float(x1 - x0))) if x1 > x0 else 90.0


def _box(d: Detection) -> tuple[float, float, float, float]:
    q = d.quad
    return float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())


def slanted_groups(dets: Sequence[Detection]) -> list[list[int]]:
    """Indices of slanted lines that lie together (two or more, sloping the same way)."""
    tilted = [i for i, d in enumerate(dets) if MIN_SLANT <= abs(slant(d)) <= MAX_SLANT and d.width > d.height]

    def linked(p: int, q: int) -> bool:
        a, b = tilted[p], tilted[q]
        if (slant(dets[a]) > 0) != (slant(dets[b]) > 0):
            return False
        ba, bb = _box(dets[a]), _box(dets[b])
        gap = max(ba[0] - bb[2], bb[0] - ba[2], ba[1] - bb[3], bb[1] - ba[3])
        return gap <= min(dets[a].height, dets[b].height)

    groups = [[tilted[p] for p in g] for g in linked_groups(len(tilted), linked)]
    return [g for g in groups if len(g) >= 2]


def _overlap(box: tuple[float, float, float, float], other: tuple[float, float, float, float]) -> float:
    """The share of ``box`` that ``other`` covers."""
    iw = min(box[2], other[2]) - max(box[0], other[0])
    ih = min(box[3], other[3]) - max(box[1], other[1])
    return max(0.0, iw) * max(0.0, ih) / max(1e-6, (box[2] - box[0]) * (box[3] - box[1]))


def _row_share(box: tuple[float, float, float, float], other: tuple[float, float, float, float]) -> float:
    """The share of ``box``'s letters that lie on ``other``'s row: its width ``other``
    overlaps, times how much of the thinner box's height they share. Two readings of one
    row of ink have boxes of different heights (a crop detected alone is boxed tighter than
    the page pass boxes it), which an area share counts as half covered."""
    iw = min(box[2], other[2]) - max(box[0], other[0])
    ih = min(box[3], other[3]) - max(box[1], other[1])
    thin = min(box[3] - box[1], other[3] - other[1])
    return max(0.0, iw) / max(1e-6, box[2] - box[0]) * max(0.0, ih) / max(1e-6, thin)


#: a line with this share of its box on another line's row is that row's ink read again
SAME_INK = 0.6


def _continued(line: Line, old: Line) -> Line:
    """``line`` with the letters that ``old``, a reading of the same row reaching further
    right, holds past its end ("REDUCED, TO NINETY-EIG" and "NINETY-EIGHT"): where the end
    of the one reading is the start of the other (three characters or more)."""
    a, b = _box(line[0]), _box(old[0])
    text, more = line[1].text, old[1].text
    if b[2] - a[2] < 0.5 * (a[3] - a[1]):
        return line
    low, low_more = text.casefold(), more.casefold()
    k = next((k for k in range(min(len(text), len(more)), 2, -1) if low.endswith(low_more[:k])), 0)
    if not k or k == len(more):
        return line
    x0, y0, x1, y1 = min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
    return (replace(line[0], quad=quad, outline=None), replace(line[1], text=text + more[k:]), line[2])


def _word_letters(recs: Sequence[Recognition], is_word: Callable[[str], bool]) -> int:
    """Letters of the readings' tokens that are words: what a reading gets right."""
    return sum(len(t) for r in recs for t in _WORD.findall(r.text) if len(t) > 1 and is_word(t))


Line = tuple[Detection, Recognition, bool]  # a detection, its reading, whether a column


def reread_slanted(
    image: Image, lines: list[Line], detect: Detect, read: Read, is_word: Callable[[str], bool]
) -> list[Line]:
    """``lines`` with each region of slanted lines detected and read again upright, where
    that reading holds more letters of words (``is_word``) than the page pass's."""
    h, w = image.shape[:2]
    dets = [d for d, _, _ in lines]
    for group in slanted_groups(dets):
        boxes = [_box(dets[i]) for i in group]
        margin = float(np.median([dets[i].height for i in group]))
        region = (
            max(0.0, min(b[0] for b in boxes) - margin),
            max(0.0, min(b[1] for b in boxes) - margin),
            min(float(w), max(b[2] for b in boxes) + margin),
            min(float(h), max(b[3] for b in boxes) + margin),
        )
        old = [i for i, d in enumerate(dets) if i in group or _overlap(_box(d), region) >= 0.5]
        angle = float(np.median([slant(dets[i]) for i in group]))
        found = _upright(image, region, angle, detect, read)
        if found is None:
            continue
        if _word_letters([r for _, r in found], is_word) <= _word_letters(
            [lines[i][1] for i in old], is_word
        ):
            continue
        # a line of the region that no new line covers (a sound beside the caption) stays
        new_boxes = [_box(d) for d, _ in found]
        old = [i for i in old if any(_overlap(_box(dets[i]), b) > 0.3 for b in new_boxes)]
        kept = [ln for i, ln in enumerate(lines) if i not in old]
        # a new line on the row of a line that stays (the end of a balloon's row the
        # region took in) is that line's ink read again
        found = [
            (d, r) for d, r in found if not any(_row_share(_box(d), _box(k[0])) >= SAME_INK for k in kept)
        ]
        lines = kept + [(d, r, False) for d, r in found]
        dets = [d for d, _, _ in lines]
    return lines


#: a horizontal box this many times as thick as the page's median line may hold two lines
MERGED_THICKNESS = 1.7
#: ... or whose reading, words or not, is this unsure ("WE ALL / STUCK!" read "STU ALL")
MERGED_SURE = 0.8


def reread_merged(
    image: Image, lines: list[Line], detect: Detect, read: Read, is_word: Callable[[str], bool]
) -> list[Line]:
    """``lines`` with each box that holds two or more lines of lettering run together
    detected and read again on its own, where that reading holds more letters of words.

    Lines set close together (tight leading) can come out of the page's detection as one
    box, read as a garble ("IHANEWTETOCONT" for three lines). A candidate is a horizontal
    box at least :data:`MERGED_THICKNESS` times as thick as the page's median line, whose
    reading is less than half letters of words or unsure (under :data:`MERGED_SURE`: a
    word of each line, "STU ALL" for "WE ALL / STUCK!"); detected alone (at the detector's scale
    for a small image, so larger) its lines come apart. A line of the page pass that lies on
    a new line's row (:data:`SAME_INK` of its box, :func:`_row_share`) was read twice and is
    dropped; what it read past the new line's end is added to the new line.
    """
    flat = [d.height for d, _r, v in lines if not v and d.width > d.height]
    if len(flat) < 3:
        return lines
    median = float(np.median(flat))
    h, w = image.shape[:2]
    found_at: dict[int, list[tuple[Detection, Recognition]]] = {}
    for k, (d, r, v) in enumerate(lines):
        letters = sum(c.isalpha() for c in r.text)
        if v or d.width <= d.height or d.height < MERGED_THICKNESS * median:
            continue
        if 2 * _word_letters([r], is_word) >= letters and r.score >= MERGED_SURE:
            continue
        x0, y0, x1, y1 = _box(d)
        m = 0.25 * median
        region = (max(0.0, x0 - m), max(0.0, y0 - m), min(float(w), x1 + m), min(float(h), y1 + m))
        found = _upright(image, region, 0.0, detect, read, min_lines=2)
        if found is None:
            continue
        if _word_letters([fr for _d, fr in found], is_word) > _word_letters([r], is_word):
            found_at[k] = found
    if not found_at:
        return lines
    # a line of the page pass on one of the new lines' rows is that row read twice
    new = [(fd, fr, False) for found in found_at.values() for fd, fr in found]
    twice: dict[int, int] = {}
    for k, (d, _r, _v) in enumerate(lines):
        shares = [_row_share(_box(d), _box(n[0])) for n in new]
        if k not in found_at and shares and max(shares) >= SAME_INK:
            twice[k] = shares.index(max(shares))
    for k, n in twice.items():
        new[n] = _continued(new[n], lines[k])
    out: list[Line] = []
    taken = 0
    for k, line in enumerate(lines):
        if k in found_at:
            out.extend(new[taken : taken + len(found_at[k])])
            taken += len(found_at[k])
        elif k not in twice:
            out.append(line)
    return out


def _upright(
    image: Image,
    region: tuple[float, float, float, float],
    angle: float,
    detect: Detect,
    read: Read,
    *,
    min_lines: int = 1,
) -> list[tuple[Detection, Recognition]] | None:
    """The lines detected in ``region`` turned by ``angle``, read, in page pixels; None
    when fewer than ``min_lines`` are found (then nothing is read)."""
    x0, y0, x1, y1 = (round(v) for v in region)
    crop = image[y0:y1, x0:x1]
    ch, cw = crop.shape[:2]
    if ch < 8 or cw < 8:
        return None
    # turn the crop by the slant (counter-clockwise for lines sloping down to the right) on a
    # canvas large enough to hold it
    m = cv2.getRotationMatrix2D((cw / 2, ch / 2), angle, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(ch * sin + cw * cos), int(ch * cos + cw * sin)
    m[0, 2] += nw / 2 - cw / 2
    m[1, 2] += nh / 2 - ch / 2
    warped = cv2.warpAffine(crop, m, (nw, nh), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    turned: Image = np.ascontiguousarray(warped, dtype=np.uint8)
    found = [d for d in detect(turned) if min(d.width, d.height) >= 6 and d.width > d.height]
    if len(found) < min_lines:
        return None
    recs = read([crop_quad(turned, d.quad, vertical=False) for d in found])
    back = cv2.invertAffineTransform(m)

    def to_page(q: np.ndarray) -> np.ndarray:
        pts = np.hstack([q.astype(np.float64), np.ones((len(q), 1))]) @ back.T
        return (pts + np.array([x0, y0], dtype=np.float64)).astype(np.float32)

    out = []
    for d, r in zip(found, recs, strict=True):
        outline = to_page(d.outline) if d.outline is not None else None
        out.append((replace(d, quad=to_page(d.quad), outline=outline), r))
    return out
