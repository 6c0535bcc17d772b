"""Where a lettered line's words begin and end, chosen by how common the words are.

Hand lettering spaces its letters unevenly: a wide gap inside a word is read as a space
("IMPORT ANT", "EVERY THING") and a narrow one between words is lost ("CANIT", "HERIT'S").
Whether "EVERY THING" is one word or two cannot be told from a word list, since both are
words; it is told by how likely each reading is. Each stretch of letters between
punctuation is cut into words so as to make the line most probable under a unigram model
of English (``data/english_freq.txt``, word frequencies made from the ``wordfreq`` package
by scripts/make_wordfreq.py), where every change to the spaces the recogniser read costs
the odds of a letter gap being misread (:data:`GAP_MISREAD`).

The letterer's text is kept where it is not words: a token as printed is always a reading,
scored by its frequency or, when it is no known word (a name, a sound, dialect: "ZUN",
"AAAGGHHH", "SCHTUFF"), as a rare string of its length; only a known word can be made by
joining or cutting. An apostrophe-less contraction ("IM", "DONT") is left to
:mod:`panelvox.analysis.misreads`, which gives it its apostrophe back where the spelling
without it is no word (a speech engine would say "IM" as "im").
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

#: One- and two-letter words common enough to be made by cutting a run of letters. Other
#: short entries of a word list ("ad", "em", "ta") would let nearly anything be cut.
# fmt: off
SHORT_WORDS = frozenset({
    "a", "i", "am", "an", "as", "at", "be", "by", "do", "go", "he", "hi", "if", "in", "is", "it",
    "me", "my", "no", "of", "oh", "ok", "on", "or", "ox", "so", "to", "up", "us", "we", "ye",
})
# fmt: on

#: -log10 of the odds that one letter gap is read wrong: a gap inside a word read as a
#: space, or the space between two words lost. About one gap in a thousand: a printed
#: space is undone only where the joined word is at least that much likelier than its
#: halves side by side ("EVERY THING"), not where the two words are common together
#: ("GIRL FRIEND"), and a space is put in only where the token as printed is rarer still.
GAP_MISREAD = 3.0
#: -log10 of the odds that a line break without a hyphen falls inside a word: a letterer
#: breaks about one line end in fifty inside a word (47 of 2,491 lines read on the cib
#: pages end with a hyphen) and the recogniser loses about one such hyphen in fifty (one
#: seen: "HER DIS" / "APPEAR"), so about 4e-4. A line break is undone only where the whole
#: word is that much likelier ("DIS"/"APPEAR"), not for two words ("TOOL"/"KIT").
LINE_BREAK = 3.4
#: -log10 probability of the rarest known word (a word list entry ``wordfreq`` has not seen)
RARE = 8.0
#: the cost of a token that is no known word: rarer than any word, more so the longer it is
_PER_LETTER = 1.0
_MAX_WORD = 24
#: a printed token shorter than this is never cut: short unknown tokens are names and
#: exclamations ("AIN", "ZUN"), not words run together
_MIN_CUT = 4
#: the shortest proper name that may be cut out of a run of letters
_MIN_NAME = 4
#: endings of inflected forms, tried on a printed token the frequency list lacks
_ENDINGS = ("s", "es", "ed", "d")
#: what is left of a contraction whose apostrophe was read as a space ("DON T", "I LL"):
#: kept apart, as printed, like a single letter (an initial, a stammer: "D-DON'T")
_TAILS = frozenset({"s", "t", "d", "m", "ll", "ve", "re"})
#: dashes and dots between words: each side is a run of its own
_DASHES = re.compile(r"([-‐‑–—…]+|\.+)")
# a contraction's tail run into the next word ("VE'RECOMING", "YOU'LLSEE"): a tail ends its word
_TAIL_THEN_WORD = re.compile(r"(.*[A-Za-z]{2}['’](?:s|t|d|m|ll|ve|re))([A-Za-z]{2,}\W*)", re.IGNORECASE)
# a token: leading punctuation, letters, then an optional contraction tail and punctuation
_TOKEN = re.compile(r"([^A-Za-z]*)([A-Za-z]+)((?:['’][A-Za-z]{1,2})?[^A-Za-z]*)")


@dataclass(frozen=True, slots=True)
class WordFrequencies:
    """-log10 of each known word's probability in English text (lowercase, letters only):
    ``cost`` for words, ``names`` for proper names; a short name is never cut out of a run
    of letters (it would fit nearly anywhere: "GERTIE" is not "GER TIE")."""

    cost: dict[str, float]
    names: dict[str, float] = dataclasses.field(default_factory=dict)

    @classmethod
    def load(cls) -> WordFrequencies:
        """The frequencies shipped with Panelvox (read once per process: immutable)."""
        return _shipped()

    @classmethod
    def from_lines(cls, lines: list[str]) -> WordFrequencies:
        """Parse ``ZIPF<tab>word word ...`` lines (Zipf: log10 of uses per billion words;
        ``~ZIPF`` for proper names)."""
        cost: dict[str, float] = {}
        names: dict[str, float] = {}
        for line in lines:
            if not line or line.startswith("#"):
                continue
            zipf, _, words = line.partition("\t")
            into = names if zipf.startswith("~") else cost
            c = 9.0 - float(zipf.lstrip("~"))
            for w in words.split():
                into[w] = c
        return cls(cost, names)

    def word_cost(self, word: str) -> float | None:
        """-log10 P(word) for a word that may be made by cutting or joining, else None."""
        w = word.lower()
        if len(w) <= 2 and w not in SHORT_WORDS:
            return None
        cost = self.cost.get(w)
        return self.names.get(w) if cost is None and len(w) >= _MIN_NAME else cost

    def token_cost(self, token: str, known: Callable[[str], bool]) -> float:
        """-log10 P of a token as printed: its word's; for an inflection or a dropped g
        the word's it comes from ("FELLAS", "GOIN"); a rare word's if ``known`` takes it (a
        name, a word of the comics lexicon); else a rare string's."""
        w = token.lower()
        cost = self.names.get(w)
        if cost is not None:
            return cost
        for base in (w, w + "g", *(w[: -len(s)] for s in _ENDINGS if w.endswith(s) and len(w) > len(s) + 2)):
            cost = self.cost.get(base)
            if cost is not None:
                return cost
        return RARE if known(token) else RARE + _PER_LETTER * len(token)


def joined_likelier(head: str, tail: str, freqs: WordFrequencies | None = None) -> bool:
    """True when ``head + tail`` is a word likelier, by more than a misread gap, than the
    two side by side ("IMPORT"+"ANT"; not "SIDE"+"KICK")."""
    f = freqs or WordFrequencies.load()
    whole, a, b = f.word_cost(head + tail), f.word_cost(head), f.word_cost(tail)
    return whole is not None and (a is None or b is None or whole + GAP_MISREAD < a + b)


def _best_cuts(
    letters: str,
    printed: dict[int, float],
    freqs: WordFrequencies,
    known: Callable[[str], bool],
    joins_only: bool = False,
) -> list[int]:
    """The cut positions (ends of words) of the likeliest reading of ``letters``, whose
    printed word ends are the keys of ``printed`` (including ``len(letters)``), each with
    the cost of undoing it (a space or a line break). ``joins_only``: no word but a
    printed one or one joined across a line break."""
    n = len(letters)
    starts = {0, *printed}
    ends = sorted(printed)
    # positions inside a short printed token, where no word may begin or end
    uncut = {k for a, b in zip([0, *ends], ends, strict=False) if b - a < _MIN_CUT for k in range(a + 1, b)}
    best: list[tuple[float, list[int]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for j in range(n):
        prev = best[j]
        if prev is None or j in uncut:
            continue
        for i in range(j + 1, min(n, j + _MAX_WORD) + 1):
            part = letters[j:i]
            as_printed = j in starts and i in printed and not any(j < k < i for k in printed)
            cost = freqs.token_cost(part, known) if as_printed else freqs.word_cost(part)
            if cost is None or i in uncut:
                continue
            if (
                joins_only
                and not as_printed
                and not (
                    j in starts
                    and i in printed
                    and any(j < k < i and c == LINE_BREAK for k, c in printed.items())
                )
            ):
                continue
            cost += sum(c for k, c in printed.items() if j < k < i)  # spaces or breaks undone
            if i not in printed:
                cost += GAP_MISREAD  # a space put in
            cand = (prev[0] + cost, [*prev[1], i])
            cur = best[i]
            if cur is None or cand[0] < cur[0] - 1e-9:
                best[i] = cand
    final = best[n]
    return final[1] if final is not None else ends


_Token = tuple[str, str, str, bool]  # prefix, letters, suffix, whether a line breaks after it


def _respace_run(
    tokens: list[_Token], freqs: WordFrequencies, known: Callable[[str], bool], joins_only: bool = False
) -> list[str]:
    """Re-cut a run of tokens with no punctuation between them."""
    letters = "".join(t[1] for t in tokens)
    printed: dict[int, float] = {}
    pos = 0
    for t in tokens:
        pos += len(t[1])
        printed[pos] = LINE_BREAK if t[3] else GAP_MISREAD
    cuts = _best_cuts(letters, printed, freqs, known, joins_only)
    words = [letters[a:b] for a, b in zip([0, *cuts], cuts, strict=False)]
    if len(words) == len(tokens) and all(w == t[1] for w, t in zip(words, tokens, strict=True)):
        return [t[0] + t[1] + t[2] for t in tokens]
    words[0] = tokens[0][0] + words[0]
    words[-1] = words[-1] + tokens[-1][2]
    return words


def respace(
    text: str,
    freqs: WordFrequencies,
    known: Callable[[str], bool] = lambda _t: False,
    joins_only: bool = False,
) -> str:
    """The text with its words cut where the likeliest reading cuts them, on one line
    (``text``'s line breaks, "\\n", weigh as :data:`LINE_BREAK`); ``known`` tells a printed
    token that is a word although the frequency list lacks it. ``joins_only``: only words
    broken across a line break are joined (the lines were each cut already)."""
    out: list[str] = []
    run: list[_Token] = []
    lines = [[p for tok in ln.split() for p in _split_tail(tok, freqs)] for ln in text.split("\n")]
    tokens = [
        (tok, k == len(ln) - 1 and n < len(lines) - 1)
        for n, ln in enumerate(lines)
        for k, tok in enumerate(ln)
    ]
    for token, line_end in tokens:
        m = _TOKEN.fullmatch(token)
        if m is None or len(m.group(2)) == 1 or m.group(2).lower() in _TAILS:
            out += _respace_run(run, freqs, known, joins_only) if run else []
            run = []
            pieces = _DASHES.split(token)
            # words joined by dashes or dots are each their own run ("WHO-WHAT-CANIT", "A.AGADGET")
            if len(pieces) > 1:  # separators at odd places
                token = "".join(
                    respace(p, freqs, known, joins_only) if i % 2 == 0 and p else p
                    for i, p in enumerate(pieces)
                )
            out.append(token)
            continue
        prefix, letters, suffix = m.groups()
        if prefix and run:
            out += _respace_run(run, freqs, known, joins_only)
            run = []
        run.append((prefix, letters, suffix, line_end))
        if suffix:
            out += _respace_run(run, freqs, known, joins_only)
            run = []
    if run:
        out += _respace_run(run, freqs, known, joins_only)
    return " ".join(out)


def _split_tail(token: str, freqs: WordFrequencies) -> tuple[str, ...]:
    """``token`` cut after a contraction's tail where a known word follows it ("VE'RE" and
    "COMING"); else the token alone ("O'MALLEY": no tail of two letters before it)."""
    m = _TAIL_THEN_WORD.fullmatch(token)
    if m is None or freqs.word_cost(re.sub(r"\W", "", m.group(2))) is None:
        return (token,)
    return m.group(1), m.group(2)


@functools.cache
def _shipped() -> WordFrequencies:
    text = resources.files("panelvox.analysis").joinpath("data/english_freq.txt").read_text("utf-8")
    return WordFrequencies.from_lines(text.splitlines())
