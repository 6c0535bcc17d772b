"""What counts as a word of comic lettering, for the OCR decoder's word test.

The shipped English word list (:class:`~panelvox.analysis.lettering.WordList`), the comics
lexicon (``analysis/data/comic_lexicon.txt``: interjections, sounds spelt out, contractions,
dialect as printed) and the word list source's proper names
(:func:`~panelvox.analysis.lettering.lettering_word`). Lettering stretches words ("NOOOO", "AAAGH",
"ZZZZZZ"): a run of three or more of one letter is also tried as one and as two letters.
A run of letters the detector read without its spaces ("WHEREDID") counts as words when
it splits into known words, so the decoder does not "correct" it into something else.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable

from panelvox.analysis.lettering import WordList, lettering_word, segment

_RUN = re.compile(r"(.)\1{2,}")


def contracted(word: str) -> list[str]:
    """Spellings of ``word`` with each run of 3+ letters cut to one and to two letters."""
    runs = list(_RUN.finditer(word))
    if not runs or len(runs) > 3:
        return []
    out = []
    for lengths in itertools.product((1, 2), repeat=len(runs)):
        parts, last = [], 0
        for m, n in zip(runs, lengths, strict=True):
            parts += [word[last : m.start()], m.group(1) * n]
            last = m.end()
        out.append("".join(parts) + word[last:])
    return out


class LetteringLexicon:
    """``lexicon(token)``: True when a token of letters and apostrophes is a word of lettering."""

    def __init__(self, words: WordList, known: Callable[[str, WordList], bool] = lettering_word) -> None:
        self.words = words
        #: the test of one spelling (tests pass the bare word list's)
        self._single_word = known
        self._known = functools.lru_cache(maxsize=65536)(self._compute)

    def __call__(self, token: str) -> bool:
        return self._known(token.lower().replace("’", "'"))

    def _single(self, word: str) -> bool:
        return self._single_word(word, self.words)

    def _compute(self, word: str) -> bool:
        if self._single(word) or any(self._single(w) for w in contracted(word)):
            return True
        letters = word.strip("'")
        return letters.isalpha() and len(letters) >= 5 and segment(letters, self.words) is not None
