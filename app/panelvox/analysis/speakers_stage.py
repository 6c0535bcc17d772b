"""The "speakers" stage: who says each balloon, with a reason and a confidence.

Blocks are taken in reading order. For each one:

- a caption belongs to the narrator (``character=None``, :attr:`SpeakerReason.NARRATOR`);
- a sound effect or other scene text belongs to nobody (no link);
- a speech or thought balloon goes, in this order of trust, to
  1. the character its **tail** points at (followed as a ray from the tip: the figure it
     reaches first and most squarely);
  2. the previous balloon's speaker when the two balloons touch (a **continuation**);
  3. the other one of two characters in a panel where one of them just spoke
     (**alternation** in a two-person exchange), also when the exchange goes on from the
     previous panel and the two panels' figures share identity clusters;
  4. the **nearest** character of the same panel, measured from the middle of the
     balloon's lower edge (speakers usually stand under their words);
- and to no figure when the panel has none at all: never a figure of another panel. The one
  exception is a tail that itself crosses the gutter: its tip, in the next panel, picks from
  that panel.

The figures are then grouped into *persons* (:mod:`panelvox.analysis.speaker_identity`):
the same speaker in three panels is three figures and one person. Each link's ``character``
is the person (the id of their first figure on the page), ``figure`` the figure of the
balloon's own panel; a person seen in no panel ("a voice off") gets a character of kind
``voice`` so their balloons keep one label. Figures of one person share a ``cluster``.

Names are not given here: the book's names pass does it after the cache
(:mod:`panelvox.names.book_names`), where the book's other pages and the user's names are known.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from panelvox.analysis.identity import body_of
from panelvox.analysis.speaker_identity import (
    BalloonFacts,
    PairModel,
    balloon_facts,
    group_persons,
    hangs_under,
    membership,
    page_pairs,
)
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    Image,
    PageAnalysis,
    Point,
    SpeakerLink,
    SpeakerReason,
    Tail,
)

STAGE = "speakers"


@dataclass(frozen=True, slots=True)
class SpeakerParams:
    min_tail_confidence: float = 0.4  # weaker tails are ignored
    touch_gap: float = 0.012  # balloons closer than this (share of the page's longer side) touch
    # tail cost of a figure: follow the tail from its tip; the pixels still between the ray
    # and the figure plus ``ray_travel`` per pixel travelled (the nearest point wins), over
    # the figure's diagonal, plus direction_weight * (1 - cos) / 2 towards its head
    ray_travel: float = 0.5
    ray_reach: float = 0.5  # the ray is followed this share of the page's longer side at most
    direction_weight: float = 0.1
    tail_push: float = 0.02  # the tip is followed this share of the page's longer side
    clear_margin: float = 0.3  # proximity this clear wins over alternation


class SpeakersStage:
    """Attribute every block to a person, the narrator or nobody."""

    name = STAGE

    def __init__(self, params: SpeakerParams | None = None, model: PairModel | None = None) -> None:
        self.params = params or SpeakerParams()
        self.model = model  # None: the shipped pair model, read on first use

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        links = attribute(analysis, self.params)
        model = self.model if self.model is not None else PairModel.shipped()
        facts = balloon_facts(analysis, links, image)
        pairs, rows = page_pairs(facts, max(analysis.width, analysis.height))
        log_odds = list(model.log_odds(rows))
        persons = group_persons(len(facts), pairs, log_odds, model.merge_bias)
        sure = membership(len(facts), pairs, log_odds, persons)
        looks = [f.look if f.look is not None else f.anchor_look for f in facts]
        out = as_persons(replace(analysis, speakers=links), facts, persons, sure, looks)
        return replace(out, stages=(*analysis.stages, STAGE))


def as_persons(
    analysis: PageAnalysis,
    facts: Sequence[BalloonFacts],
    persons: Sequence[int],
    sure: Sequence[float] | None = None,
    looks: Sequence[npt.NDArray[np.float32]] | None = None,
) -> PageAnalysis:
    """``analysis`` with its dialogue balloons' links pointing at persons (see the module doc).

    ``facts`` are the dialogue balloons in reading order, ``persons`` their person labels and
    ``sure`` how sure each one's person is (:func:`membership`); a link's confidence is the
    lower of that and how sure its figure was. ``looks`` (one per balloon) give each person's
    own figure the mean look of its balloons, which the book's persons pass compares across pages.
    """
    sure = sure if sure is not None else [1.0] * len(facts)
    sure_of = {f.balloon.id: s for f, s in zip(facts, sure, strict=True)}
    links = {link.balloon: link for link in analysis.speakers}
    members: dict[int, list[BalloonFacts]] = {}
    for f, person in zip(facts, persons, strict=True):
        members.setdefault(person, []).append(f)
    chars = list(analysis.characters)
    cluster_of: dict[str, str] = {}  # figure id -> person cluster
    new_links: dict[str, SpeakerLink] = {}
    voices = 0
    look_of: dict[str, tuple[float, ...]] = {}  # person's own figure -> their mean look
    look_by_balloon = (
        dict(zip((f.balloon.id for f in facts), looks, strict=True)) if looks is not None else {}
    )
    for person, group in sorted(members.items()):
        key = f"k{person + 1}"
        figures = [f.figure for f in group if f.figure is not None]
        # a person's id is their first figure that no other person has: two persons whose
        # balloons were tied to one figure (a reply drawn to the same place) stay two
        who_seen = next((fid for fid in figures if fid not in cluster_of), None)
        if who_seen is not None:
            who = who_seen
        else:  # heard, never seen (or only on others' figures): one voice for all its balloons
            voices += 1
            first = group[0].balloon
            who = f"v{voices}"
            chars.append(Character(who, first.bbox, 0.3, STAGE, panel=first.panel, kind="voice"))
            cluster_of[who] = key
        for fid in figures:
            cluster_of.setdefault(fid, key)
        seen = [look_by_balloon[f.balloon.id] for f in group if f.balloon.id in look_by_balloon]
        if seen:
            look_of[who] = tuple(round(float(x), 4) for x in np.mean(np.stack(seen), axis=0))
        for f in group:
            old = links.get(f.balloon.id)
            own = f.figure
            member = sure_of[f.balloon.id]
            if old is not None and own is not None:
                conf = round(min(old.confidence, member), 3)
                new_links[f.balloon.id] = replace(old, character=who, figure=own, confidence=conf)
            else:
                conf = round(min(0.5 if figures else 0.4, member), 3)
                new_links[f.balloon.id] = SpeakerLink(
                    f.balloon.id, who, conf, SpeakerReason.CONVERSATION, STAGE, figure=own
                )
    # figures of no speaking person keep an identity of their own, numbered after the persons
    others: dict[str, str] = {}
    for c in chars:
        if c.id not in cluster_of and c.kind == "body":
            others.setdefault(c.cluster or c.id, f"k{len(members) + len(others) + 1}")
    out_chars = []
    for c in chars:
        cluster = cluster_of.get(c.id) or others.get(c.cluster or c.id)
        if c.kind == "face":  # a face shares its body's person
            body = body_of(c, [b for b in chars if b.kind == "body" and b.panel == c.panel])
            if body is not None:
                cluster = cluster_of.get(body.id) or others.get(body.cluster or body.id)
        out_chars.append(replace(c, cluster=cluster, look=look_of.get(c.id, c.look)))
    speakers = tuple(new_links.get(link.balloon, link) for link in analysis.speakers)
    return replace(analysis, characters=tuple(out_chars), speakers=speakers)


def attribute(analysis: PageAnalysis, params: SpeakerParams | None = None) -> tuple[SpeakerLink, ...]:
    """Speaker links for the blocks of ``analysis`` (pure; names untouched)."""
    p = params or SpeakerParams()
    bodies = [c for c in analysis.characters if c.kind == "body"]
    gap = p.touch_gap * max(analysis.width, analysis.height)
    links: list[SpeakerLink] = []
    last: dict[str | None, tuple[Balloon, str | None]] = {}  # panel -> previous speech and its speaker
    previous_cluster: str | None = None  # who spoke the page's previous speech balloon
    cluster_of = {c.id: c.cluster for c in bodies}
    for block in analysis.blocks_in_order():
        if block.kind is BalloonKind.CAPTION:
            links.append(
                SpeakerLink(block.id, None, round(0.9 * block.confidence, 3), SpeakerReason.NARRATOR, STAGE)
            )
            continue
        if block.kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            continue
        cands = _candidates(block, bodies, analysis, gap, p)
        prev = last.get(block.panel)
        spoke = prev[1] if prev is not None else None
        if prev is None and previous_cluster is not None:
            # the exchange goes on from the previous panel: the one who spoke last is found
            # here through the identity cluster, and the other one answers
            was = [c for c in cands if c.cluster == previous_cluster]
            spoke = was[0].id if len(was) == 1 else None
        link = _choose(block, cands, prev, spoke, gap, p)
        links.append(link)
        last[block.panel] = (block, link.character)
        previous_cluster = cluster_of.get(link.character) if link.character else None
    return tuple(links)


def _candidates(
    block: Balloon, bodies: Sequence[Character], analysis: PageAnalysis, gap: float, p: SpeakerParams
) -> list[Character]:
    if block.panel is not None:
        tail = block.tail
        if tail is not None and tail.confidence >= p.min_tail_confidence:
            tip = _pushed_tip(tail, p.tail_push * max(gap / p.touch_gap, 1.0))
            own = analysis.panel(block.panel)
            if own is not None and not own.bbox.contains_point(tip):
                there = next((q for q in analysis.panels if q.bbox.contains_point(tip)), None)
                # the tail crosses the gutter: its speaker may stand in that panel; the
                # figures of both panels compete on the tail's cost
                crossed = [c for c in bodies if there is not None and c.panel == there.id]
                return [c for c in bodies if c.panel == block.panel] + crossed
        return [c for c in bodies if c.panel == block.panel]
    # a block outside every panel: characters it overlaps or that lie just below it
    return [c for c in bodies if c.bbox.intersection(_grown(block.bbox, 0.5)) > 0]


def _choose(
    block: Balloon,
    cands: Sequence[Character],
    prev: tuple[Balloon, str | None] | None,
    spoke: str | None,
    gap: float,
    p: SpeakerParams,
) -> SpeakerLink:
    """``prev``: the panel's previous speech balloon and its speaker; ``spoke``: who of
    ``cands`` spoke last in this exchange (None when unknown)."""
    if not cands:
        return SpeakerLink(block.id, None, 0.5, SpeakerReason.NONE, STAGE)
    tail = block.tail
    if tail is not None and tail.confidence >= p.min_tail_confidence:
        tip = _pushed_tip(tail, p.tail_push * max(gap / p.touch_gap, 1.0))
        best, margin = _by_tail(tip, tail.direction_deg, cands, p, p.ray_reach * gap / p.touch_gap)
        conf = 0.5 + 0.45 * tail.confidence * margin
        return SpeakerLink(block.id, best.id, round(min(0.95, conf), 3), SpeakerReason.TAIL, STAGE)
    if prev is not None and prev[1] is not None and hangs_under(prev[0].bbox, block.bbox, gap):
        return SpeakerLink(block.id, prev[1], 0.6, SpeakerReason.CONTINUATION, STAGE)
    anchor = Point(block.bbox.center.x, block.bbox.y1)
    ranked = sorted(cands, key=lambda c: _below_distance(anchor, c.bbox))
    margin = _margin(anchor, ranked) if len(ranked) > 1 else 1.0
    if len(cands) == 2 and margin < p.clear_margin and spoke in [c.id for c in cands]:
        other = next(c for c in cands if c.id != spoke)
        return SpeakerLink(block.id, other.id, 0.55, SpeakerReason.ALTERNATION, STAGE)
    conf = 0.6 if len(cands) == 1 else 0.35 + 0.25 * margin
    return SpeakerLink(block.id, ranked[0].id, round(conf, 3), SpeakerReason.PROXIMITY, STAGE)


def _pushed_tip(tail: Tail, push: float) -> Point:
    """The tail's tip followed ``push`` pixels further along its direction."""
    rad = math.radians(tail.direction_deg)
    return Point(tail.tip.x + push * math.cos(rad), tail.tip.y + push * math.sin(rad))


def _by_tail(
    tip: Point, direction_deg: float, cands: Sequence[Character], p: SpeakerParams, reach: float
) -> tuple[Character, float]:
    """The character the tail points at, and a margin in [0, 1] over the runner-up."""
    rad = math.radians(direction_deg)
    dx, dy = math.cos(rad), math.sin(rad)
    steps = 32
    ray = [
        (reach * k / steps, Point(tip.x + reach * k / steps * dx, tip.y + reach * k / steps * dy))
        for k in range(steps + 1)
    ]

    def cost(c: Character) -> float:
        box = c.bbox
        diag = math.hypot(box.width, box.height) or 1.0
        # aim at the upper part of the figure, where the head is
        target = Point(box.center.x, box.y0 + 0.25 * box.height)
        vx, vy = target.x - tip.x, target.y - tip.y
        norm = math.hypot(vx, vy) or 1.0
        cos = (vx * dx + vy * dy) / norm
        follow = min(_distance(pt, box) + p.ray_travel * t for t, pt in ray)
        return follow / diag + p.direction_weight * (1 - cos) / 2

    costs = {c.id: cost(c) for c in cands}
    ranked = sorted(cands, key=lambda c: costs[c.id])
    if len(ranked) == 1:
        return ranked[0], 1.0
    c0, c1 = costs[ranked[0].id], costs[ranked[1].id]
    return ranked[0], min(1.0, (c1 - c0) / max(c1, 1e-6) * 2)


def _distance(pt: Point, box: BBox) -> float:
    dx = max(box.x0 - pt.x, 0.0, pt.x - box.x1)
    dy = max(box.y0 - pt.y, 0.0, pt.y - box.y1)
    return math.hypot(dx, dy)


def _below_distance(pt: Point, box: BBox) -> float:
    """Distance that counts sideways more than downwards: speakers stand under their words."""
    dx = max(box.x0 - pt.x, 0.0, pt.x - box.x1)
    dy = max(box.y0 - pt.y, 0.0, pt.y - box.y1)
    return math.hypot(dx, 0.35 * dy)


def _margin(anchor: Point, ranked: Sequence[Character]) -> float:
    d0, d1 = _below_distance(anchor, ranked[0].bbox), _below_distance(anchor, ranked[1].bbox)
    return min(1.0, (d1 - d0) / max(d1, 1.0))


def _grown(box: BBox, share: float, pixels: float = 0.0) -> BBox:
    gx, gy = share * box.width + pixels, share * box.height + pixels
    return BBox(box.x0 - gx, box.y0 - gy, box.x1 + gx, box.y1 + gy)
