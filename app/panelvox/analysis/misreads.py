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

Each fires only where the line as read has a non-word that the mark explains; a word as
read, and lettering in another language, stay as read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

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


def _plain(token: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))


def drop_accents(text: str, known: Known) -> str:
    """Accented capitals made plain, in a line of English words, where the word without the
    accent is a word ("COMÉ") or the token is a word broken at the line's end ("HALLUCÍ-");
    a lone accented letter ("À") is no misread."""
    tokens = _BARE.findall(text)
    english = bool(tokens) and sum(known(t) for t in tokens) >= 0.6 * len(tokens)

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
        others = list(tokens)
        others.remove(tok)
        if known(tok) or (others and sum(known(t) for t in others) < 0.5 * len(others)):
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


def fix_misreads(text: str, known: Known, forms: Iterable[str]) -> str:
    """All the rules above, on one ALL-CAPS line (the caller checks it is one)."""
    text = slanted_bangs(text)
    text = drop_accents(text, known)
    text = digits_and_ones(text)
    text = end_marks(text, known)
    return contractions(text, known, forms)


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
