"""Who is the same speaker: the page's dialogue balloons grouped into persons.

A tail tells which figure of a panel speaks; it does not tell that the boy in panel 2 is
the boy of panel 4. Colour descriptors of figure boxes barely do either on Golden Age pages
(docs/benchmarks.md: an AUC of about 0.5 for "same speaker" across panels), so the person a
balloon belongs to is decided from every cue together, for each *pair* of balloons:

- conversation structure: two balloons of one panel are two people (a reply), unless one
  hangs under the other; a panel that holds one balloon and the next that holds one are
  often the same speaker; the first (or last) balloons of two neighbouring panels are more
  often the same person than a first and a last;
- the tail: the same figure, the place the tail points at (screen side, a colour sample of
  what is there), tails pointing the same way across panels;
- the words: the same way of speaking (character trigrams: dialect is spelt out), the same
  person addressed ("…, RAMA!" twice), a question answered by the next balloon.

A small logistic model (:data:`MODEL_FILE`, made by ``scripts/train_speaker_model.py`` on
the cib golden scripts with every story held out once; its cross-validated figures are the
ones reported) turns a pair's features into the probability that one person says both.
Balloons are then grouped by average linkage on the log-odds, with a merge bias (a page has
few speakers), and a last pass moves single balloons to the group that fits them best.
Everything here is a pure function of the page.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from panelvox.analysis.appearance import AppearanceModel, centre
from panelvox.analysis.identity import Descriptor, describe, distance
from panelvox.logistic import LogisticModel
from panelvox.model import Balloon, BalloonKind, BBox, Image, PageAnalysis, Point, SpeakerLink

#: the shipped pair model, beside this module
MODEL_FILE = "data/speaker_pairs.json"
MODEL_FORMAT = "panelvox.speaker-pairs/1"
_MIN_TAIL = 0.4  # the speakers stage's own floor for a tail worth following
_ADDRESS = re.compile(r"(?:^|[.!?]\s+|\.\.\.\s*|,\s*)([A-Z][A-Z'\-]{2,})\s*(?:,|!|\?|\.{2,})")


@dataclass(frozen=True, slots=True)
class BalloonFacts:
    """What the pair features need to know of one dialogue balloon."""

    balloon: Balloon
    panel: str | None
    panel_order: int
    figure: str | None  # the figure the stage's attribution gave it
    tailed: bool
    anchor_x: float  # where the speaker is (tail tip, else under the balloon), share of the panel
    tail_side: int  # -1 the tail points left, 1 right, 0 down, up or no tail
    figure_look: Descriptor | None
    anchor_look: Descriptor
    figures_in_panel: int
    grams: Counter[str]
    addressed: frozenset[str]  # words the balloon calls out ("RAMA" in "IS HE WELL, RAMA?")
    question: bool
    thought: bool
    #: what the figure the balloon points at looks like (the appearance model's embedding)
    look: npt.NDArray[np.float32] | None = None
    rank: int = 0  # place among the dialogue balloons of its panel
    in_panel: int = 1  # dialogue balloons in its panel
    dialogue_panel: int = 0  # index among the page's panels that hold dialogue


#: feature names, in the model's order (docs: docs/speakers.md)
FEATURES: tuple[str, ...] = (
    "same_addressed",
    "addressed_then_next",
    "tails_same_way_across",
    "tails_opposite_across",
    "both_thoughts",
    "a_thought",
    "neighbour_panels",
    "neighbour_single_panels",
    "neighbour_same_rank",
    "neighbour_cross_rank",
    "both_alone_in_panel",
    "same_rank",
    "cross_rank",
    "first_panel_size",
    "second_panel_size",
    "words_alike",
    "words_alike_across",
    "dialogue_panels_apart",
    "same_panel",
    "same_panel_next",
    "same_panel_second_next",
    "across_next",
    "across_second_next",
    "balloons_apart",
    "panels_apart",
    "same_figure",
    "same_figure_same_panel",
    "figure_look_distance",
    "anchor_look_distance",
    "anchor_look_distance_across",
    "anchor_shift",
    "anchor_shift_across",
    "same_side_across",
    "same_side_same_panel",
    "both_tailed",
    "both_tailed_shift",
    "hangs_under",
    "question_then_next",
    "question_then_next_across",
    "first_figures",
    "second_figures",
    "tails",
    "looks_alike_across",
    "looks_alike_same_panel",
)


def balloon_facts(
    analysis: PageAnalysis,
    links: Sequence[SpeakerLink],
    image: Image,
    appearance: AppearanceModel | None = None,
) -> list[BalloonFacts]:
    """The facts of the page's dialogue balloons, in reading order; ``appearance`` (default:
    the shipped model) embeds what the figure each one points at looks like."""
    side = max(analysis.width, analysis.height)
    short = min(analysis.width, analysis.height)
    panels = {p.id: p for p in analysis.panels}
    by_block = {link.balloon: link for link in links}
    chars = {c.id: c for c in analysis.characters}
    text_boxes = [b.bbox for b in analysis.blocks]
    page_box = BBox(0, 0, analysis.width, analysis.height)
    out = []
    for b in analysis.blocks_in_order():
        if b.kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            continue
        panel = panels.get(b.panel) if b.panel else None
        pb = panel.bbox if panel is not None else page_box
        tail = b.tail if b.tail is not None and b.tail.confidence >= _MIN_TAIL else None
        if tail is not None:
            rad = math.radians(tail.direction_deg)
            push = 0.02 * side
            anchor = Point(tail.tip.x + push * math.cos(rad), tail.tip.y + push * math.sin(rad))
            lean = math.cos(rad)
            tail_side = 1 if lean > 0.3 else -1 if lean < -0.3 else 0
        else:
            anchor, tail_side = Point(b.bbox.center.x, b.bbox.y1), 0
        link = by_block.get(b.id)
        figure = chars.get(link.character) if link is not None and link.character else None
        s = 0.09 * short
        x0, y0 = max(0.0, anchor.x - s), max(0.0, anchor.y - 0.3 * s)
        x1, y1 = min(float(analysis.width), anchor.x + s), min(float(analysis.height), anchor.y + 1.7 * s)
        # a tail pointing off the page (its tip at the edge) leaves nothing around it on the page
        around = BBox(x0, y0, x1, y1) if x1 > x0 and y1 > y0 else b.bbox
        out.append(
            BalloonFacts(
                balloon=b,
                panel=b.panel,
                panel_order=(panel.order or 0) if panel is not None else 0,
                figure=figure.id if figure is not None else None,
                tailed=tail is not None,
                anchor_x=(anchor.x - pb.x0) / max(pb.width, 1.0),
                tail_side=tail_side,
                figure_look=describe(image, figure.bbox, text_boxes) if figure is not None else None,
                anchor_look=describe(image, around, text_boxes),
                figures_in_panel=sum(
                    1 for c in analysis.characters if c.panel == b.panel and c.kind == "body"
                ),
                grams=grams(b.text),
                addressed=frozenset(_ADDRESS.findall(" ".join(b.text.upper().split()))),
                question=b.text.strip().endswith("?"),
                thought=b.kind is BalloonKind.THOUGHT,
            )
        )
    model = appearance if appearance is not None else AppearanceModel.shipped()
    # what the page's figures share (its palette, the print's colour cast) says nothing of who
    # is who: the looks are compared less their page's mean
    looks = centre(model.embed_balloons(image, analysis, [f.balloon for f in out]))
    out = [replace(f, look=look) for f, look in zip(out, looks, strict=True)]
    return _with_places(out)


def _with_places(facts: list[BalloonFacts]) -> list[BalloonFacts]:
    """Each balloon's rank among its panel's dialogue balloons, their count, the panel's index."""
    groups: list[list[int]] = []
    for k, f in enumerate(facts):
        if not groups or facts[groups[-1][0]].panel != f.panel:
            groups.append([])
        groups[-1].append(k)
    out = list(facts)
    for index, ks in enumerate(groups):
        for rank, k in enumerate(ks):
            out[k] = replace(out[k], rank=rank, in_panel=len(ks), dialogue_panel=index)
    return out


def pair_features(u: BalloonFacts, v: BalloonFacts, lag: int, page_side: float) -> list[float]:
    """The features of balloons ``u`` and ``v`` (``v`` later by ``lag`` dialogue balloons)."""
    same_panel = float(u.panel is not None and u.panel == v.panel)
    across = 1.0 - same_panel
    next_one, second = float(lag == 1), float(lag == 2)
    neighbours = float(v.dialogue_panel - u.dialogue_panel == 1)
    single = float(u.in_panel == 1 and v.in_panel == 1)
    u_first, v_first = u.rank == 0, v.rank == 0
    u_last, v_last = u.rank == u.in_panel - 1, v.rank == v.in_panel - 1
    same_rank = float((u_first and v_first) or (u_last and v_last))
    cross_rank = float((u_last and v_first) or (u_first and v_last)) * (1.0 - single)
    words = cosine(u.grams, v.grams)
    same_figure = float(u.figure is not None and u.figure == v.figure)
    figure_look = (
        distance(u.figure_look, v.figure_look)
        if u.figure_look is not None and v.figure_look is not None
        else 0.5
    )
    anchor_look = distance(u.anchor_look, v.anchor_look)
    shift = abs(u.anchor_x - v.anchor_x)
    same_side = float((u.anchor_x < 0.5) == (v.anchor_x < 0.5))
    both_tailed = float(u.tailed and v.tailed)
    hangs = float(same_panel and lag == 1 and hangs_under(u.balloon.bbox, v.balloon.bbox, 0.012 * page_side))
    question = float(u.question and lag == 1)
    alike = float(np.dot(u.look, v.look)) if u.look is not None and v.look is not None else 0.0
    return [
        float(bool(u.addressed & v.addressed)),
        float(bool(u.addressed)) * next_one,
        float(u.tail_side != 0 and u.tail_side == v.tail_side) * across,
        float(u.tail_side != 0 and u.tail_side == -v.tail_side) * across,
        float(u.thought and v.thought),
        float(u.thought or v.thought),
        neighbours,
        neighbours * single,
        neighbours * same_rank * (1.0 - single),
        neighbours * cross_rank,
        single,
        same_rank,
        cross_rank,
        min(u.in_panel, 3) / 3,
        min(v.in_panel, 3) / 3,
        words,
        words * across,
        min(v.dialogue_panel - u.dialogue_panel, 4) / 4,
        same_panel,
        same_panel * next_one,
        same_panel * second,
        across * next_one,
        across * second,
        min(lag, 6) / 6,
        min(3, abs(v.panel_order - u.panel_order)) / 3,
        same_figure,
        same_figure * same_panel,
        figure_look,
        anchor_look,
        anchor_look * across,
        shift,
        shift * across,
        same_side * across,
        same_side * same_panel,
        both_tailed,
        both_tailed * shift,
        hangs,
        question,
        question * across,
        min(u.figures_in_panel, 3) / 3,
        min(v.figures_in_panel, 3) / 3,
        float(u.tailed) + float(v.tailed),
        alike * across,
        alike * same_panel,
    ]


def page_pairs(
    facts: Sequence[BalloonFacts], page_side: float
) -> tuple[list[tuple[int, int]], npt.NDArray[np.float64]]:
    """Every pair (i, j), i before j, and its features (one row each)."""
    pairs = [(i, j) for i in range(len(facts)) for j in range(i + 1, len(facts))]
    rows = [pair_features(facts[i], facts[j], j - i, page_side) for i, j in pairs]
    return pairs, np.array(rows, np.float64).reshape(len(pairs), len(FEATURES))


class PairModel(LogisticModel):
    """The log-odds that one person says both balloons of each pair's row."""

    __slots__ = ()
    WHAT, FORMAT, FEATURES = "the speaker pair model", MODEL_FORMAT, FEATURES
    PACKAGE, FILE = "panelvox.analysis", MODEL_FILE


def group_persons(
    n: int, pairs: Sequence[tuple[int, int]], log_odds: Sequence[float], bias: float
) -> list[int]:
    """Person labels 0, 1 … (in order of first balloon) for ``n`` balloons.

    Average linkage: the two groups whose mean pair log-odds (plus ``bias``) is highest merge
    while it is above zero; then each balloon moves to the group that raises the sum of its
    log-odds most (a new group of its own included), until nothing moves.
    """
    if n == 0:
        return []
    score = np.zeros((n, n))
    for (i, j), lo in zip(pairs, log_odds, strict=True):
        score[i, j] = score[j, i] = lo + bias
    groups = [[i] for i in range(n)]
    while len(groups) > 1:
        best, pair = 0.0, None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                m = float(score[np.ix_(groups[a], groups[b])].mean())
                if m > best:
                    best, pair = m, (a, b)
        if pair is None:
            break
        a, b = pair
        groups[a] += groups.pop(b)
    label = [0] * n
    for k, g in enumerate(groups):
        for i in g:
            label[i] = k
    for _ in range(n):
        moved = False
        for i in range(n):
            options = [*sorted(set(label)), max(label) + 1]
            gain = {k: sum(score[i, j] for j in range(n) if j != i and label[j] == k) for k in options}
            best_k = max(options, key=lambda k: (gain[k], -k))
            if gain[best_k] > gain[label[i]] + 1e-9:
                label[i], moved = best_k, True
        if not moved:
            break
    first: dict[int, int] = {}
    return [first.setdefault(k, len(first)) for k in label]


def membership(
    n: int, pairs: Sequence[tuple[int, int]], log_odds: Sequence[float], persons: Sequence[int]
) -> list[float]:
    """How sure each balloon's person is: the mean probability that it shares a speaker with
    the other balloons of its person (1.0 for a person of one balloon)."""
    p = np.eye(n)
    for (i, j), lo in zip(pairs, log_odds, strict=True):
        p[i, j] = p[j, i] = 1.0 / (1.0 + math.exp(-lo))
    out = []
    for i in range(n):
        mates = [j for j in range(n) if j != i and persons[j] == persons[i]]
        out.append(float(np.mean([p[i, j] for j in mates])) if mates else 1.0)
    return out


def grams(text: str) -> Counter[str]:
    """Letter trigrams of a text (dialect is spelt out: the way a person speaks)."""
    t = " " + re.sub(r"[^A-Z' ]+", " ", text.upper()) + " "
    return Counter(t[k : k + 3] for k in range(len(t) - 2))


def cosine(a: Counter[str], b: Counter[str]) -> float:
    """Cosine similarity of two counts."""
    num = sum(n * b.get(k, 0) for k, n in a.items())
    den = math.sqrt(sum(n * n for n in a.values()) * sum(n * n for n in b.values()))
    return num / den if den else 0.0


def hangs_under(a: BBox, b: BBox, gap: float) -> bool:
    """``b`` hangs under ``a`` within ``gap`` pixels (one speaker's balloon chain, a
    continuation), not beside it (side by side is an exchange)."""
    overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
    stacked = b.center.y > a.y1 - 0.25 * a.height and overlap_x > 0.3 * min(a.width, b.width)
    grown = BBox(b.x0 - gap, b.y0 - gap, b.x1 + gap, b.y1 + gap)
    return stacked and a.intersection(grown) > 0
