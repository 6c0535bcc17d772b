"""What a block of lettering is, as one learned decision: the facts of a block and a small
multinomial logistic model over them (issue 30). Not wired into the pipeline yet: held out
by story it does not reach the rules' figures (docs/benchmarks.md, "Block kinds, learned");
it is meant to move to ``analysis/`` as the balloons stage's decision once it does.

A block is one of :data:`CLASSES`: dialogue (speech, thought), narration (a caption, the
story's title), a sound effect, a sign drawn in the art, or not lettering at all (a mark the
text reader found in the art, dropped). The facts (:data:`FEATURES`) are what the earlier
stages already measured: the block's lettering size against the page's, its slant, whether
an outline was traced round it and what shape (the balloon tracer's kind: rectangle,
cloud, board, rounded), its tail, its place on the page and against its panel, its lines
and words, its punctuation, how many of its words the lexicons know (words, sounds,
cries, words that move the story on) and how surely the recogniser read it.

``scripts/train_block_kinds.py`` trains it from the golden scripts' kinds, cross-validated
by story. Applying it is numpy only.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from panelvox.analysis.block_roles import _opens_narration, stretched_in, told_in_past
from panelvox.analysis.lettering import (
    WordList,
    interjection_words,
    proper_names,
    sound_words,
    voice_words,
)
from panelvox.analysis.line_groups import slope, thickness
from panelvox.model import Balloon, BalloonKind, Panel, TextLine
from panelvox.models.ctc_beam import Lexicon

#: what a block can be; "junk" is not lettering (dropped)
CLASSES: tuple[str, ...] = ("speech", "thought", "caption", "title", "sfx", "sign", "junk")

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*")
_ADDRESS = re.compile(r"\b(?:YOU|YOUR|YOURS|YOURSELF|MR|MRS)\b")
_PRE_KINDS = (
    BalloonKind.SPEECH,
    BalloonKind.THOUGHT,
    BalloonKind.CAPTION,
    BalloonKind.SFX,
    BalloonKind.OTHER,
)

FEATURES: tuple[str, ...] = (
    *(f"outline_{k.value}" for k in _PRE_KINDS),
    "traced",
    "tail",
    "size_log",  # median line thickness against the page's typical, log
    "size_of_largest",  # against the page's largest block's
    "largest",
    "top",  # y0 / page height
    "bottom",
    "centre_x",
    "in_panel",
    "panel_edge_gap",  # distance to its panel's top or bottom border, in typical line heights
    "panel_width_share",
    "area_log",  # text box area / page area, log
    "aspect_log",
    "lines_log",
    "words_log",
    "chars_log",
    "letters_share",
    "digits_share",
    "no_letters",
    "cry",  # "!"
    "question",
    "ellipsis",
    "full_stop",
    "words_known",  # share of tokens of two letters or more the lettering lexicon knows
    "sounds",  # share that are sounds spelt out (stretched or not)
    "cries",  # share that are interjections or voices
    "names",  # share that are proper names
    "opens_narration",
    "past_tense",
    "address",
    "read_mean",
    "read_min",
    "slant",  # degrees off the level, median over lines, capped
    "foreign",
    "crossed",  # share of its lines whose boxes cross another unsure reading's
    "blocks_log",  # blocks on the page
    # a linear model weighs each fact alone: the conjunctions a letterer reads at a glance
    "board",  # a traced outline the tracer took for a sign's board
    "told",  # told in the past tense, neither a cry nor a question: narration's voice
    "edge_box",  # traced, running its panel's width against its top or bottom border
    "free_at_edge",  # untraced, outside the panels or against a panel's top or bottom border
    "all_sounds",
    "no_word",  # words of two letters or more, none a word of lettering
    "display_top",  # display lettering (1.8 times the page's) in the top 40 % of the page
)


def _past(tokens: Sequence[str], words: WordList) -> bool:
    """A verb in the past tense ("DROPPED"), cry or question or not."""
    return any(len(t) >= 5 and t.lower().endswith("ed") and words.knows(t.lower()) for t in tokens)


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


@dataclass(frozen=True, slots=True)
class PageFacts:
    """What the features of a page's blocks measure against."""

    typical: float  # the page's typical line thickness
    width: float
    height: float
    largest: float  # the thickness of the page's largest block's lettering
    blocks: int
    foreign: frozenset[str]
    crossed: frozenset[str]


def block_features(
    block: Balloon,
    lines: Mapping[str, TextLine],
    page: PageFacts,
    panels: Mapping[str, Panel],
    words: WordList,
    lexicon: Lexicon,
) -> list[float]:
    """The facts of ``block`` in the order of :data:`FEATURES`."""
    members = [lines[i] for i in block.lines if i in lines]
    size = statistics.median(thickness(ln) for ln in members) if members else page.typical
    typical = max(page.typical, 1.0)
    text = block.text
    tokens = [t.strip("'’") for t in _TOKEN.findall(text) if len(t.strip("'’")) > 1]
    chars = [c for c in text if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    digits = sum(c.isdigit() for c in chars)
    box = block.bbox
    if members:
        box = members[0].bbox
        for ln in members[1:]:
            box = box.union(ln.bbox)
    panel = panels.get(block.panel or "")
    gap, share = 10.0, 0.0
    if panel is not None:
        p = panel.bbox
        gap = min(10.0, max(0.0, min(box.y0 - p.y0, p.y1 - box.y1)) / typical)
        share = min(1.5, box.width / max(1.0, p.width))
    slopes = [a for a in (slope(ln) for ln in members) if a is not None]
    slant = min(30.0, abs(math.degrees(statistics.median(slopes)))) if slopes else 0.0
    confs = [ln.confidence for ln in members] or [block.confidence]
    stripped = text.rstrip(" '\"’”")
    return [
        *(float(block.kind is k) for k in _PRE_KINDS),
        float(block.polygon is not None),
        float(block.tail is not None),
        math.log(max(size, 1.0) / typical),
        size / max(page.largest, 1.0),
        float(size >= page.largest),
        box.y0 / page.height,
        box.y1 / page.height,
        (box.x0 + box.x1) / 2 / page.width,
        float(panel is not None),
        gap,
        share,
        math.log(max(box.area, 1.0) / (page.width * page.height)),
        math.log(max(box.width, 1.0) / max(box.height, 1.0)),
        math.log1p(len(members)),
        math.log1p(len(text.split())),
        math.log1p(len(chars)),
        letters / len(chars) if chars else 0.0,
        digits / len(chars) if chars else 0.0,
        float(letters == 0),
        float("!" in text),
        float("?" in text),
        float("..." in text or "…" in text),
        float(stripped.endswith(".") and not stripped.endswith("..")),
        _share([lexicon(t) for t in tokens]),
        _share([stretched_in(t, sound_words()) for t in tokens]),
        _share([stretched_in(t, interjection_words() | voice_words()) for t in tokens]),
        _share([t.lower() in proper_names() for t in tokens]),
        float(_opens_narration(text)),
        float(_past(tokens, words)),
        float(_ADDRESS.search(text.upper()) is not None),
        statistics.fmean(confs),
        min(confs),
        slant,
        float(block.language in page.foreign),
        _share([i in page.crossed for i in block.lines]),
        math.log1p(page.blocks),
        *_conjunctions(block, tokens, lexicon, words, gap, share, size / typical, box.y0 / page.height),
    ]


def _conjunctions(
    block: Balloon,
    tokens: Sequence[str],
    lexicon: Lexicon,
    words: WordList,
    gap: float,
    share: float,
    size: float,
    top: float,
) -> list[float]:
    traced = block.polygon is not None
    sounds = [stretched_in(t, sound_words()) for t in tokens]
    return [
        float(traced and block.kind is BalloonKind.OTHER),
        float(told_in_past(block.text, words)),
        float(traced and gap < 1.0 and share >= 0.85),
        float(not traced and (block.panel is None or gap < 1.0)),
        float(bool(sounds) and all(sounds)),
        float(bool(tokens) and not any(lexicon(t) for t in tokens)),
        float(size >= 1.8 and top <= 0.4),
    ]


@dataclass(frozen=True, slots=True)
class BlockKindModel:
    """A multinomial logistic regression over standardised :data:`FEATURES`."""

    classes: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]  # classes x features
    intercept: npt.NDArray[np.float64]

    def probabilities(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Each row's probability of each class (rows: blocks, in :data:`FEATURES` order)."""
        z = ((np.atleast_2d(x) - self.mean) / self.scale) @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)

    def to_json(self, **meta: Any) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "classes": list(self.classes),
            "mean": self.mean.round(6).tolist(),
            "scale": self.scale.round(6).tolist(),
            "coef": self.coef.round(6).tolist(),
            "intercept": self.intercept.round(6).tolist(),
            **meta,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BlockKindModel:
        if list(data["features"]) != list(FEATURES):
            raise ValueError("block kind model: its features are not this code's")
        return cls(
            tuple(data["classes"]),
            np.asarray(data["mean"], np.float64),
            np.asarray(data["scale"], np.float64),
            np.asarray(data["coef"], np.float64),
            np.asarray(data["intercept"], np.float64),
        )
