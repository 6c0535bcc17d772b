"""Text normalisation, edit distances and fuzzy "does this quote occur there" matching.

One implementation for every part of Panelvox that compares texts: the eval's text and
dialogue metrics (:mod:`panelvox.eval.text_norm` re-exports this module) and the
verifier's quote checks (:mod:`panelvox.narration.verify`). It sits below every area: it
imports nothing from Panelvox and no Qt.

Normalisation for matching (:func:`normalize`): Unicode NFKC (full-width Japanese forms
become ordinary ones), casefold, typographic quotes and dashes unified, whitespace
collapsed, punctuation stripped at both ends. Comic lettering is all capitals and full of
curly quotes and ellipses; none of that should count as an OCR error. :func:`word_form`
goes further for "is this quoted dialogue on the page": it keeps only words (apostrophes
inside words stay), so "I... DON'T KNOW!" and "i don't know" are the same text.

Edit distances are Levenshtein distances over Unicode code points, computed one DP row at a
time with numpy (the in-row insertion step is a running minimum), so a 300 × 3000
comparison stays in milliseconds. :func:`partial_similarity` is 1 − (fewest edits turning
the query into some substring of the text) / (query length): a semi-global alignment, so a
quote may sit anywhere inside a balloon, and OCR noise costs what it changes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

_QUOTES = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "「": '"',
        "」": '"',
        "『": '"',
        "』": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "`": "'",
        "´": "'",
        "‐": "-",
        "‑": "-",
        "‒": "-",
        "–": "-",
        "—": "-",
        "―": "-",
        "−": "-",
        "…": "...",
        "･": "・",
    }
)
_SPACE = re.compile(r"\s+")
_DOTS = re.compile(r"\.{2,}")
_BROKEN_WORD = re.compile(r"(\w)-\s+(\w)")


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS" or ch.isspace()


def normalize(text: str) -> str:
    """The form two texts are compared in (see the module docstring)."""
    t = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    # runs of dots are lettering; a word hyphenated at a line end ("FOR- TIFIED") is one word
    t = _DOTS.sub("...", t)
    t = _BROKEN_WORD.sub(r"\1-\2", t)
    t = _SPACE.sub(" ", t).strip()
    start, end = 0, len(t)
    while start < end and _is_punct(t[start]):
        start += 1
    while end > start and _is_punct(t[end - 1]):
        end -= 1
    return t[start:end]


_JOIN_BROKEN = re.compile(r"(\w)-\s+(\w)")
_NOT_WORD = re.compile(r"[^\w']+")
_LOOSE_APOSTROPHE = re.compile(r"(?<!\w)'|'(?!\w)")


def word_form(text: str) -> str:
    """The words of ``text`` only: like :func:`normalize`, with every punctuation mark a space.

    An apostrophe inside a word stays ("don't"); one at a word's edge goes (quoted 'SEA
    HAWK'); a word hyphenated at a line end ("FOR- TIFIED") is joined ("fortified").
    """
    t = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    t = _JOIN_BROKEN.sub(r"\1\2", t)
    t = _NOT_WORD.sub(" ", t)
    t = _LOOSE_APOSTROPHE.sub(" ", t)
    return " ".join(t.split())


def _codes(seq: str | Sequence[object]) -> np.ndarray:
    if isinstance(seq, str):
        return np.fromiter((ord(c) for c in seq), dtype=np.int64, count=len(seq))
    # sequences of hashable items (reading orders): map to small ints
    index: dict[object, int] = {}
    return np.fromiter((index.setdefault(x, len(index)) for x in seq), dtype=np.int64, count=len(seq))


def _codes_pair(a: str | Sequence[object], b: str | Sequence[object]) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(a, str) and isinstance(b, str):
        return _codes(a), _codes(b)
    index: dict[object, int] = {}
    ca = np.fromiter((index.setdefault(x, len(index)) for x in a), dtype=np.int64, count=len(a))
    cb = np.fromiter((index.setdefault(x, len(index)) for x in b), dtype=np.int64, count=len(b))
    return ca, cb


def edit_distance(a: str | Sequence[object], b: str | Sequence[object]) -> int:
    """Levenshtein distance (insert, delete, substitute all cost 1) of strings or sequences."""
    if len(a) < len(b):
        a, b = b, a
    if len(b) == 0:
        return len(a)
    ca, cb = _codes_pair(a, b)
    cols = np.arange(len(cb) + 1, dtype=np.int64)
    prev = cols.copy()
    for i in range(1, len(ca) + 1):
        sub = prev[:-1] + (cb != ca[i - 1])
        temp = np.empty_like(prev)
        temp[0] = i
        temp[1:] = np.minimum(sub, prev[1:] + 1)
        # insertion within the row: D[j] = min_k<=j temp[k] + (j - k)
        prev = np.minimum.accumulate(temp - cols) + cols
    return int(prev[-1])


def ned(a: str | Sequence[object], b: str | Sequence[object]) -> float:
    """Normalised edit distance in [0, 1]: distance / length of the longer; 0 for two empties."""
    longest = max(len(a), len(b))
    return edit_distance(a, b) / longest if longest else 0.0


def similarity(a: str, b: str) -> float:
    """1 − NED of the normalised texts."""
    return 1.0 - ned(normalize(a), normalize(b))


def partial_distance(query: str, text: str) -> int:
    """Fewest edits turning ``query`` into some substring of ``text`` (semi-global alignment)."""
    if not query:
        return 0
    if not text:
        return len(query)
    cq, ct = _codes(query), _codes(text)
    cols = np.arange(len(ct) + 1, dtype=np.int64)
    prev = np.zeros(len(ct) + 1, dtype=np.int64)  # a match may start anywhere in text
    for i in range(1, len(cq) + 1):
        sub = prev[:-1] + (ct != cq[i - 1])
        temp = np.empty_like(prev)
        temp[0] = i
        temp[1:] = np.minimum(sub, prev[1:] + 1)
        prev = np.minimum.accumulate(temp - cols) + cols
    return int(prev.min())


def partial_similarity(query: str, text: str, *, words_only: bool = False) -> float:
    """How well normalised ``query`` occurs somewhere inside normalised ``text``, in [0, 1].

    ``words_only`` compares :func:`word_form` instead of :func:`normalize` (punctuation ignored).
    """
    form = word_form if words_only else normalize
    q, t = form(query), form(text)
    if not q:
        return 1.0
    return max(0.0, 1.0 - partial_distance(q, t) / len(q))


def anls(truth: str, prediction: str, threshold: float = 0.5) -> float:
    """Average Normalised Levenshtein Similarity of one pair: 1 − NED, or 0 when NED ≥ threshold."""
    d = ned(normalize(truth), normalize(prediction))
    return 1.0 - d if d < threshold else 0.0
