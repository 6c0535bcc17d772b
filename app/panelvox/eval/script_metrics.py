"""Golden-script metrics: what a listener hears, scored against a hand-made script. Pure.

A golden script (``cib/script/<page>.json``) lists every line a perfect reading says, in
reading order, with its kind and speaker. The prediction is what Panelvox says for a page:
one :class:`HeardBlock` per text block, in its reading order. The definitions come from the
issue, so that anyone re-implementing them gets the same numbers:

Finding lines
    Texts are compared NFKC-normalised and upper-cased, every run of characters that are not letters or
    digits (of any script) made one space, trimmed. A GT line is *found* when 1–3 consecutive blocks,
    joined by a space, reach Levenshtein similarity ≥ 0.8 with it (rapidfuzz ``normalized_similarity``),
    or when one block more than 3 characters longer contains it with ``partial_ratio`` ≥ 0.8. The
    highest score wins; ties go to the earliest, then the shortest window. Several lines may match one
    block. A line's *position* is the index of its window's first block. Rates: found, found in reading
    order (longest strictly increasing chain of positions in GT order), read exactly (winning score
    1.0), kind right (kind group of the line against that of its first block), junk (blocks matching no
    line: ``partial_ratio`` of the shorter against the longer text < 0.8 for every line).

Speakers (GT speech and thought lines that are found)
    *Attribution*: lines with a sure, non-null speaker. Predicted speaker ids are matched
    one-to-one to GT speakers by the Hungarian algorithm, maximising agreeing lines; an id
    that carries a name may only match a GT speaker that shares a name word with it (see
    :func:`name_words`). *Turns*: consecutive pairs of those lines; right when "same speaker
    as before" agrees. *Named precision*: of lines said with a name (guesses included), the
    share whose name fits the GT speaker; also split into sure names and guesses. *Named
    recall*: of lines whose GT speaker is in the cast, the share said with a fitting name.
    A constant baseline (one speaker for the whole page, no names) is scored by the same code.

Interpretations the issue leaves open, fixed here: blocks and lines with no letter or digit
("?", "!") are left out of every count (normalised they are empty, so nothing can match
them; the cib scripts' 744 lines are 733 scored lines); windows run over the remaining
blocks; the stop list applies to every side of the name rule (so the alias "the kid" does not
match the name "The Sergeant" through "the"); a predicted id's name is its most common name
on the page, the one heard first on a tie.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from itertools import pairwise

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

from panelvox.eval.dialogue_metrics import longest_non_decreasing
from panelvox.eval.ground_truth import GoldenScript, LineKind, ScriptLine
from panelvox.eval.story_metrics import LabelledLine, line_label, story_metrics

FUZZY = 0.8
MAX_WINDOW = 3
#: a single block must be longer than the line by more than this to count as "containing" it
PARTIAL_MARGIN = 3
MIN_NAME_LETTERS = 3
#: words of a description or name that say nothing about who speaks ("the man in the blue
#: shirt" is named by "blue" and "shirt", not "the" or "man"); exactly the issue's list
STOP_WORDS = frozenset({"the", "a", "an", "his", "her", "their", "its", "one", "man", "woman", "other"})
UNNAMED_PREFIX = "unnamed:"
#: a balloon with tails to two characters names both: "Jasper and Wilbur"
JOIN = " and "
#: the constant baseline's one speaker id
BASELINE_SPEAKER = "baseline"


DIALOGUE_KINDS = frozenset({LineKind.SPEECH, LineKind.THOUGHT})
HEARD_KINDS = frozenset({"speech", "thought", "caption", "sfx", "other"})

# Kind groups: Panelvox has no "title" or "sign" block kind, so a title is right when read as
# a caption and a sign when read as "other".
_GT_GROUP: Mapping[str, str] = {
    "speech": "dialogue",
    "thought": "dialogue",
    "caption": "narration",
    "title": "narration",
    "sfx": "sound",
    "sign": "sign",
}
_HEARD_GROUP: Mapping[str, str] = {
    "speech": "dialogue",
    "thought": "dialogue",
    "caption": "narration",
    "sfx": "sound",
    "other": "sign",
}

_NOT_LETTER_OR_DIGIT = re.compile(r"[\W_]+")
_LETTERS = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class HeardBlock:
    """What the listener hears for one predicted block."""

    id: str
    text: str
    #: "speech", "thought", "caption", "sfx" or "other"
    kind: str
    #: the page JSON's speaker id ("c3"); None when the block has no speaker
    speaker: str | None = None
    #: the proper name said for the speaker; None for "character 2", "someone" or nothing
    name: str | None = None
    #: the name is said as a guess ("Probably Kala")
    guess: bool = False
    #: the words are said with the uncertainty cue; how sure their recognition is
    unsure: bool = False
    confidence: float = 1.0
    #: the speaker's person of the book (the page JSON's ``person``); None when not known
    person: str | None = None
    #: the panel the block is read in (the page JSON's ``panel``); None outside every panel
    panel: str | None = None
    #: "Order unclear." is said before this block (the first heard of a panel in doubt)
    order_cued: bool = False

    def __post_init__(self) -> None:
        if self.kind not in HEARD_KINDS:
            raise ValueError(f"unknown block kind {self.kind!r}")


@dataclass(frozen=True, slots=True)
class SpeakerCounts:
    """Raw counts of the speaker metrics of one page (or a sum of pages)."""

    attribution_right: int = 0
    attribution_total: int = 0
    turns_right: int = 0
    turns_total: int = 0
    names_said: int = 0
    names_right: int = 0
    sure_names_said: int = 0
    sure_names_right: int = 0
    guesses_said: int = 0
    guesses_right: int = 0
    recall_right: int = 0
    recall_total: int = 0

    def __add__(self, other: SpeakerCounts) -> SpeakerCounts:
        return SpeakerCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def attribution(self) -> float:
        return _ratio(self.attribution_right, self.attribution_total)

    @property
    def turns(self) -> float:
        return _ratio(self.turns_right, self.turns_total)

    @property
    def named_precision(self) -> float:
        return _ratio(self.names_right, self.names_said)

    @property
    def sure_name_precision(self) -> float:
        return _ratio(self.sure_names_right, self.sure_names_said)

    @property
    def guess_precision(self) -> float:
        return _ratio(self.guesses_right, self.guesses_said)

    @property
    def named_recall(self) -> float:
        return _ratio(self.recall_right, self.recall_total)


@dataclass(frozen=True, slots=True)
class ScriptPageScore:
    """Raw counts of one page; every rate of the dataset is a ratio of sums of these."""

    page_id: str
    #: GT lines with a letter or digit
    lines: int
    found: int
    in_order: int
    exact: int
    #: over found lines
    kind_right: int
    #: predicted blocks with a letter or digit
    blocks: int
    junk: int
    speakers: SpeakerCounts
    baseline: SpeakerCounts
    #: per scored GT line: index of its first matched block in the heard sequence, or None
    positions: tuple[int | None, ...] = ()
    #: (GT speaker, story label) of each found dialogue line with a sure speaker, for the
    #: story metrics (:mod:`panelvox.eval.story_metrics`)
    dialogue: tuple[LabelledLine, ...] = ()

    @property
    def found_rate(self) -> float:
        return _ratio(self.found, self.lines)

    @property
    def in_order_rate(self) -> float:
        return _ratio(self.in_order, self.lines)

    @property
    def exact_rate(self) -> float:
        return _ratio(self.exact, self.lines)

    @property
    def kind_right_rate(self) -> float:
        return _ratio(self.kind_right, self.found)

    @property
    def junk_rate(self) -> float:
        return _ratio(self.junk, self.blocks)


@dataclass(frozen=True, slots=True)
class _Match:
    first_block: int
    score: float


def _ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


# ---------------------------------------------------------------- text


def normalize_text(text: str) -> str:
    """NFKC, upper case; each run of characters that are not letters or digits becomes a space."""
    return _NOT_LETTER_OR_DIGIT.sub(" ", unicodedata.normalize("NFKC", text).upper()).strip()


def _best_match(line: str, blocks: Sequence[tuple[int, str]]) -> _Match | None:
    """The winning window for one normalised line over the non-empty normalised blocks."""
    best: tuple[float, int, int] | None = None  # (-score, first block, window length)
    for k, (first, block) in enumerate(blocks):
        for size in range(1, MAX_WINDOW + 1):
            if k + size > len(blocks):
                break
            joined = " ".join(b for _i, b in blocks[k : k + size])
            score = Levenshtein.normalized_similarity(line, joined)
            if score >= FUZZY and (best is None or (-score, first, size) < best):
                best = (-score, first, size)
        if len(block) > len(line) + PARTIAL_MARGIN:
            score = fuzz.partial_ratio(line, block) / 100
            if score >= FUZZY and (best is None or (-score, first, 1) < best):
                best = (-score, first, 1)
    return None if best is None else _Match(first_block=best[1], score=-best[0])


def _is_junk(block: str, lines: Iterable[str]) -> bool:
    for line in lines:
        shorter, longer = sorted((block, line), key=len)
        if fuzz.partial_ratio(shorter, longer) / 100 >= FUZZY:
            return False
    return True


# ---------------------------------------------------------------- names


def name_words(text: str) -> frozenset[str]:
    """The words of a name or description that can identify a speaker.

    Case-folded runs of letters of at least 3 letters, less :data:`STOP_WORDS`.
    """
    return frozenset(
        w for w in _LETTERS.findall(text.casefold()) if len(w) >= MIN_NAME_LETTERS and w not in STOP_WORDS
    )


def speaker_words(script: GoldenScript, speaker: str) -> frozenset[str]:
    """Name words of a GT speaker: a cast member's name and aliases, an unnamed speaker's
    description, or the union over the parts of a join."""
    if speaker.startswith(UNNAMED_PREFIX):
        return name_words(speaker[len(UNNAMED_PREFIX) :])
    parts = (speaker,) if speaker in script.cast else tuple(p.strip() for p in speaker.split(JOIN))
    words: set[str] = set()
    for part in parts:
        words |= name_words(part)
        for alias in script.cast.get(part, ()):
            words |= name_words(alias)
    return frozenset(words)


def name_fits(script: GoldenScript, name: str, speaker: str | None) -> bool:
    """Whether a said name fits a GT speaker (a shared name word); a null speaker never fits."""
    return speaker is not None and bool(name_words(name) & speaker_words(script, speaker))


# ---------------------------------------------------------------- speakers


def names_by_id(heard: Sequence[HeardBlock]) -> dict[str, str]:
    """Each predicted speaker id's most common name on the page (the first heard on a tie)."""
    counts: dict[str, Counter[str]] = {}
    for b in heard:
        if b.speaker is not None and b.name is not None:
            counts.setdefault(b.speaker, Counter())[b.name] += 1
    return {sid: c.most_common(1)[0][0] for sid, c in counts.items()}


def speaker_mapping(
    script: GoldenScript, pairs: Sequence[tuple[str, str | None]], names: Mapping[str, str]
) -> dict[str, str]:
    """Predicted id -> GT speaker under the one-to-one mapping that agrees on most lines."""
    pred_ids = list(dict.fromkeys(p for _g, p in pairs if p is not None))
    gt_ids = list(dict.fromkeys(g for g, _p in pairs))
    if not pred_ids:
        return {}
    agree = np.zeros((len(pred_ids), len(gt_ids)), dtype=np.int64)
    row, col = {p: i for i, p in enumerate(pred_ids)}, {g: j for j, g in enumerate(gt_ids)}
    for g, p in pairs:
        if p is not None:
            agree[row[p], col[g]] += 1
    # A forbidden pair weighs 0: the maximum over all pairings then equals the maximum over
    # allowed ones once zero-weight pairs are dropped.
    for p, i in row.items():
        if p in names:
            for g, j in col.items():
                if not name_fits(script, names[p], g):
                    agree[i, j] = 0
    rows, cols = linear_sum_assignment(agree, maximize=True)
    return {pred_ids[i]: gt_ids[j] for i, j in zip(rows, cols, strict=True) if agree[i, j] > 0}


def _attribution_right(
    script: GoldenScript, pairs: Sequence[tuple[str, str | None]], names: Mapping[str, str]
) -> int:
    """Lines whose predicted id maps to their GT speaker under the best one-to-one mapping."""
    mapping = speaker_mapping(script, pairs, names)
    return sum(p is not None and mapping.get(p) == g for g, p in pairs)


def _speaker_counts(
    script: GoldenScript, found: Sequence[tuple[ScriptLine, int]], heard: Sequence[HeardBlock]
) -> SpeakerCounts:
    """Speaker metrics of the found dialogue lines (GT order, with their first block)."""
    names = names_by_id(heard)
    pairs = [
        (line.speaker, heard[i].speaker)
        for line, i in found
        if line.speaker_sure and line.speaker is not None
    ]
    turns_right = sum((g1 == g0) == (p1 is not None and p1 == p0) for (g0, p0), (g1, p1) in pairwise(pairs))
    said = right = sure_said = sure_right = guess_said = guess_right = recall_right = recall_total = 0
    for line, i in found:
        block = heard[i]
        fits = block.name is not None and name_fits(script, block.name, line.speaker)
        if block.name is not None:
            said += 1
            right += fits
            if block.guess:
                guess_said += 1
                guess_right += fits
            else:
                sure_said += 1
                sure_right += fits
        if line.speaker is not None and not line.speaker.startswith(UNNAMED_PREFIX):
            recall_total += 1
            recall_right += fits
    return SpeakerCounts(
        attribution_right=_attribution_right(script, pairs, names),
        attribution_total=len(pairs),
        turns_right=turns_right,
        turns_total=max(0, len(pairs) - 1),
        names_said=said,
        names_right=right,
        sure_names_said=sure_said,
        sure_names_right=sure_right,
        guesses_said=guess_said,
        guesses_right=guess_right,
        recall_right=recall_right,
        recall_total=recall_total,
    )


# ---------------------------------------------------------------- scoring


def score_script_page(script: GoldenScript, heard: Sequence[HeardBlock]) -> ScriptPageScore:
    """Score what is heard for one page (blocks in predicted reading order) against its script."""
    lines = [(line, normalize_text(line.text)) for line in script.lines]
    lines = [(line, t) for line, t in lines if t]
    blocks = [(i, t) for i, t in ((i, normalize_text(b.text)) for i, b in enumerate(heard)) if t]
    matches = [_best_match(t, blocks) for _line, t in lines]
    found = [(line, m) for (line, _t), m in zip(lines, matches, strict=True) if m is not None]
    kind_right = sum(_GT_GROUP[line.kind] == _HEARD_GROUP[heard[m.first_block].kind] for line, m in found)
    dialogue = [(line, m.first_block) for line, m in found if line.kind in DIALOGUE_KINDS]
    baseline = [replace(b, speaker=BASELINE_SPEAKER, name=None, guess=False) for b in heard]
    return ScriptPageScore(
        page_id=script.page,
        lines=len(lines),
        found=len(found),
        in_order=longest_non_decreasing([m.first_block for _line, m in found], strict=True),
        exact=sum(m.score == 1.0 for _line, m in found),
        kind_right=kind_right,
        blocks=len(blocks),
        junk=sum(_is_junk(b, [t for _line, t in lines]) for _i, b in blocks),
        speakers=_speaker_counts(script, dialogue, heard),
        baseline=_speaker_counts(script, dialogue, baseline),
        positions=tuple(None if m is None else m.first_block for m in matches),
        dialogue=tuple(
            (line.speaker, story_label(script.page, heard[i]))
            for line, i in dialogue
            if line.speaker_sure and line.speaker is not None
        ),
    )


def story_label(page_id: str, block: HeardBlock) -> str | None:
    """A line's label across its story (:func:`panelvox.eval.story_metrics.line_label`)."""
    return line_label(page_id, block.person, block.name, block.speaker)


_PAGE_COUNTS = ("lines", "found", "in_order", "exact", "kind_right", "blocks", "junk")


def _speaker_metrics(prefix: str, c: SpeakerCounts) -> dict[str, float | int]:
    out: dict[str, float | int] = {f"{prefix}{f.name}": getattr(c, f.name) for f in fields(c)}
    out |= {
        f"{prefix}attribution": c.attribution,
        f"{prefix}turns": c.turns,
        f"{prefix}named_precision": c.named_precision,
        f"{prefix}sure_name_precision": c.sure_name_precision,
        f"{prefix}guess_precision": c.guess_precision,
        f"{prefix}named_recall": c.named_recall,
    }
    return out


def total_score(scores: Iterable[ScriptPageScore]) -> ScriptPageScore:
    """The sum of page scores as one score (page_id ``"total"``, no positions)."""
    scores = list(scores)
    return ScriptPageScore(
        page_id="total",
        lines=sum(s.lines for s in scores),
        found=sum(s.found for s in scores),
        in_order=sum(s.in_order for s in scores),
        exact=sum(s.exact for s in scores),
        kind_right=sum(s.kind_right for s in scores),
        blocks=sum(s.blocks for s in scores),
        junk=sum(s.junk for s in scores),
        speakers=sum((s.speakers for s in scores), SpeakerCounts()),
        baseline=sum((s.baseline for s in scores), SpeakerCounts()),
    )


def aggregate_scores(scores: Iterable[ScriptPageScore]) -> dict[str, float | int]:
    """Dataset metrics: summed raw counts and ratios of sums (NaN where nothing was counted)."""
    scores = list(scores)
    t = total_score(scores)
    out: dict[str, float | int] = {"pages": len(scores)}
    out |= {k: getattr(t, k) for k in _PAGE_COUNTS}
    out |= {
        "found_rate": t.found_rate,
        "in_order_rate": t.in_order_rate,
        "exact_rate": t.exact_rate,
        "kind_right_rate": t.kind_right_rate,
        "junk_rate": t.junk_rate,
    }
    out |= _speaker_metrics("", t.speakers)
    out |= _speaker_metrics("baseline.", t.baseline)
    return out | story_metrics([(s.page_id, s.dialogue) for s in scores])
