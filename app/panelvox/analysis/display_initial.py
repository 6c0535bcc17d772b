"""A caption's first letter, lettered as a display initial, put back where it was misread.

Letterers open narration with a large or decorated capital. The recogniser, trained on
type, often reads that initial as another letter ("GATER" for "LATER", "BUDDENLX" for
"SUDDENLY") or leaves it out ("ATER", "HAT NIGHT" for "THAT NIGHT", "EYERAL" for
"SEVERAL"). Only the caption's opening word is tried, with its first letter changed or one
put before it (and, the initial aside, at most one :data:`~panelvox.analysis.misreads.LOOK_ALIKES`
letter), and only where what comes out is clear:

- a time phrase ("THAT NIGHT", "NEXT MORNING", "LATE THAT NIGHT") where the read words
  are none: "HAT NIGHT", "GATE THAT NIGHT" (a word as read, so only this formula of
  narration may change it);
- a word that moves the story on (the comics lexicon's narration words: "LATER",
  "SUDDENLY") where the read token is no word (of the word list, nor of the frequency
  table), and only one such word fits;
- else, for a token of five letters or more English does not use, the one word far
  likelier than any other that fits with a letter put before it ("EYERAL" → "SEVERAL"):
  an initial changed into another is taken only for narration (a first word misspelt on
  purpose, "WACATION", is dialect), and never a name or a word of the comics lexicon
  (``keep``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Collection, Iterator

from panelvox.analysis.misreads import LOOK_ALIKES, likeliest_word
from panelvox.analysis.spacing import RARE, WordFrequencies

#: times of day a caption's time phrase ends with ("THAT NIGHT", "NEXT MORNING")
TIMES = frozenset({"night", "morning", "evening", "afternoon", "dawn", "dusk", "midnight", "noon"})
#: the words that open such a phrase ("THIS" is not: "HIS NIGHT" is a possessive) ...
_DETERMINERS = frozenset({"that", "next", "last", "one", "each", "early", "late"})
#: ... and those put before a determiner ("LATE THAT NIGHT", "EARLY NEXT MORNING")
_BEFORE = frozenset({"late", "early"})
#: the shortest token the open rule (no narration word) changes: shorter ones are names
_MIN_OPEN = 5
_WORD = re.compile(r"[A-Za-z]+")


def _initials(word: str, changed: bool = True) -> Iterator[str]:
    """``word`` with a letter put before it, or (``changed``) its first letter changed
    (lower case)."""
    for c in string.ascii_lowercase:
        yield c + word
        if changed and len(word) > 1 and c != word[0]:
            yield c + word[1:]


def _variants(word: str, changed: bool = True) -> set[str]:
    """:func:`_initials` of ``word``, each also with one look-alike letter after the initial."""
    out: set[str] = set()
    for v in _initials(word, changed):
        out.add(v)
        for i in range(1, len(v)):
            meant = LOOK_ALIKES.get(v[i].upper())
            if meant is not None:
                out.add(v[:i] + meant.lower() + v[i + 1 :])
    return out


def _time_phrase(word: str, following: list[str]) -> str | None:
    """The determiner ``word`` stands for where the caption opens with a time phrase."""
    if not following:
        return None
    if following[0] in TIMES:
        need = _DETERMINERS
    elif following[0] in _DETERMINERS and len(following) > 1 and following[1] in TIMES:
        need = _BEFORE
    else:
        return None
    if word in need:
        return None
    found = {v for v in _initials(word) if v in need}
    return found.pop() if len(found) == 1 else None


def display_initial(
    text: str,
    known: Callable[[str], bool],
    narration: Collection[str],
    freqs: WordFrequencies,
    keep: Collection[str] = (),
) -> str:
    """``text`` (a caption's lettering) with its opening word's display initial put back
    (see the module docstring); ``known``: the word test of lettering; ``narration``: the
    words that move the story on; ``keep``: spellings that stay (lowercase)."""
    m = _WORD.match(text)
    if m is None:
        return text
    token = m.group(0)
    word = token.lower()
    following = [t.lower() for t in _WORD.findall(text[m.end() :])[:2]]
    meant = _time_phrase(word, following)
    # a token no word list or frequency table knows (a word list may lack "AND")
    if meant is None and not known(token) and word not in keep and freqs.cost.get(word) is None:
        found = _variants(word) & set(narration)
        if len(found) == 1:
            meant = found.pop()
        elif not found and len(word) >= _MIN_OPEN:
            meant = likeliest_word(_variants(word, changed=False), freqs, RARE)
    if meant is None:
        return text
    return (meant.upper() if token.isupper() else meant) + text[m.end() :]
