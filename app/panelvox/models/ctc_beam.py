"""Decoding a CTC recogniser's per-step probabilities into text, with a word list.

The recognition model gives, for each step along a text line, a probability for every class
of its character list (class 0 is the CTC blank). The greedy reading takes the likeliest
class at each step; where it gives a token that is no word ("COING", "WACATION") the
recogniser often holds the right letter as the runner-up at that step. :class:`CtcDecoder`
then runs a prefix beam search (Graves' CTC prefix search over the few likeliest classes of
each step) whose score is the prefix's log probability plus a fixed penalty for each token
that is not a word. A token the model is sure of stays as read even when it is no word
("ZUN VALLEY", "VE VILL"): another reading wins only when it is at most about
``exp(penalty)`` times less likely than the read one, and when it has fewer non-words.

A token is a run of letters, digits and apostrophes. Tokens of digits only, single letters
and tokens in a script other than Latin are never penalised; a token mixing letters and
digits ("G0OD") always is. The word test itself (a callable) comes from the caller, so
this module knows no language.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

#: True when a token (letters and apostrophes, any case) is a word.
Lexicon = Callable[[str], bool]
Probs = npt.NDArray[np.float32]

_APOSTROPHES = frozenset("'’")


@dataclass(frozen=True, slots=True)
class BeamParams:
    """Parameters of the search (see docs/benchmarks.md, "Reading the lettering right")."""

    beam: int = 8
    #: classes considered per step: the likeliest few, each at least this likely
    per_step: int = 4
    min_prob: float = 0.02
    #: a step whose blank is this likely is treated as a pure blank (fast path)
    blank_skip: float = 0.995
    #: log-probability penalty of each token that is no word
    penalty: float = 2.5


def _is_token_char(ch: str) -> bool:
    return ch.isalnum() or ch in _APOSTROPHES


@dataclass(slots=True)
class _Beam:
    p_b: float = 0.0  # probability of the prefix ending in a blank (scaled per step)
    p_nb: float = 0.0  # ... ending in its last character
    bonus: float = 0.0  # the penalties of the tokens completed so far
    weight: float = 1.0  # exp(bonus): the beams are ranked by probability times weight
    confs: list[float] = field(default_factory=list)  # best step probability of each character


def _entry(
    beams: dict[tuple[int, ...], _Beam],
    prefix: tuple[int, ...],
    parent: _Beam,
    extra: float,
    conf: float | None,
) -> _Beam:
    """The beam of ``prefix`` in ``beams``, made from ``parent`` when new (``conf``: the
    step probability of the character it adds, None when it adds none)."""
    b = beams.get(prefix)
    if b is None:
        confs = parent.confs if conf is None else [*parent.confs, conf]
        bonus = parent.bonus + extra
        weight = parent.weight if not extra else math.exp(bonus)
        b = beams[prefix] = _Beam(bonus=bonus, weight=weight, confs=list(confs))
    return b


class CtcDecoder:
    """Greedy and word-aware beam decoding for one model's character list.

    ``charset`` is the model's classes in output order, the CTC blank first (its string
    is ignored); a model with a sliced output layer passes its shorter list.
    """

    def __init__(self, charset: Sequence[str], params: BeamParams | None = None) -> None:
        self.charset = list(charset)
        self.params = params or BeamParams()

    # -- greedy --------------------------------------------------------------------------
    def greedy(self, probs: Probs) -> tuple[str, float]:
        """The best-path reading and its confidence (mean probability of its characters)."""
        idx = probs.argmax(axis=1)
        keep = np.ones(len(idx), dtype=bool)
        keep[1:] = idx[1:] != idx[:-1]
        keep &= idx != 0
        text = "".join(self.charset[i] for i in idx[keep])
        conf = float(probs[keep, idx[keep]].mean()) if keep.any() else 0.0
        return text, conf

    # -- tokens ---------------------------------------------------------------------------
    @staticmethod
    def token_penalised(token: str, lexicon: Lexicon) -> bool:
        """True when ``token`` (a run of letters, digits, apostrophes) is no word."""
        core = token.strip("'’")
        letters = [c for c in core if c.isalpha()]
        if not letters:
            return False  # digits only
        if any(not c.isascii() for c in letters):
            return False  # another script: the word list says nothing about it
        if any(c.isdigit() for c in core):
            return True  # letters and digits mixed: a misread
        if len(core) == 1:
            return False
        return not lexicon(core)

    def _non_words(self, text: str, lexicon: Lexicon) -> int:
        count = 0
        token = ""
        for ch in (*text, " "):
            if _is_token_char(ch):
                token += ch
            elif token:
                count += self.token_penalised(token, lexicon)
                token = ""
        return count

    # -- beam search ----------------------------------------------------------------------
    def decode(self, probs: Probs, lexicon: Lexicon | None) -> tuple[str, float]:
        """The reading of one line: greedy where every token is a word, else the beam's."""
        text, conf = self.greedy(probs)
        if lexicon is None or not text:
            return text, conf
        misses = self._non_words(text, lexicon)
        if misses == 0:
            return text, conf
        best, best_conf = self._search(probs, lexicon)
        if best != text and self._non_words(best, lexicon) < misses:
            return best, best_conf
        return text, conf

    def _last_token(self, prefix: tuple[int, ...]) -> str:
        out: list[str] = []
        for i in reversed(prefix):
            ch = self.charset[i]
            if not _is_token_char(ch):
                break
            out.append(ch)
        return "".join(reversed(out))

    def _search(self, probs: Probs, lexicon: Lexicon) -> tuple[str, float]:
        p = self.params
        # the candidate classes of each step: the few likeliest of those at least min_prob
        # likely (a boolean mask over the whole matrix is far cheaper than a partition)
        steps, classes = np.nonzero(probs[:, 1:] >= p.min_prob)
        top: list[list[int]] = [[] for _ in range(probs.shape[0])]
        for t, c in zip(steps.tolist(), (classes + 1).tolist(), strict=True):
            top[t].append(c)
        beams: dict[tuple[int, ...], _Beam] = {(): _Beam(p_b=1.0)}
        penalties: dict[str, float] = {}

        def penalty_of(token: str) -> float:
            if token not in penalties:
                penalties[token] = p.penalty if token and self.token_penalised(token, lexicon) else 0.0
            return penalties[token]

        for t in range(probs.shape[0]):
            row = probs[t]
            blank = float(row[0])
            if blank >= p.blank_skip:
                for b in beams.values():
                    b.p_b, b.p_nb = (b.p_b + b.p_nb) * blank, 0.0
                continue
            cands = sorted(top[t], key=lambda c: -row[c])[: p.per_step]
            nxt: dict[tuple[int, ...], _Beam] = {}

            for prefix, b in beams.items():
                total = b.p_b + b.p_nb
                same = _entry(nxt, prefix, b, 0.0, None)
                same.p_b += total * blank
                last = prefix[-1] if prefix else -1
                for c in cands:
                    pc = float(row[c])
                    if c == last:
                        same.p_nb += b.p_nb * pc  # the same character held over steps
                        if same.confs:
                            same.confs[-1] = max(same.confs[-1], pc)
                        ext = _entry(nxt, (*prefix, c), b, 0.0, pc)
                        ext.p_nb += b.p_b * pc  # the character again, after a blank
                        continue
                    extra = 0.0
                    if not _is_token_char(self.charset[c]):
                        extra = -penalty_of(self._last_token(prefix))
                    ext = _entry(nxt, (*prefix, c), b, extra, pc)
                    ext.p_nb += total * pc
            ranked = heapq.nlargest(
                p.beam, nxt.items(), key=lambda kv: (kv[1].p_b + kv[1].p_nb) * kv[1].weight
            )
            scale = max(b.p_b + b.p_nb for _, b in ranked) or 1.0
            beams = {}
            for prefix, b in ranked:
                b.p_b /= scale
                b.p_nb /= scale
                beams[prefix] = b

        def final(item: tuple[tuple[int, ...], _Beam]) -> float:
            prefix, b = item
            return math.log(b.p_b + b.p_nb + 1e-300) + b.bonus - penalty_of(self._last_token(prefix))

        prefix, b = max(beams.items(), key=final)
        text = "".join(self.charset[i] for i in prefix)
        return text, float(np.mean(b.confs)) if b.confs else 0.0
