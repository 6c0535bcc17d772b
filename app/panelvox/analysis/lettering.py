"""Comic lettering post-processing: what OCR gets wrong about hand-lettered comics.

Pure text functions, no models:

- ALL-CAPS lettering: a line that is mostly capitals is made all capitals, and digits
  that stand inside words for look-alike letters are turned back ("G0OD" -> "GOOD").
- Word boundaries are chosen by word frequency (spacing.py): spaces the detector lost
  are put back ("WHEREDID" -> "WHERE DID"), gaps read as spaces inside a word are closed
  ("IMPORT ANT" -> "IMPORTANT"), and a space goes back after punctuation run into the next
  word ("KALA..ONE" -> "KALA.. ONE").
- Hyphenated line breaks are joined when a block's lines are joined ("VEN-"/"TURE" ->
  "VENTURE"; "SIDE-"/"KICK" -> "SIDE-KICK" since both halves are words).
- Marks read as other characters are put back (misreads.py): a "!" read as "I", a lost
  apostrophe, an accent over a capital, a "1" for the pronoun I; a "?" read as "Z" where
  the word is far likelier without it ("DOZ").
- Script detection per line ("latin" or "japanese") and furigana (ruby) detection.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import pairwise

from panelvox.analysis.misreads import fix_misreads
from panelvox.analysis.spacing import GAP_MISREAD, SHORT_WORDS, WordFrequencies, joined_likelier, respace

_LETTERS = re.compile(r"[A-Za-z]+")
_TOKEN = re.compile(r"\S+")
_CAPS_DIGITS = str.maketrans({"0": "O", "1": "I", "5": "S", "8": "B"})
_PUNCT_RUN = re.compile(r"(?<=[A-Za-z]{2})([.!?,;:…]+)(?=[A-Za-z]{2})")


@dataclass(frozen=True, slots=True)
class WordList:
    """A set of lowercase English words (SCOWL via Debian wamerican, see scripts/make_wordlist.py)."""

    words: frozenset[str]

    @classmethod
    def load(cls) -> WordList:
        """The list shipped with Panelvox (read once per process: it is immutable)."""
        return _shipped_word_list()

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> WordList:
        return cls(frozenset(w.strip().lower() for w in lines if w.strip() and not w.startswith("#")))

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.words

    def knows(self, token: str) -> bool:
        """True when ``token`` (any case, possibly with a plural/possessive ending) is a word."""
        w = token.lower().strip("'’")
        if w in self.words:
            return True
        for suffix in ("'s", "’s", "s", "es", "ed", "d"):
            if w.endswith(suffix) and w[: -len(suffix)] in self.words:
                return True
        # dropped g: EATIN' -> eating
        return w.endswith("in") and w + "g" in self.words


# -- script ------------------------------------------------------------------------
def _is_japanese_char(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x3040 <= cp <= 0x30FF  # hiragana, katakana
        or 0x4E00 <= cp <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= cp <= 0x4DBF
        or 0xFF66 <= cp <= 0xFF9D  # half-width katakana
        or 0x3005 <= cp <= 0x3007  # 々 〆 〇
    )


def script_of(text: str) -> str:
    """ "japanese" when kana/kanji make up a good share of the letters, else "latin"."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "latin"
    jp = sum(1 for c in letters if _is_japanese_char(c))
    return "japanese" if jp >= 0.3 * len(letters) else "latin"


def language_of(script: str) -> str:
    """An ISO 639-1 code for a script as far as Panelvox tells them apart."""
    return "ja" if script == "japanese" else "en"


# -- capitals ------------------------------------------------------------------------
def is_caps(text: str) -> bool:
    """True when the Latin letters of ``text`` are (almost) all capitals."""
    letters = [c for c in text if c.isascii() and c.isalpha()]
    if len(letters) < 2:
        return bool(letters) and letters[0].isupper()
    return sum(c.isupper() for c in letters) >= 0.75 * len(letters)


def normalize_caps(text: str) -> str:
    """Make an ALL-CAPS line consistently capital; fix digits inside words.

    Emphasis (bold, larger letters) carries no meaning for the listener, so nothing of
    it survives: the text is plain.
    """
    text = unicodedata.normalize("NFKC", text)
    if not is_caps(text):
        return text
    out = []
    for token in _TOKEN.findall(text):
        core = token.strip(".,!?;:'\"“”‘’()…-")
        letters = sum(c.isalpha() for c in core)
        if letters and letters >= len(core) - 1 and any(c.isdigit() for c in core):
            token = token.translate(_CAPS_DIGITS)
        out.append(token)
    return " ".join(_lone_ones(out)).upper()


def _lone_ones(tokens: list[str]) -> list[str]:
    """A lone "1" in capitals is the pronoun I ("1 CAN'T", "I-1 THINK" read as "I 1 THINK")
    where it stands before a word or repeats as a stammer; "R3Y 1", "ROOM 1" stay numbers."""
    out = list(tokens)
    for k, tok in enumerate(tokens):
        if tok.strip(",.!?…-") != "1":
            continue
        nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
        prev = tokens[k - 1] if k else ""
        stammer = "1" in (nxt.strip(",.!?…-"), prev.strip(",.!?…-")) or prev.strip(",.!?…-") == "I"
        word = nxt.strip(",.!?…").replace("'", "").replace("’", "")
        before_word = word.isalpha() and len(word) > 1
        after_digits = any(c.isdigit() for c in prev.replace("1", ""))
        if (before_word or stammer) and not after_digits:
            out[k] = tok.replace("1", "I")
    return out


#: digits a letterer's letters are misread as, and the letter each stands for
_LOOKALIKES = {"2": "Z", "0": "O", "1": "I", "5": "S", "8": "B"}
_JOINED = re.compile(r"(?<![\w.,])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w,]|\.\d)")


def _as_letters(part: str) -> str | None:
    out = "".join(_LOOKALIKES.get(c, c) for c in part)
    return out if out.isalpha() else None


def _misread_run(m: re.Match[str]) -> str:
    token = m.group(0)
    parts = token.split("-")
    letters = {c.upper() for p in parts for c in p if c.isalpha()}
    digits = [p for p in parts if any(c.isdigit() for c in p)]
    if not digits:
        return token
    mapped = [_as_letters(p) for p in digits]
    if any(x is None for x in mapped):
        return token
    used = {c.upper() for x in mapped if x for c in x}
    if letters:
        # digits standing in a run of the letters beside them: ZZZZZZ-22, Z-2-Z, ZZ2Z
        ok = used <= letters and len(letters) == 1
    else:
        # one look-alike digit repeated as a stammer or a snore: 2-2-2, 222222-22
        ok = len(parts) >= 2 and len(set("".join(digits))) == 1
    if not ok:
        return token
    return "-".join(_as_letters(p) or p if any(c.isdigit() for c in p) else p for p in parts)


def letters_for_digits(text: str) -> str:
    """Turn digits back into the letters they were misread for in a run of one letter.

    A snore or a stammer lettered as one repeated letter ("ZZZZZZ-ZZ", "Z-Z-Z") is often
    read with some letters as their look-alike digits ("ZZZZZZ-22", "2-2-2"), which a
    speech engine would say as numbers. Only a run of a single repeated letter is
    restored: "B-52" or "555-1234" stay numbers.
    """
    return _JOINED.sub(_misread_run, text)


# -- spacing -------------------------------------------------------------------------
def _part_ok(part: str, words: WordList) -> bool:
    if len(part) <= 2:
        return part in SHORT_WORDS
    return part in words.words


def segment(token: str, words: WordList, max_parts: int = 3) -> list[str] | None:
    """Split a run of letters into known words, fewest and longest first; None if impossible."""
    low = token.lower()
    n = len(low)
    # best[i]: (parts, -sum of squared lengths, short parts, cuts) for low[:i]: fewest
    # words, then the longest words (THERE IS, not THE REIS), then fewest short ones
    best: list[tuple[int, int, int, list[int]] | None] = [None] * (n + 1)
    best[0] = (0, 0, 0, [])
    for i in range(1, n + 1):
        for j in range(max(0, i - 20), i):
            prev = best[j]
            if prev is None or prev[0] >= max_parts or not _part_ok(low[j:i], words):
                continue
            cand = (prev[0] + 1, prev[1] - (i - j) ** 2, prev[2] + (1 if i - j <= 2 else 0), [*prev[3], i])
            cur = best[i]
            if cur is None or cand[:3] < cur[:3]:
                best[i] = cand
    final = best[n]
    if final is None or final[0] < 2:
        return None
    cuts = [0, *final[3]]
    return [token[a:b] for a, b in pairwise(cuts)]


@functools.cache
def _lexicon_sections() -> dict[str, frozenset[str]]:
    """The comics lexicon's sections: after the file's header, paragraphs that each start
    with a comment naming them ("# sounds lettering spells out" is "sounds")."""
    text = resources.files("panelvox.analysis").joinpath("data/comic_lexicon.txt").read_text("utf-8")
    sections: dict[str, frozenset[str]] = {}
    for para in text.split("\n\n")[1:]:
        lines = para.strip().splitlines()
        if not lines or not lines[0].startswith("#"):
            continue
        name = lines[0].lstrip("# ").split()[0].rstrip(":")
        words = " ".join(ln for ln in lines[1:] if not ln.startswith("#")).lower().replace("’", "'").split()
        sections[name] = frozenset(words)
    return sections


@functools.cache
def comic_lexicon() -> frozenset[str]:
    """The comics lexicon shipped with Panelvox (``data/comic_lexicon.txt``: interjections,
    sounds spelt out, contractions, dialect as printed), read once per process."""
    return frozenset().union(*_lexicon_sections().values())


def narration_words() -> frozenset[str]:
    """The comics lexicon's words a caption opens with ("LATER", "MEANWHILE", "THE END")."""
    return _lexicon_sections().get("narration", frozenset())


def sound_words() -> frozenset[str]:
    """The comics lexicon's sounds spelt out ("BANG", "WHAM", "ZZZ")."""
    return _lexicon_sections().get("sounds", frozenset())


def voice_words() -> frozenset[str]:
    """The comics lexicon's sounds a creature makes with its voice ("WOOF", "MEOW", "SNORT"):
    in a balloon, the creature's line."""
    return _lexicon_sections().get("voices", frozenset())


def interjection_words() -> frozenset[str]:
    """The comics lexicon's interjections and exclamations ("OUCH", "YEOW", "WHEE")."""
    return _lexicon_sections().get("interjections", frozenset())


@functools.cache
def proper_names() -> frozenset[str]:
    """Proper nouns of the English word list's source, lowercased (``data/english_names.txt``).
    Only for telling lettering apart from misreads: the names pass never reads it."""
    text = resources.files("panelvox.analysis").joinpath("data/english_names.txt").read_text("utf-8")
    return frozenset(w for w in text.splitlines() if w and not w.startswith("#"))


def lettering_word(token: str, words: WordList) -> bool:
    """True when ``token`` is a word of the word list, of the comics lexicon (or its plural)
    or a proper noun of the word list's source."""
    w = token.lower().replace("’", "'")
    extra = comic_lexicon()
    return (
        words.knows(w)
        or w in extra
        or w.strip("'") in extra
        or (w.endswith("s") and w[:-1] in extra)
        or w.strip("'") in proper_names()
    )


def restore_spaces(
    text: str, words: WordList, freqs: WordFrequencies | None = None, joins_only: bool = False
) -> str:
    """Put back spaces lost after punctuation ("KALA..ONE"), then cut the line's letters
    into its likeliest words (:func:`panelvox.analysis.spacing.respace`): "WHEREDID" is
    "WHERE DID", "IN SPEC TION" is "INSPECTION"; a token of lettering (:func:`lettering_word`)
    counts as a word as printed. ``joins_only``: lines each cut already, only a word broken
    across their breaks is joined."""
    text = _PUNCT_RUN.sub(r"\1 ", text)
    return respace(text, freqs or WordFrequencies.load(), lambda t: lettering_word(t, words), joins_only)


_LAST_Z = re.compile(r"([A-Za-z']{2,})[Z2]$")


def question_mark(text: str, words: WordList, freqs: WordFrequencies | None = None) -> str:
    """A hand-lettered "?" ending a line is often read as "Z" or "2" ("WHAT IS ITZ"):
    where the last word is a word without it and either no word with it or a word rarer
    than it by more than a misread mark's odds ("WHAT WILL I DOZ": "doz" against "do"),
    it is a question mark."""
    m = _LAST_Z.search(text)
    if not (m and is_caps(text) and lettering_word(m.group(1), words)):
        return text
    if lettering_word(m.group(0), words):
        f = freqs or WordFrequencies.load()
        stem = f.word_cost(m.group(1))
        if stem is None or f.token_cost(m.group(0), lambda _t: True) - stem <= GAP_MISREAD:
            return text
    return text[: m.end(1)] + "?"


@functools.cache
def _contraction_forms(words: WordList) -> frozenset[str]:
    """Contractions with their apostrophe: the word list's ("don't") and the comics
    lexicon's ("i'm", "'til")."""
    return frozenset(w for w in words.words | comic_lexicon() if "'" in w)


@functools.cache
def as_lettered() -> frozenset[str]:
    """Spellings a misread rule leaves as lettered: the comics lexicon's and names."""
    return comic_lexicon() | proper_names()


def clean_line(text: str, words: WordList | None, script: str) -> str:
    """All per-line fixes for one recognised line."""
    text = " ".join(text.split())
    if script != "latin":
        return text.replace(" ", "") if script == "japanese" else text
    text = letters_for_digits(normalize_caps(text))
    if words is not None:
        if is_caps(text):
            text = fix_misreads(
                text,
                lambda t: lettering_word(t, words),
                _contraction_forms(words),
                WordFrequencies.load(),
                as_lettered(),
            )
        text = question_mark(text, words)
        text = restore_spaces(text, words)
    return text


# -- joining the lines of a block ----------------------------------------------------------
#: determiners, pronouns and prepositions: a word they begin is written closed, never with a
#: hyphen ("EVERY-"/"ONE" is EVERYONE, "ANY-"/"MORE" ANYMORE, "WITH-"/"OUT" WITHOUT), unlike
#: a compound of two content words (WATCH-DOG, SIDE-KICK)
_CLOSED_HEADS = frozenset({
    "any", "every", "some", "each", "him", "her", "them", "your", "our", "their", "thy", "with",
    "where", "when", "what", "who", "how", "there", "here", "for", "can", "out", "over",
    "under", "through", "into", "upon",
})  # fmt: skip


def _ends_with_break_hyphen(text: str) -> bool:
    return len(text) >= 2 and text[-1] in "-‐‑" and text[-2].isalpha()


def _keeps_hyphen(head: str, tail: str, prev: str, words: WordList) -> bool:
    """Whether a hyphen ending a line between ``head`` and the next line's ``tail`` (after
    ``prev``, the word before ``head``) is printed in the text, not a broken word's.

    A compound of two real words keeps its hyphen (SIDE-KICK), and so does a word whose
    halves make no word (FORTY-FOOTER); a word broken at a syllable loses it (VEN-TURE,
    HIBER-NATING), as does a word of the list far likelier whole than as two words
    (IMPORT-ANT; not TEE-HEE), whose first part stands apart before it (IN SPEC-TION), or
    that a function word begins (EVERY-ONE). After a short word, a dash between two common
    words that make no word is a pause ("GOT TO-"/"GO AFTER THEM", not "A-"/"WAY")."""
    whole = words.knows(head + tail)
    if min(len(head), len(tail)) < 3:
        return not whole and all(
            w.lower() in SHORT_WORDS if len(w) < 3 else words.knows(w) for w in (head, tail)
        )
    return (
        words.knows(head)
        and (words.knows(tail) or not whole)
        and not (whole and joined_likelier(head, tail))
        and not (prev and words.knows(prev + head + tail))
        and not (head.lower() in _CLOSED_HEADS and whole)
    )


def join_lines(lines: Sequence[str], script: str = "latin", words: WordList | None = None) -> str:
    """Join a block's lines in reading order, undoing hyphenated line breaks."""
    if script == "japanese":
        return "".join(s.strip() for s in lines if s.strip())
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if out and _ends_with_break_hyphen(out) and line[0].isalpha():
            head_m = re.search(r"([A-Za-z]+)-$", out)
            tail_m = _LETTERS.match(line)
            head = head_m.group(1) if head_m else ""
            tail = tail_m.group(0) if tail_m else ""
            prev_m = re.search(r"(?:^|\s)([A-Za-z]+)\s[A-Za-z]+-$", out)
            prev = prev_m.group(1) if prev_m else ""
            # a word repeated across the break is a stammer or a sound ("YUH-"/"YUH")
            compound = head.lower() == tail.lower() or (
                words is not None and _keeps_hyphen(head, tail, prev, words)
            )
            if not compound and words is not None and prev and words.knows(prev + head + tail):
                out = out[: -len(head) - 2] + head + "-"  # its first part stood apart (IN SPEC-)
            out = out + line if compound else out[:-1] + line
        else:
            out = f"{out}\n{line}" if out else line
    # a word broken at a line end whose hyphen was lost is found whole ("DIS"/"APPEAR"); the
    # lines were each cut into words already, where their ink has room for the spaces
    return restore_spaces(out, words, joins_only=True) if words is not None else out.replace("\n", " ")


# -- furigana --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LineGeometry:
    """What ruby detection needs to know about a line: its box and how it reads."""

    x0: float
    y0: float
    x1: float
    y1: float
    vertical: bool
    script: str


def ruby_lines(lines: Sequence[LineGeometry]) -> set[int]:
    """Indices of lines that are furigana: thin Japanese lines hugging a thicker line.

    Ruby sits to the right of a vertical column (above a horizontal line) and is about
    half as thick as the text it glosses, and no longer than it.
    """
    found: set[int] = set()
    for i, a in enumerate(lines):
        if a.script != "japanese":
            continue
        a_thick = (a.x1 - a.x0) if a.vertical else (a.y1 - a.y0)
        a_len = (a.y1 - a.y0) if a.vertical else (a.x1 - a.x0)
        for j, b in enumerate(lines):
            if i == j or b.script != "japanese" or b.vertical != a.vertical:
                continue
            b_thick = (b.x1 - b.x0) if b.vertical else (b.y1 - b.y0)
            b_len = (b.y1 - b.y0) if b.vertical else (b.x1 - b.x0)
            if not (a_thick <= 0.65 * b_thick and a_len <= 1.05 * b_len):
                continue
            if a.vertical:
                gap = a.x0 - b.x1  # ruby right of the column
                overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
            else:
                gap = b.y0 - a.y1  # ruby above the line
                overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
            if -0.3 * b_thick <= gap <= 0.5 * b_thick and overlap >= 0.6 * a_len:
                found.add(i)
                break
    return found


@functools.cache
def _shipped_word_list() -> WordList:
    # 64k words, about 27 ms to parse: every stage and each page's BookNames share one copy
    text = resources.files("panelvox.analysis").joinpath("data/english_words.txt").read_text("utf-8")
    return WordList.from_lines(text.splitlines())
