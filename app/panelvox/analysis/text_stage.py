"""The "text" stage: detect and read every line of text on the page.

Detection and recognition are PP-OCR models from the rapidocr wheel (see
:mod:`panelvox.models.ocr`); comic lettering is then cleaned up by
:mod:`panelvox.analysis.lettering`. Each line keeps its polygon, text, confidence,
script and whether it is a vertical column or furigana.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from panelvox.analysis.letter_gaps import blank_gaps, unspace_tight
from panelvox.analysis.lettering import (
    LineGeometry,
    WordList,
    clean_line,
    lettering_word,
    ruby_lines,
    script_of,
)
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.line_cross import cut_at_outlines
from panelvox.analysis.line_ends import join_pieces, reread_ends, reread_non_words
from panelvox.analysis.misreads import page_question_marks
from panelvox.analysis.redetect import redetect
from panelvox.analysis.tilted_text import REREAD_MIN_SIDE, reread_merged, reread_slanted
from panelvox.i18n import _
from panelvox.model import BBox, Image, PageAnalysis, Point, TextLine
from panelvox.models.ocr import Detection, OcrConfig, OcrEngine, Recognition, StepTimes, crop_quad
from panelvox.models.ocr_head import FULL, head_for
from panelvox.models.text_boxes import axis_box

DETECTOR = "rapidocr"
STAGE = "text"


#: the Latin letters that are words on their own
_ONE_LETTER_WORDS = frozenset("AIOaio")


def _is_noise(text: str) -> bool:
    """Text with no letter or digit in it (specks read as "." or "-"), or a lone Latin
    letter that is no word ("C": one letter of a sound effect drawn letter by letter)."""
    core = [c for c in text if c.isalnum()]
    if not core:
        return True
    return len(core) == 1 and core[0].isascii() and core[0].isalpha() and core[0] not in _ONE_LETTER_WORDS


def _stray_script(scripts: list[str], scores: list[float], sure: float = 0.9) -> set[int]:
    """Indices of unsure lines in a script foreign to the page: on a page lettered in one
    script, an unsure reading in the other is a texture misread (kanji "read" off a
    licence plate on an English page), not text."""
    if len(scripts) < 5:
        return set()
    main = max(set(scripts), key=scripts.count)
    if scripts.count(main) < 0.85 * len(scripts):
        return set()
    return {i for i, (s, c) in enumerate(zip(scripts, scores, strict=True)) if s != main and c < sure}


@dataclass(frozen=True, slots=True)
class DenseText:
    """Running text (credits, a letters page, an advertisement): its lines and word count."""

    lines: frozenset[int]  # indices of the detections it is made of
    words: int  # an estimate from the lines' lengths, before any is read
    whole_page: bool  # most of the page's lettering


#: a line of running text is long for its height: about this many words per line height
_WORDS_PER_HEIGHT = 0.255


def dense_text(dets: list[Detection], page_height: int, *, min_lines: int = 40) -> DenseText | None:
    """Lines that are small running text, found from the detections alone (nothing read).

    Comic lettering is short lines in balloons; running text is many long thin lines of one
    small size. At least ``min_lines`` lines each at least 12 times as long as they are high,
    under 2 % of the page's height and of about the median such line's height make a dense
    block; the small lines between them (a short last line of a paragraph) belong to it.
    """
    if len(dets) < min_lines:
        return None
    sizes = [(min(d.width, d.height), max(d.width, d.height)) for d in dets]
    long_thin = [i for i, (t, ln) in enumerate(sizes) if ln >= 12 * t and t <= 0.02 * page_height]
    if len(long_thin) < min_lines:
        return None
    typical = float(np.median([sizes[i][0] for i in long_thin]))
    members = frozenset(i for i, (t, _ln) in enumerate(sizes) if 0.6 * typical <= t <= 1.4 * typical)
    if sum(1 for i in long_thin if i in members) < min_lines:
        return None
    # a line set among them (two lines run together, a short heading) is part of the text
    boxes = [axis_box(d) for d in dets]
    members |= {
        i
        for i, (t, _ln) in enumerate(sizes)
        if i not in members
        and t <= 2.5 * typical
        and any(_beside(boxes[i], boxes[j], typical) for j in members)
    }
    words = sum(sizes[i][1] / sizes[i][0] * _WORDS_PER_HEIGHT for i in members)
    area = sum(t * ln for t, ln in sizes)
    share = sum(sizes[i][0] * sizes[i][1] for i in members) / max(area, 1e-6)
    return DenseText(members, max(1, round(words)), share >= 0.7)


def _beside(a: tuple[float, float, float, float], b: tuple[float, float, float, float], gap: float) -> bool:
    """True when box ``a`` is above or below ``b`` within ``gap`` and overlaps it sideways."""
    overlap = min(a[2], b[2]) - max(a[0], b[0])
    return overlap > 0.5 * min(a[2] - a[0], b[2] - b[0]) and max(a[1], b[1]) - min(a[3], b[3]) <= gap


def _about(n: int) -> str:
    """A word count said roughly: 37, 240, 1,600 (two significant digits from 100 up)."""
    if n >= 100:
        step = 10 ** (len(str(n)) - 2)
        n = round(n / step) * step
    return f"{n:,}"


def dense_notice(dense: DenseText) -> str:
    if dense.whole_page:
        # Translators: said for a page of small running text (credits, letters) that is not read
        # aloud unless asked; {words} is a rough count such as "2,000".
        return _("A page of text, about {words} words.").format(words=_about(dense.words))
    # Translators: as above, for a block of running text on a page that also has comic lettering.
    return _("A block of text, about {words} words.").format(words=_about(dense.words))


def is_dense_notice(text: str) -> bool:
    """Whether ``text`` is a sentence of :func:`dense_notice` (the reader offers to read it)."""
    probe = 987654321
    for whole in (True, False):
        head, _sep, tail = dense_notice(DenseText(frozenset(), probe, whole)).partition(_about(probe))
        if re.fullmatch(rf"{re.escape(head)}\d[\d\W]*{re.escape(tail)}", text):
            return True
    return False


def announces_text(notices: Sequence[str]) -> bool:
    """Whether a page's ``notices`` announce running text that was not read."""
    return any(is_dense_notice(n) for n in notices)


class TextStage:
    """Detects and recognises text lines; the engine is created on first use and reused."""

    name = STAGE

    def __init__(
        self,
        engine: OcrEngine | None = None,
        *,
        config: OcrConfig | None = None,
        words: WordList | None = None,
        min_confidence: float = 0.5,
        times: StepTimes | None = None,
        read_dense: bool = False,
    ) -> None:
        self._engine = engine
        self._config = engine.config if engine is not None else (config or OcrConfig())
        self._words = words
        self._lexicon: LetteringLexicon | None = None
        self._lock = threading.Lock()
        self.min_confidence = min_confidence
        #: read running text (see :func:`dense_text`) too, rather than announce its size
        self.read_dense = read_dense
        #: per-step seconds, accumulated when given (benchmarks)
        self.times = times

    @property
    def params(self) -> tuple[OcrConfig, float, bool]:
        """What decides the output besides the code (the analysis cache's fingerprint)."""
        return (self._config, self.min_confidence, self.read_dense)

    @property
    def engine(self) -> OcrEngine:
        with self._lock:
            if self._engine is None:
                self._engine = OcrEngine(self._config)
            return self._engine

    @property
    def words(self) -> WordList:
        with self._lock:
            if self._words is None:
                self._words = WordList.load()
            return self._words

    @property
    def lexicon(self) -> LetteringLexicon:
        """The word test the recogniser's decoder prefers readings by."""
        words = self.words
        with self._lock:
            if self._lexicon is None:
                self._lexicon = LetteringLexicon(words)
            return self._lexicon

    def read_lines(
        self, image: Image, *, dense: list[DenseText] | None = None, head: str = FULL
    ) -> list[tuple[Detection, Recognition, bool]]:
        """Detect and recognise with the recognition ``head`` (see :func:`head_for`); returns
        (detection, recognition, vertical) per line kept.

        Running text is not read unless :attr:`read_dense`: its lines are left out and what
        was found is appended to ``dense`` when given."""
        engine = self.engine
        lexicon = self.lexicon
        times = self.times or StepTimes()

        def read(crops: Sequence[Image], wanted: Sequence[bool] | None = None) -> list[Recognition]:
            return engine.recognize(crops, lexicon, head, wanted=wanted)

        t0 = time.perf_counter()
        dets = [d for d in engine.detect(image) if min(d.width, d.height) >= 6]
        found = None if self.read_dense else dense_text(dets, image.shape[0])
        unread = [] if found is None else [axis_box(d) for i, d in enumerate(dets) if i in found.lines]
        if found is not None:
            dets = [d for i, d in enumerate(dets) if i not in found.lines]
            if dense is not None:
                dense.append(found)
        t1 = time.perf_counter()
        tall = [d.height >= engine.config.vertical_ratio * d.width for d in dets]
        recs = engine.recognize(
            [crop_quad(image, d.quad, vertical=v) for d, v in zip(dets, tall, strict=True)], lexicon, head
        )
        # a letter the box cut, or a lone "I" it left out, read again with the box widened
        reread_ends(image, dets, tall, recs, read, lexicon)
        # a line with a non-word read again with a margin round its box
        reread_non_words(image, dets, tall, recs, read, lexicon)
        # A tall box is a vertical column in Japanese but can be a short Latin word ("I!");
        # where the column reading is not Japanese, try the box upright and keep the better.
        retry = [
            i
            for i, (v, r) in enumerate(zip(tall, recs, strict=True))
            if v and script_of(r.text) != "japanese"
        ]
        if retry:
            upright = read([crop_quad(image, dets[i].quad, vertical=False) for i in retry])
            for i, r in zip(retry, upright, strict=True):
                if r.score > recs[i].score:
                    recs[i] = r
                    tall[i] = False
        # lettering at a slant (a tilted caption) is found again turned upright
        lines = reread_slanted(
            image,
            list(zip(dets, recs, tall, strict=True)),
            lambda im: engine.detect(im, min_side=REREAD_MIN_SIDE),
            read,
            lexicon,
        )
        # lines set so close that the detector ran them into one box are found apart
        lines = reread_merged(image, lines, engine.detect, read, lexicon)
        # a line run across two balloons' rows is cut at the outline between them
        lines = cut_at_outlines(image, lines, read)
        # a short word the detector cut off a line's end ("THING" "I") read with its line
        lines = join_pieces(image, lines, read, lexicon)
        # ink inside a balloon that no line covers: lettering too small for the page's pass
        lines = redetect(
            image,
            [(d, r, v) for d, r, v in lines if r.text and not _is_noise(r.text)],
            # only the quadrilaterals are kept: no outline pass
            lambda im: engine.detect(im, min_side=max(im.shape[:2]), outlines=False),
            read,
            lexicon,
            unread=unread,
        )
        t2 = time.perf_counter()
        times.det += t1 - t0
        times.rec += t2 - t1
        return [
            (d, r, v)
            for d, r, v in lines
            if r.score >= self.min_confidence and r.text and not _is_noise(r.text)
        ]

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        words = self.words
        dense: list[DenseText] = []
        # a book in a Latin-script language is read with the Latin head: no other script
        # can come out of its art
        raw = self.read_lines(image, dense=dense, head=head_for(analysis.language))
        h, w = image.shape[:2]
        scripts = [script_of(r.text) for _d, r, _v in raw]
        geoms = []
        quads = [d.reported for d, _r, _v in raw]
        for (_d, _r, v), s, quad in zip(raw, scripts, quads, strict=True):
            q = np.clip(quad, 0, [w, h])
            geoms.append(
                LineGeometry(
                    float(q[:, 0].min()),
                    float(q[:, 1].min()),
                    float(q[:, 0].max()),
                    float(q[:, 1].max()),
                    v,
                    s,
                )
            )
        ruby = ruby_lines(geoms)
        stray = _stray_script(scripts, [r.score for _d, r, _v in raw])
        cleaned = [clean_line(r.text, words, s) for (_d, r, _v), s in zip(raw, scripts, strict=True)]
        # a space the word model put in where the ink has no gap for one is taken out again
        for i, ((d, r, v), s) in enumerate(zip(raw, scripts, strict=True)):
            read = " ".join(r.text.split())
            if s == "latin" and not v and cleaned[i] != read:
                gaps = blank_gaps(crop_quad(image, d.quad, vertical=False))
                cleaned[i] = unspace_tight(read, cleaned[i], gaps)
        texts = page_question_marks(cleaned, lambda t: lettering_word(t, words))
        lines = []
        for i, ((d, r, v), s, g, text) in enumerate(zip(raw, scripts, geoms, texts, strict=True)):
            if not text or i in stray:
                continue
            lines.append(
                TextLine(
                    id=f"t{i + 1}",
                    bbox=BBox(g.x0, g.y0, g.x1, g.y1),
                    text=text,
                    confidence=round(r.score * min(1.0, 0.5 + d.score), 4),
                    stage=STAGE,
                    polygon=tuple(Point(float(x), float(y)) for x, y in np.clip(quads[i], 0, [w, h])),
                    script=s,
                    vertical=v,
                    ruby=i in ruby,
                )
            )
        return replace(
            analysis,
            lines=tuple(lines),
            stages=(*analysis.stages, f"{STAGE}:{DETECTOR}"),
            notices=(*analysis.notices, *(dense_notice(d) for d in dense)),
        )
