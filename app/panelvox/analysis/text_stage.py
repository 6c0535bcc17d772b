"""The "text" stage: detect and read every line of text on the page.

Detection and recognition are PP-OCR models from the rapidocr wheel (see
:mod:`panelvox.models.ocr`); comic lettering is then cleaned up by
:mod:`panelvox.analysis.lettering`. Each line keeps its polygon, text, confidence,
script and whether it is a vertical column or furigana.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np

from panelvox.analysis.lettering import LineGeometry, WordList, clean_line, ruby_lines, script_of
from panelvox.model import BBox, Image, PageAnalysis, Point, TextLine
from panelvox.models.ocr import Detection, OcrConfig, OcrEngine, Recognition, StepTimes, crop_quad

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
    ) -> None:
        self._engine = engine
        self._config = engine.config if engine is not None else (config or OcrConfig())
        self._words = words
        self._lock = threading.Lock()
        self.min_confidence = min_confidence
        #: per-step seconds, accumulated when given (benchmarks)
        self.times = times

    @property
    def params(self) -> tuple[OcrConfig, float]:
        """What decides the output besides the code (the analysis cache's fingerprint)."""
        return (self._config, self.min_confidence)

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

    def read_lines(self, image: Image) -> list[tuple[Detection, Recognition, bool]]:
        """Detect and recognise; returns (detection, recognition, vertical) per line kept."""
        engine = self.engine
        times = self.times or StepTimes()
        t0 = time.perf_counter()
        dets = [d for d in engine.detect(image) if min(d.width, d.height) >= 6]
        t1 = time.perf_counter()
        tall = [d.height >= engine.config.vertical_ratio * d.width for d in dets]
        recs = engine.recognize(
            [crop_quad(image, d.quad, vertical=v) for d, v in zip(dets, tall, strict=True)]
        )
        # A tall box is a vertical column in Japanese but can be a short Latin word ("I!");
        # where the column reading is not Japanese, try the box upright and keep the better.
        retry = [
            i
            for i, (v, r) in enumerate(zip(tall, recs, strict=True))
            if v and script_of(r.text) != "japanese"
        ]
        if retry:
            upright = engine.recognize([crop_quad(image, dets[i].quad, vertical=False) for i in retry])
            for i, r in zip(retry, upright, strict=True):
                if r.score > recs[i].score:
                    recs[i] = r
                    tall[i] = False
        t2 = time.perf_counter()
        times.det += t1 - t0
        times.rec += t2 - t1
        return [
            (d, r, v)
            for d, r, v in zip(dets, recs, tall, strict=True)
            if r.score >= self.min_confidence and r.text and not _is_noise(r.text)
        ]

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        words = self.words
        raw = self.read_lines(image)
        h, w = image.shape[:2]
        scripts = [script_of(r.text) for _, r, _ in raw]
        geoms = []
        quads = [d.reported for d, _, _ in raw]
        for (_, _, v), s, quad in zip(raw, scripts, quads, strict=True):
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
        stray = _stray_script(scripts, [r.score for _, r, _ in raw])
        lines = []
        for i, ((d, r, v), s, g) in enumerate(zip(raw, scripts, geoms, strict=True)):
            text = clean_line(r.text, words, s)
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
        return replace(analysis, lines=tuple(lines), stages=(*analysis.stages, f"{STAGE}:{DETECTOR}"))
