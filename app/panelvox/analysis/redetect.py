"""Lettering inside a balloon or caption that the page-scale detector missed, found again.

A balloon's or caption's lettering is all read: ink inside it that no read line covers, at
the lettering's size, is lettering the page's detection missed (a small word between two
read ones, "HE HAS THE ROPE (ON) PADMAH"; an "I" before a line, "(I) CAN'T MAKE IT OUT";
whole lines of a tall caption). The page is detected at about 1,280 pixels, where small
lettering's short words fall under the detector's threshold; cut out and enlarged, they
do not.

For each region around the page's read lines (the light area of the balloon the lines stand
in, or where none is traced, the extent of the lines stacked together), the dark strokes of
letter size that no read line's box holds are counted; a region with such strokes is
detected and read again enlarged (:func:`redetect`). A line found there is kept only with
clean evidence: read confidently, every word a word of lettering (the lexicon), holding
some of the uncovered strokes. It joins the page's lines, or replaces the page's lines it
contains when it reads more letters of words than they did. An unsure reading is left out.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.lettering import lettering_word, segment
from panelvox.analysis.lexicon import LetteringLexicon, contracted
from panelvox.analysis.line_ends import TOKEN, is_level
from panelvox.analysis.line_groups import linked_groups
from panelvox.analysis.tilted_text import Detect, Line, Read
from panelvox.model import Image
from panelvox.models.ocr import Detection, Recognition, crop_quad
from panelvox.models.text_boxes import Box, axis_box

Mask = npt.NDArray[np.uint8]

#: a page line read with less confidence than this covers nothing (it is dropped later)
FLOOR = 0.5
#: a line found again is kept read at least this confidently
SURE = 0.85
#: the region is enlarged so its lettering's line boxes are about this tall (pixels) ...
TARGET_THICKNESS = 56.0
#: ... by at least this factor (less would find what the page's pass found) ...
MIN_SCALE = 1.4
#: ... and at most this long on its longer side
MAX_SIDE = 1280
#: a balloon's light area larger than this share of the page is background (as the balloons stage)
MAX_REGION_SHARE = 0.2


def _paper_region(
    gray: npt.NDArray[np.uint8], box: Box, fills: dict[int, npt.NDArray[np.uint8]]
) -> tuple[Box, Mask] | None:
    """The light area the line ``box`` stands in, holes (its letters) filled: a balloon's or
    caption's inside, bounded by its outline, as (its box, 1 inside within that box); None
    on art or background. ``fills`` keeps the page's flood images per paper tone."""
    h, w = gray.shape
    x0, y0, x1, y1 = (int(v) for v in box)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    patch = gray[y0:y1, x0:x1]
    bright = float(np.percentile(patch, 95))
    if bright < 120:
        return None
    tone = round(bright / 8)
    if tone not in fills:
        # the page with dark strokes (thickened by a pixel, so the fill stops at broken
        # ones) set to 0, as the balloons stage traces balloons
        barrier = cv2.dilate((gray < 0.6 * 8 * tone).astype(np.uint8), np.ones((3, 3), np.uint8))
        fills[tone] = np.where(barrier > 0, 0, gray).astype(np.uint8)
    fill = fills[tone]
    ys, xs = np.nonzero((patch >= 0.85 * bright) & (fill[y0:y1, x0:x1] > 0))
    # seeds: light pixels nearest the box's top edge, its bottom edge (above and below the
    # letters) and its middle row; one in a letter's closed counter fills only that
    for row in (0.0, 1.0, 0.5) if len(ys) else ():
        k = int(np.argmin(np.abs(ys - row * (y1 - y0 - 1)) + 0.1 * np.abs(xs - (x1 - x0) / 2)))
        region = _filled(fill, (int(x0 + xs[k]), int(y0 + ys[k])), (x1 - x0) * (y1 - y0))
        if region is not None:
            return region
    return None


def _filled(fill: npt.NDArray[np.uint8], seed: tuple[int, int], least: int) -> tuple[Box, Mask] | None:
    """The light region round ``seed`` with its holes filled, when it is a balloon's: at
    least ``least`` pixels, not background, not the paper round the panels."""
    h, w = fill.shape
    mask = np.zeros((h + 2, w + 2), np.uint8)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE | (1 << 8)
    _n, _img, _mask, (x, y, bw, bh) = cv2.floodFill(fill, mask, seed, 0, 40, 40, flags)
    # the paper round the panels (a frame of gutters), not a balloon: as the balloons stage
    if bw > 0.5 * w or bh > 0.5 * h:
        return None
    region = np.ascontiguousarray(mask[1 + y : 1 + y + bh, 1 + x : 1 + x + bw])
    area = int(region.sum())
    if area > MAX_REGION_SHARE * h * w or area < least:
        return None
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    if int(filled.sum()) < 0.35 * bw * bh:
        return None
    return (float(x), float(y), float(x + bw), float(y + bh)), filled


def _stacks(boxes: Sequence[Box], thick: Sequence[float]) -> list[list[int]]:
    """Lines stacked into one block: of about one size, overlapping sideways, at most a
    line height apart from top to bottom."""

    def linked(i: int, j: int) -> bool:
        a, b = boxes[i], boxes[j]
        if max(thick[i], thick[j]) > 1.5 * min(thick[i], thick[j]):
            return False
        gap = max(a[1], b[1]) - min(a[3], b[3])
        return gap <= min(thick[i], thick[j]) and min(a[2], b[2]) > max(a[0], b[0])

    return linked_groups(len(boxes), linked)


def _letters(
    gray: npt.NDArray[np.uint8], box: Box, inside: Mask | None, covered: Mask, thick: float
) -> list[Box]:
    """Dark strokes of letter size within ``box`` (and ``inside`` when given) outside the
    ``covered`` pixels (the read lines' boxes), in page pixels. Strokes are cut where a box
    ends, so a row of letters touching the read row below still shows above it."""
    x0, y0, x1, y1 = (int(v) for v in box)
    patch = gray[y0:y1, x0:x1]
    if patch.size == 0:
        return []
    within = None
    if inside is not None:
        # off the outline's stroke: the inside shrunk by a third of a line
        shrink = max(1, round(thick / 3))
        within = cv2.erode(inside, np.ones((shrink, shrink), np.uint8))
    # the paper's tone is the balloon's own (a red caption's), not the page's around it
    paper = float(np.percentile(patch if within is None or not within.any() else patch[within > 0], 98))
    ink = (patch < 0.6 * paper).astype(np.uint8)
    ink[covered[y0:y1, x0:x1] > 0] = 0
    if within is not None:
        ink[within == 0] = 0
    n, _labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
    out = []
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        fill = area / (w * h)
        solid = fill > 0.9 and w > 0.5 * thick  # a dark patch of the art, not a stroke
        if 0.3 * thick <= h <= 1.0 * thick and w <= 3 * thick and fill >= 0.08 and not solid:
            out.append((float(x0 + x), float(y0 + y), float(x0 + x + w), float(y0 + y + h)))
    return out


def _holds(box: Box, part: Box) -> bool:
    """Whether a line's ``box`` holds the stroke ``part``: its middle across, most of its
    height (a generous box reaching into the next row does not hold that row's letters)."""
    cx = (part[0] + part[2]) / 2
    rows = min(box[3], part[3]) - max(box[1], part[1])
    return box[0] <= cx <= box[2] and rows >= 0.7 * (part[3] - part[1])


def _same_row(a: Box, b: Box) -> bool:
    """Boxes overlapping sideways, each one's middle within the other's height."""
    ya, yb = (a[1] + a[3]) / 2, (b[1] + b[3]) / 2
    return min(a[2], b[2]) > max(a[0], b[0]) and a[1] <= yb <= a[3] and b[1] <= ya <= b[3]


def _across(a: Box, b: Box) -> float:
    """The share of ``a``'s width within ``b``'s."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) / max(1e-6, a[2] - a[0])


def _word(token: str, lexicon: LetteringLexicon, page_words: frozenset[str]) -> bool:
    """A word: of the word list or comics lexicon (a stretched "NOOOO" too), read surely
    elsewhere on the page (a name: "JAFARA"), or words run together that split into words
    of two letters or more but a first "I" or "A" ("WEALL", "ISTUCK"; not "RAMIA" as
    "RAM I A": a garble splits so)."""
    if token.upper() in page_words:
        return True
    if len(token) == 1:
        return token in "AIOaio"
    if any(lettering_word(t, lexicon.words) for t in (token, *contracted(token.lower()))):
        return True
    parts = segment(token.lower(), lexicon.words) if token.isalpha() else None
    return parts is not None and all(len(p) > 1 or (k == 0 and p in "ai") for k, p in enumerate(parts))


def _word_letters(text: str, lexicon: LetteringLexicon, page_words: frozenset[str]) -> int:
    return sum(len(t) for t in TOKEN.findall(text) if _word(t, lexicon, page_words))


def clean(r: Recognition, lexicon: LetteringLexicon, page_words: frozenset[str] = frozenset()) -> bool:
    """A reading sure enough to say: confident, every token a word (see :func:`_word`)."""
    tokens = TOKEN.findall(r.text)
    return r.score >= SURE and bool(tokens) and all(_word(t, lexicon, page_words) for t in tokens)


def regions(gray: npt.NDArray[np.uint8], lines: Sequence[Line]) -> list[tuple[Box, Mask | None, float]]:
    """The balloons and blocks around the page's read upright lines: (box, 1 inside the
    balloon within the box or None, typical line thickness)."""
    keep = [k for k, (d, r, v) in enumerate(lines) if not v and r.score >= FLOOR and is_level(d)]
    if not keep:
        return []
    boxes = [axis_box(lines[k][0]) for k in keep]
    thick = [lines[k][0].height for k in keep]
    h, w = gray.shape
    out: list[tuple[Box, Mask | None, float]] = []
    taken = np.zeros((h, w), bool)
    loose: list[int] = []
    fills: dict[int, npt.NDArray[np.uint8]] = {}
    for i, b in enumerate(boxes):
        cx, cy = int((b[0] + b[2]) / 2), int((b[1] + b[3]) / 2)
        if taken[min(cy, h - 1), min(cx, w - 1)]:
            continue
        found = _paper_region(gray, b, fills)
        if found is None:
            loose.append(i)
            continue
        box, inside = found
        x0, y0, x1, y1 = (int(v) for v in box)
        taken[y0:y1, x0:x1] |= inside > 0
        members = [
            t
            for t, o in zip(thick, boxes, strict=True)
            if x0 <= (o[0] + o[2]) / 2 < x1
            and y0 <= (o[1] + o[3]) / 2 < y1
            and inside[int((o[1] + o[3]) / 2) - y0, int((o[0] + o[2]) / 2) - x0]
        ]
        out.append((box, inside, statistics.median(members or [thick[i]])))
    for group in _stacks([boxes[i] for i in loose], [thick[i] for i in loose]):
        t = statistics.median(thick[loose[g]] for g in group)
        left = min(boxes[loose[g]][0] for g in group) - t
        top = min(boxes[loose[g]][1] for g in group) - 1.2 * t
        right = max(boxes[loose[g]][2] for g in group) + t
        bottom = max(boxes[loose[g]][3] for g in group) + 1.2 * t
        out.append(((max(0.0, left), max(0.0, top), min(float(w), right), min(float(h), bottom)), None, t))
    return out


def redetect(
    image: Image,
    lines: list[Line],
    detect: Detect,
    read: Read,
    lexicon: LetteringLexicon,
    *,
    unread: Sequence[Box] = (),
) -> list[Line]:
    """``lines`` with the lettering their balloons' and blocks' uncovered ink holds, found
    again enlarged (see the module's docstring). ``unread``: boxes left unread on purpose
    (running text announced by its size), never looked at again."""
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
    page_words = frozenset(
        t.upper() for _d, r, _v in lines if r.score >= SURE for t in TOKEN.findall(r.text) if len(t) > 2
    )
    # a line read surely, or as words, covers its ink; a garble read unsure does not
    covering = [
        axis_box(d)
        for d, r, _v in lines
        if r.score >= SURE or (r.score >= FLOOR and clean(replace(r, score=1.0), lexicon, page_words))
    ]
    covered = np.zeros(gray.shape, np.uint8)
    for b in (*covering, *unread):
        covered[int(b[1]) : int(np.ceil(b[3])), int(b[0]) : int(np.ceil(b[2]))] = 1
    out = list(lines)
    for box, inside, thick in regions(gray, lines):
        missed = _letters(gray, box, inside, covered, thick)
        # in a traced balloon one stroke is a word ("I"); round untraced lines, in the art,
        # a lone stroke is more often a mark of the drawing
        if len(missed) < (1 if inside is not None else 2):
            continue
        # only the rows of the uncovered strokes (and a line above and below) are looked at
        band = (
            box[0],
            max(box[1], min(p[1] for p in missed) - 1.5 * thick),
            box[2],
            min(box[3], max(p[3] for p in missed) + 1.5 * thick),
        )
        for new in _found(image, band, thick, missed, detect, read):
            if not clean(new[1], lexicon, page_words):
                continue
            nbox = axis_box(new[0])
            olds = [k for k, (od, _r, _v) in enumerate(out) if _same_row(axis_box(od), nbox)]
            sure_olds = [k for k in olds if out[k][1].score >= FLOOR]
            # a page line on its row that the new one cuts across, not holding it: the two
            # disagree; the page's stays unless it is a garble (unsure or no words)
            if any(
                _across(axis_box(out[k][0]), nbox) < 0.6 and clean(out[k][1], lexicon, page_words)
                for k in sure_olds
            ):
                continue
            before = sum(_word_letters(out[k][1].text, lexicon, page_words) for k in sure_olds)
            if _word_letters(new[1].text, lexicon, page_words) <= before:
                continue
            out = [ln for k, ln in enumerate(out) if k not in olds]
            out.append(new)
    return out


def _found(image: Image, box: Box, thick: float, missed: list[Box], detect: Detect, read: Read) -> list[Line]:
    """The upright lines detected in ``box`` enlarged that hold an uncovered stroke, read,
    in page pixels."""
    scale = min(max(TARGET_THICKNESS / thick, 2.0), MAX_SIDE / max(box[2] - box[0], box[3] - box[1]))
    if scale < MIN_SCALE:
        return []
    x0, y0, x1, y1 = (int(v) for v in box)
    big = cv2.resize(image[y0:y1, x0:x1], None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    crop: Image = np.ascontiguousarray(big, dtype=np.uint8)
    found = []
    for d in detect(crop):
        if min(d.width, d.height) < 6 or not is_level(d):
            continue
        quad = (d.quad / scale + np.array([x0, y0], np.float32)).astype(np.float32)
        if any(_holds(axis_box(Detection(quad, 0.0)), p) for p in missed):
            found.append((d, Detection(quad, d.score)))
    recs = read([crop_quad(crop, d.quad, vertical=False) for d, _p in found]) if found else []
    return [(p, r, False) for (_d, p), r in zip(found, recs, strict=True)]
