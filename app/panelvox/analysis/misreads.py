"""Marks of hand lettering that a recogniser reads as other characters, put back.

Pure text functions over one recognised line of ALL-CAPS lettering, each a rule a letterer
would recognise, each taking the line's own words as its only evidence (``known``: the
word test of :func:`panelvox.analysis.lettering.lettering_word`):

- An accent read over a capital ("COMÉ", "WHÉRE"): a speck or the pen's lift above the
  letter. English lettering has none, so where the word without it is a word, it goes.
- A "!" read as "I" glued to the line's last word ("QUEENI" for "QUEEN!"), and a "?"
  read as a letter after the line's closing mark ("KISS?z").
- An apostrophe lost ("IM" for "I'M", "SHOULDNT"; "MENIWEVE" for "MEN! WE'VE"): a
  contraction whose spelling without its apostrophe is no word is said as the contraction
  (a speech engine says "IM" as "im"). An apostrophe read as "I" ("WONIT" for "WON'T") is
  left: the text cannot tell it from a lost space ("CANIT" for "CAN IT").
- A slanted "!" read as a slash ("OKAY./ POST", "BELOW,/UP", "RIGHT/SO NOW"): its dot read
  as "." or "," or lost, its stroke as "/". Hand lettering puts no slash after a word (a
  fraction, "1/2", keeps it); a speech engine would say "slash".
- Digits read for letters and letters for digits: a "1" in a stammer ("I-1-THINK") or
  opening a sentence ("JOE! 1 CAN'T") is the pronoun I; a number read with look-alike
  letters ("I00O") is the number.
- A lone "T" before a word is the pronoun I ("I KNOW T HAVEN'T").
- One letter of hand lettering read as its look-alike ("COOD" for "GOOD", "IHINK",
  "SOLYE", "UD" for "UP"): a token English hardly uses, one look-alike letter away from a
  common word, is that word (the odds of the misread against the words' frequencies); the
  comics lexicon's spellings and names stay as lettered.

Each fires only where the line as read has a non-word that the mark explains; a word as
read, and lettering in another language, stay as read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable

from panelvox.analysis.spacing import GAP_MISREAD, RARE, WordFrequencies

Known = Callable[[str], bool]

_ACCENTED = re.compile(r"[^\W\d_]*[À-ÖØ-öø-ÿ][^\W\d_]*-?")
_END_BANG = re.compile(r"(?<![A-Za-z'])([A-Z]{3,})I$")
_AFTER_MARK = re.compile(r"([?!])[B-HJ-NP-Zb-hj-np-z]$")
_BARE = re.compile(r"\b[A-Z]{2,}\b")
_NUMBER_AS_LETTERS = re.compile(r"(?<![\w.,])(?=[0-9IOlo]*[0-9][0-9IOlo]*[0-9])[0-9IOlo]{3,}(?![\w])")
_TO_DIGITS = str.maketrans({"I": "1", "l": "1", "O": "0", "o": "0"})
_STAMMER_ONE = re.compile(r"(?:(?<=\bI-)|(?<=^-)|(?<=\s-))1(?=-[A-Z])|(?<=\bI-)1\b")
#: a "/" after a word (its dot read as "." or ",", or lost), not before a digit
_SLANTED_BANG = re.compile(r"(?<=[A-Za-z])[.,]?/(?!\d)\s*")
_SENTENCE_ONE = re.compile(r"(?:(?<=[!?] )|(?<=\.\. ))1(?= [A-Z]{2}|$)")


def _mostly_words(tokens: Iterable[str], known: Known, share: float, but: str | None = None) -> bool:
    """Whether at least ``share`` of ``tokens`` (less one ``but``, the token being judged)
    are words: a line in English, whose misreads English explains; true of no tokens."""
    rest = list(tokens)
    if but in rest:
        rest.remove(but)
    return sum(known(t) for t in rest) >= share * len(rest)


def _plain(token: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))


def drop_accents(text: str, known: Known) -> str:
    """Accented capitals made plain, in a line of English words, where the word without the
    accent is a word ("COMÉ") or the token is a word broken at the line's end ("HALLUCÍ-");
    a lone accented letter ("À") is no misread."""
    tokens = _BARE.findall(text)
    english = bool(tokens) and _mostly_words(tokens, known, 0.6)

    def fix(m: re.Match[str]) -> str:
        tok = m.group(0)
        plain = _plain(tok)
        if not english or not plain.isascii() or len(plain.rstrip("-")) < 2 or known(tok.rstrip("-")):
            return tok
        return plain if known(plain.rstrip("-")) or tok.endswith("-") else tok

    return _ACCENTED.sub(fix, text)


def end_marks(text: str, known: Known) -> str:
    """A "!" read as "I" at the end of the line's last word ("QUEENI"), and a letter read
    after the line's closing "?" or "!" ("KISS?z"), put back as the mark.

    Only where the word is a word without the "I" and none with it, and at the line's end:
    inside a line a glued "I" is as often the pronoun with its space lost ("HATREDI DIDN'T")."""
    text = _AFTER_MARK.sub(r"\1", text)
    m = _END_BANG.search(text)
    if m and known(m.group(1)) and not known(m.group(0)):
        return text[: m.end(1)] + "!"
    return text


def contractions(text: str, known: Known, forms: Iterable[str]) -> str:
    """Apostrophes lost ("IM", "SHOULDNT", "WEVE") put back, where the token as read is no
    word and the contraction is one of ``forms`` (lower case, with the apostrophe: "i'm")
    or a negative in n't of a word ("COULDNT"); only in a line whose other words are mostly
    English."""
    table = {f.replace("'", ""): f for f in forms if "'" in f.strip("'")}

    def restored(tok: str) -> str | None:
        low = tok.lower()
        if low in table:
            return table[low].upper()
        if low.endswith("nt") and len(low) > 4 and known(low[:-2]):
            return tok[:-1] + "'" + tok[-1]
        return None

    tokens = _BARE.findall(text)

    def lost(m: re.Match[str]) -> str:
        tok = m.group(0)
        if known(tok) or not _mostly_words(tokens, known, 0.5, but=tok):
            return tok  # a word, or a line not in English ("IM HAUS")
        form = restored(tok)
        if form is not None:
            return form
        # a "!" read as "I" before a contraction ("MENIWEVE"): the pronoun I is never
        # followed by another subject's contraction ("I WE'VE")
        for k in range(2, len(tok) - 2):
            head, tail = tok[:k], tok[k + 1 :]
            if tok[k] == "I" and known(head) and not known(tail) and (form := restored(tail)):
                return f"{head}! {form}"
        return tok

    return _BARE.sub(lost, text)


_LONE_T = re.compile(r"(?<![\w'’.-])T(?= ([A-Z]{2,}))")


def lone_t(text: str, known: Known) -> str:
    """A "T" standing alone before a word ("I KNOW T HAVEN'T") is the pronoun I, its serifs
    read as a T's bar: English has no word "T". A "T" after a word ending in N is the tail
    of a contraction whose apostrophe was lost ("DON T", "CAN T"), after a full stop it may
    be a name's initial ("MR. T"), and one that makes a word with the next ("T HE") is that
    word's first letter with a space read after it."""

    def fix(m: re.Match[str]) -> str:
        before = text[: m.start()].rstrip().rstrip("'’")
        return "T" if before.endswith(("N", ".")) or known("T" + m.group(1)) else "I"

    return _LONE_T.sub(fix, text)


def digits_and_ones(text: str) -> str:
    """A "1" in a stammer or opening a sentence made "I"; a number read with look-alike
    letters ("I00O") made digits (at least two digits, every other character a look-alike)."""
    text = _STAMMER_ONE.sub("I", text)
    text = _SENTENCE_ONE.sub("I", text)
    return _NUMBER_AS_LETTERS.sub(lambda m: m.group(0).translate(_TO_DIGITS), text)


def slanted_bangs(text: str) -> str:
    """A slanted "!" read as "./", ",/" or "/" after a word made "!" ("OKAY./ POST A MAN" →
    "OKAY! POST A MAN", "RIGHT/SO NOW" → "RIGHT! SO NOW"); a fraction ("1/2") stays."""
    return _SLANTED_BANG.sub(lambda m: "!" if m.end() == len(text) else "! ", text).rstrip()


#: letters of hand lettering a recogniser reads as another (as read → as lettered): a G
#: whose bar is faint is read C, a T whose bar is short I, an I whose serifs are long T, a V
#: with a stem Y, a P whose bowl comes down to its foot D, a Y whose arms cross X. V and W
#: are not among them: dialect lettering swaps them on purpose ("VE VILL", "WACATION").
LOOK_ALIKES = {"C": "G", "I": "T", "T": "I", "Y": "V", "D": "P", "X": "Y"}
#: ... but a D opening a word is dialect's TH as often ("DER", "DESE")
_NOT_FIRST = frozenset("D")
#: the likeliest candidate is taken only where it is this many orders of frequency likelier
#: than the next (two words the misread could be: neither is chosen)
_CLEAR_WINNER = 1.0
_INNER = re.compile(r"(?<![A-Za-z'’])[A-Z]{2,}(?![A-Za-z!]|['’][A-Za-z])")


def likeliest_word(candidates: Iterable[str], freqs: WordFrequencies, read: float) -> str | None:
    """The one of ``candidates`` (lowercase) that is a word more than a misread's odds
    (:data:`~panelvox.analysis.spacing.GAP_MISREAD`) likelier than the reading (``read``:
    its -log10 frequency) and :data:`_CLEAR_WINNER` likelier than any other; else None."""
    options = sorted((c, w) for w in set(candidates) if (c := freqs.cost.get(w)) is not None)
    if not options or read - options[0][0] < GAP_MISREAD:
        return None
    if len(options) > 1 and options[1][0] - options[0][0] < _CLEAR_WINNER:
        return None
    return options[0][1]


def look_alikes(text: str, known: Known, freqs: WordFrequencies, keep: Collection[str]) -> str:
    """Each token (not part of a contraction) English hardly uses that is one
    :data:`LOOK_ALIKES` letter away from a word more than a misread's odds
    (:data:`~panelvox.analysis.spacing.GAP_MISREAD`) more frequent, made that word: "COOD
    DAY", "I IHINK", "TAKE UD HIS", "YOU SOLYE". ``keep``: spellings that stay as lettered
    (the comics lexicon's, names: lowercase); only in a line of English words, and not a
    cry ("AIE!": interjections are lettered as they sound, out of any dictionary)."""
    tokens = _BARE.findall(text)

    def fix(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.lower() in keep:
            return tok
        if not _mostly_words(tokens, known, 0.6, but=tok):
            return tok  # a line not in English
        cands = [
            tok[:i] + LOOK_ALIKES[ch] + tok[i + 1 :]
            for i, ch in enumerate(tok)
            if ch in LOOK_ALIKES and not (i == 0 and ch in _NOT_FIRST)
        ]
        # as read: a word's own frequency (not an inflection's: "COOD" is no form of "COO")
        meant = likeliest_word([c.lower() for c in cands], freqs, freqs.cost.get(tok.lower(), RARE))
        return tok if meant is None else meant.upper()

    return _INNER.sub(fix, text)


def fix_misreads(
    text: str,
    known: Known,
    forms: Iterable[str],
    freqs: WordFrequencies | None = None,
    keep: Collection[str] = (),
) -> str:
    """All the rules above, on one ALL-CAPS line (the caller checks it is one); the
    look-alike letters only with ``freqs``."""
    text = slanted_bangs(text)
    text = drop_accents(text, known)
    text = lone_t(digits_and_ones(text), known)
    text = end_marks(text, known)
    text = contractions(text, known, forms)
    return text if freqs is None else look_alikes(text, known, freqs, keep)


_NAME_Z = re.compile(r"(?<![A-Za-z'])([A-Z]{3,})[Z2]$")


def page_question_marks(texts: list[str], known: Known) -> list[str]:
    """A "?" read as "Z" or "2" after a name the page letters elsewhere without it ("SEEN
    BABUZ" on a page where "BABU" stands alone): a name is no word of the word list, so only
    the page's own spelling tells the mark from the name's last letter."""
    tokens: dict[str, int] = {}
    for t in texts:
        for tok in re.findall(r"[A-Z0-9]+", t):
            tokens[tok] = tokens.get(tok, 0) + 1
    out = []
    for t in texts:
        m = _NAME_Z.search(t)
        if m and tokens.get(m.group(1), 0) and tokens.get(m.group(0), 0) == 1 and not known(m.group(0)):
            t = t[: m.end(1)] + "?"
        out.append(t)
    return out
