"""Dialogue, speaker, identity and narration metrics: pure functions.

Dialogue transcript (:func:`transcript_recall`)
    The true dialogue is an ordered list of quoted strings; the prediction an ordered list
    of text units (blocks in reading order). GT string ``g`` is *recovered* when some window
    of 1–3 consecutive predicted units, joined by spaces, has 1 − NED ≥ 0.8 with ``g``
    (OCR splits balloons), or — for ``g`` of at least 8 normalised characters — when ``g``
    occurs inside one predicted unit with partial similarity ≥ 0.8 (OCR merges balloons).
    Its position is the index of the first unit of its best window. *Recall* is
    #recovered / #GT. *Ordered recall* is the length of the longest non-decreasing
    subsequence of the positions of the recovered strings, taken in true order, over #GT:
    the share of the dialogue a listener hears in the right order.

Speakers (:func:`speaker_recall`)
    CoMix Recall@#text: of the texts with a known speaker, the fraction whose predicted
    speaker is the right character; averaged over pages by the caller.

Hybrid Dialog Score (:func:`hybrid_dialog_score`), our exact formula for CoMix's structure
    Pairs are (speaker name, text), both normalised. The cost of pairing true ``i`` with
    predicted ``j`` is NED(name_i + "\\n" + text_i, name_j + "\\n" + text_j); pairs are
    matched by the Hungarian algorithm and a pair with cost 1 (nothing in common) counts as
    unmatched. With ``M`` the matched pairs, ``U`` the unmatched predictions:

    * text score  S_t = Σ_{(i,j)∈M} |t_i| (1 − NED(t_i, t_j)) / (Σ_i |t_i| + Σ_{j∈U} |t_j|)
      (length-weighted; missed and invented text weigh by their length);
    * name score  S_n = Σ_{(i,j)∈M} ANLS(n_i, n_j) / (#true + #U), ANLS with τ = 0.5;
      a narrator/unknown speaker is the empty name, so "nobody" matches "nobody";
    * HDS = (S_t + S_n) / 2, in [0, 1]; 1 for a perfect transcript with right speakers.

Narration faithfulness (:func:`narration_faithfulness`)
    Quoted strings are pulled from a narration (straight, curly, guillemet and corner
    quotes). A quote is *supported* when its partial similarity to some page text (each
    text and all texts joined) is ≥ 0.8; otherwise it is "text that is not there".
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_mutual_info_score, normalized_mutual_info_score

from panelvox.eval.text_norm import anls, ned, normalize, partial_distance

FUZZY = 0.8
MAX_WINDOW = 3
MIN_PARTIAL_CHARS = 8


@dataclass(frozen=True, slots=True)
class TranscriptScore:
    recovered: int
    in_order: int
    n_true: int
    positions: tuple[int | None, ...]  # per true string: index of the predicted unit, or None

    @property
    def recall(self) -> float:
        return self.recovered / self.n_true if self.n_true else float("nan")

    @property
    def ordered_recall(self) -> float:
        return self.in_order / self.n_true if self.n_true else float("nan")


def _best_position(g: str, units: Sequence[str]) -> int | None:
    best, best_pos = 0.0, None
    for start in range(len(units)):
        for size in range(1, MAX_WINDOW + 1):
            if start + size > len(units):
                break
            window = " ".join(u for u in units[start : start + size] if u)
            score = 1.0 - ned(g, window)
            if score > best:
                best, best_pos = score, start
        if len(g) >= MIN_PARTIAL_CHARS and len(units[start]) >= len(g):
            score = 1.0 - partial_distance(g, units[start]) / len(g)
            if score > best:
                best, best_pos = score, start
    return best_pos if best >= FUZZY else None


def longest_non_decreasing(values: Sequence[int], *, strict: bool = False) -> int:
    """Length of the longest non-decreasing (``strict``: increasing) subsequence (patience
    sorting, O(n log n))."""
    place = bisect.bisect_left if strict else bisect.bisect_right
    tails: list[int] = []
    for v in values:
        k = place(tails, v)
        if k == len(tails):
            tails.append(v)
        else:
            tails[k] = v
    return len(tails)


def transcript_recall(true: Sequence[str], predicted: Sequence[str]) -> TranscriptScore:
    """Recall and ordered recall of a true dialogue list in a predicted one (see module doc)."""
    units = [normalize(p) for p in predicted]
    positions = tuple(_best_position(normalize(g), units) for g in true)
    found = [p for p in positions if p is not None]
    return TranscriptScore(len(found), longest_non_decreasing(found), len(true), positions)


@dataclass(frozen=True, slots=True)
class SpeakerScore:
    correct: int
    n_true: int

    @property
    def recall(self) -> float:
        return self.correct / self.n_true if self.n_true else float("nan")


def speaker_recall(true_speakers: Sequence[str], predicted_speakers: Sequence[str | None]) -> SpeakerScore:
    """Recall@#text of one page.

    ``true_speakers[k]`` is the identity of the speaker of the k-th true text that has one;
    ``predicted_speakers[k]`` the identity the prediction gave it (the true identity of the
    predicted character, None when the text was not found, had no speaker, or the speaker
    box matched no true character).
    """
    if len(true_speakers) != len(predicted_speakers):
        raise ValueError("speaker lists differ in length")
    correct = sum(
        1 for t, p in zip(true_speakers, predicted_speakers, strict=True) if p is not None and p == t
    )
    return SpeakerScore(correct, len(true_speakers))


@dataclass(frozen=True, slots=True)
class ClusterScore:
    ami: float
    nmi: float
    n: int


def identity_clustering(true_ids: Sequence[str], cluster_ids: Sequence[str | None]) -> ClusterScore:
    """AMI and NMI of predicted clusters against true identities (matched characters only).

    A character without a cluster is its own singleton cluster.
    """
    if len(true_ids) != len(cluster_ids):
        raise ValueError("label lists differ in length")
    n = len(true_ids)
    if n < 2:
        return ClusterScore(float("nan"), float("nan"), n)
    pred = [c if c is not None else f"\x00single{k}" for k, c in enumerate(cluster_ids)]
    ami = float(adjusted_mutual_info_score(list(true_ids), pred))
    nmi = float(normalized_mutual_info_score(list(true_ids), pred))
    return ClusterScore(ami, nmi, n)


@dataclass(frozen=True, slots=True)
class DialogScore:
    text: float
    name: float
    n_true: int
    n_pred: int
    n_matched: int

    @property
    def hds(self) -> float:
        return (self.text + self.name) / 2


def hybrid_dialog_score(
    true: Sequence[tuple[str | None, str]], predicted: Sequence[tuple[str | None, str]]
) -> DialogScore:
    """Hybrid Dialog Score of (speaker name, text) pairs; formula in the module docstring."""
    t = [(normalize(n or ""), normalize(x)) for n, x in true]
    p = [(normalize(n or ""), normalize(x)) for n, x in predicted]
    if not t and not p:
        return DialogScore(1.0, 1.0, 0, 0, 0)
    matches: list[tuple[int, int]] = []
    if t and p:
        cost = np.array([[ned(f"{a}\n{b}", f"{c}\n{d}") for c, d in p] for a, b in t])
        rows, cols = linear_sum_assignment(cost)
        matches = [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if cost[r, c] < 1.0]
    matched_pred = {j for _, j in matches}
    unmatched_pred = [j for j in range(len(p)) if j not in matched_pred]
    weight = sum(len(x) for _, x in t) + sum(len(p[j][1]) for j in unmatched_pred)
    text_gain = sum(len(t[i][1]) * (1.0 - ned(t[i][1], p[j][1])) for i, j in matches)
    text_score = text_gain / weight if weight else 1.0
    name_gain = sum(anls(t[i][0], p[j][0]) for i, j in matches)
    denom = len(t) + len(unmatched_pred)
    name_score = name_gain / denom if denom else 1.0
    return DialogScore(text_score, name_score, len(t), len(p), len(matches))


# -- narration faithfulness -------------------------------------------------------------

_QUOTE_PATTERNS = (
    re.compile(r"“([^“”]+)”"),
    re.compile(r'"([^"]+)"'),
    re.compile(r"«([^«»]+)»"),
    re.compile(r"「([^「」]+)」"),
    re.compile(r"『([^『』]+)』"),
)
#: quotes shorter than this (after normalisation) are names or emphasis, not quoted text
MIN_QUOTE_CHARS = 3


def extract_quotes(narration: str) -> list[str]:
    """Quoted strings in a narration, in order of appearance (nested quotes left inside)."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _QUOTE_PATTERNS:
        for m in pattern.finditer(narration):
            span = m.span()
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            if len(normalize(m.group(1))) >= MIN_QUOTE_CHARS:
                taken.append(span)
                found.append((span[0], m.group(1)))
    return [q for _, q in sorted(found)]


@dataclass(frozen=True, slots=True)
class FaithfulnessScore:
    quotes: int
    unsupported: tuple[str, ...]

    @property
    def unsupported_rate(self) -> float:
        """Share of quotes that match no text on the page (NaN when there are none)."""
        return len(self.unsupported) / self.quotes if self.quotes else float("nan")

    @property
    def quotes_text_not_there(self) -> bool:
        """The page-level flag of the hallucination study: at least one invented quote."""
        return bool(self.unsupported)


def quote_supported(quote: str, page_texts: Sequence[str], threshold: float = FUZZY) -> bool:
    """Whether ``quote`` occurs (fuzzily) in one page text or in all of them joined."""
    q = normalize(quote)
    if not q:
        return True
    sources = [normalize(t) for t in page_texts if t]
    sources.append(" ".join(sources))
    return any(1.0 - partial_distance(q, s) / len(q) >= threshold for s in sources if s)


def narration_faithfulness(narration: str, page_texts: Sequence[str]) -> FaithfulnessScore:
    """Which quotes of ``narration`` quote text that is not on the page (``page_texts``)."""
    quotes = extract_quotes(narration)
    unsupported = tuple(q for q in quotes if not quote_supported(q, page_texts))
    return FaithfulnessScore(len(quotes), unsupported)


def mean_of(values: Sequence[float] | Mapping[str, float]) -> float:
    """Mean ignoring NaN; NaN when nothing is left."""
    vals = list(values.values()) if isinstance(values, Mapping) else list(values)
    clean = [v for v in vals if v == v]
    return sum(clean) / len(clean) if clean else float("nan")
