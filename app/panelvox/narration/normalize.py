"""Turn comic lettering into text a speech engine reads well.

Comic lettering is ALL CAPS, full of "--", "...", "!?" and *emphasis*; a speech engine fed
that raw spells words letter by letter and reads punctuation aloud. Japanese text only
gets NFKC (full-width forms folded) and layout clean-up: none of the Latin rules apply.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from panelvox.analysis.lettering import WordList, comic_lexicon, letters_for_digits, proper_names
from panelvox.i18n import _
from panelvox.languages import detect_language

#: All-caps words kept as they are: real acronyms an engine should spell.
ACRONYMS: frozenset[str] = frozenset(
    {
        "FBI", "CIA", "NSA", "USA", "UK", "UN", "EU", "NASA", "TV", "DNA", "ID", "IQ", "CEO",
        "GPS", "UFO", "NYPD", "LAPD", "SWAT", "USSR", "KGB", "MI6", "RAF", "HQ", "ASAP", "AI",
        "PC", "CD", "DVD", "VIP", "SOS", "OK", "AM", "PM", "BC", "AD", "US", "ER", "ICU", "DJ",
        "MP", "GI", "IRS", "NBA", "NFL", "BBC", "CNN", "WWII", "WWI", "TNT", "RPG", "UV", "IV",
    }
)  # fmt: skip
#: Acronyms that are also ordinary words; kept only when the whole text is not lettered in caps.
_AMBIGUOUS = frozenset({"US", "AM", "OK", "IV", "ID", "AD", "ER", "PC", "MP"})

_EMPHASIS = re.compile(r"(\*{1,2}|_{1,2})(?=\S)(.+?)(?<=\S)\1")
_HYPHEN_BREAK = re.compile(r"(\w)-\s*\n\s*(\w)")
_PUNCT_RUN = re.compile(r"[!?]{2,}")
#: a full stop lettered (or read) before "!" or "?": "OH BOY.!", "WHERE'S THE KID.?"
_STOP_BEFORE_END = re.compile(r"(?<!\.)\.(?=[!?])")
#: a sentence's end with no space before the next word: 'HAWK".THE NEXT DAY', "KALA.'CAPTAIN",
#: "HEY!YOU", "MAN.-WE" (a word of two letters or more on each side, so "U.S.A." and "3.5"
#: stay whole)
_GLUED_SENTENCE = re.compile(r"([A-Za-z]{2}[\"”]?[.!?][\"”]*)-?(?=['‘]?[A-Za-z]{2})")
_WEB_ADDRESS = re.compile(r"\bwww\.|\.(?:com|org|net|edu|gov)\b", re.IGNORECASE)
_ELLIPSIS = re.compile(r"\.{2,}|…")
_DASH = re.compile(r"\s*(?:-{2,}|—|–)\s*")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.!?;:])")
_REPEATED_COMMA = re.compile(r"(?:,\s*){2,}")
_COMMA_BEFORE_END = re.compile(r",\s*([.!?])")
_SENTENCE_START = re.compile(r"(^|[.!?]\s+)([\"“'‘]?[a-z])")
_PRONOUN_I = re.compile(r"\bi\b(?=$|[\s,.!?;:'’])")
_DOTTED_ACRONYM = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]\.?$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_ORDINAL = re.compile(r"\b(\d+)(ST|ND|RD|TH)\b", re.IGNORECASE)
_MONEY = re.compile(r"\$(\d+(?:\.\d{2})?)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)|(?<![\w.,])\d+(?![\d,]|\.\d)")


def normalize_for_speech(text: str, *, language: str | None = None, names: Iterable[str] = ()) -> str:
    """Speech-ready text for ``text`` as lettered on the page.

    ``names`` are character names to restore to their capitalised form after the
    all-caps lettering is lowered (so "STEENIE" is spoken and shown as "Steenie").
    """
    text = unicodedata.normalize("NFKC", text)
    lang = language or detect_language(text)
    if lang.startswith("ja"):
        return _normalize_japanese(text)
    return _normalize_latin(text, names)


def _normalize_japanese(text: str) -> str:
    # Vertical lettering is split into columns; the breaks carry no pause.
    text = re.sub(r"\s*\n\s*", "", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = text.replace("...", "…")
    text = re.sub(r"[!?]*\?[!?]*", "?", text)
    return re.sub(r"\s+", " ", text).strip()


def _normalize_latin(text: str, names: Iterable[str]) -> str:
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = " ".join(_spaced_sentences(t) for t in _STOP_BEFORE_END.sub("", text).split(" "))
    # a snore's Z's read as 2's is said as written, never as a number
    text = letters_for_digits(text)
    text = _EMPHASIS.sub(r"\2", text)
    text = text.replace("*", "").replace("_", " ")
    text = _stray_symbols(text)
    text = _PUNCT_RUN.sub(lambda m: "?" if "?" in m.group(0) else "!", text)
    text = _pauses(text)
    all_caps = _is_all_caps(text)
    text = _case(text, all_caps)
    text = _abbreviations(text)
    text = _numbers(text)
    if all_caps:
        text = _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), text)
        text = _PRONOUN_I.sub("I", text)
    text = _restore_names(text, names)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _REPEATED_COMMA.sub(", ", text)
    text = _COMMA_BEFORE_END.sub(r"\1", text)
    text = re.sub(r"\s+", " ", text).strip(" ,")
    return text


#: marks lettering uses (and a speech engine reads well); any other mark or symbol in Latin
#: lettering is a recogniser's stray ("NIGHT'S·SLEEP", "LIFE~HEY", "HELLO • THERE")
_LETTERING_MARKS = frozenset(".,!?;:'\"-()…&$%’‘“”/+=#@¡¿«»„‚—–")


def _stray_symbols(text: str) -> str:
    """Every mark or symbol lettering does not use becomes a space: said as a pause between
    the words around it, never read out or shown on a braille display."""
    if all(ch.isalnum() or ch.isspace() or ch in _LETTERING_MARKS for ch in text):
        return text
    kept = (" " if unicodedata.category(ch)[0] in "PS" and ch not in _LETTERING_MARKS else ch for ch in text)
    return re.sub(r" {2,}", " ", "".join(kept)).strip()


def _spaced_sentences(token: str) -> str:
    """A space after each sentence end inside ``token``, unless it is a web address."""
    return token if _WEB_ADDRESS.search(token) else _GLUED_SENTENCE.sub(r"\1 ", token)


def _pauses(text: str) -> str:
    """ "--", dashes and ellipses become commas mid-sentence and full stops at the end."""
    text = _ELLIPSIS.sub(" … ", text)
    text = _DASH.sub(" … ", text)
    text = text.strip()
    while text.startswith("…"):
        text = text[1:].lstrip()
    # A trailing pause (interrupted or trailing-off speech) ends the sentence.
    text = re.sub(r"\s*…\s*$", ".", text)
    # Before other punctuation a pause adds nothing.
    text = re.sub(r"\s*…\s*(?=[,.!?;:])", "", text)
    return re.sub(r"\s*…\s*", ", ", text)


def _is_all_caps(text: str) -> bool:
    words = _WORD.findall(text)
    return bool(words) and sum(1 for w in words if w.isupper()) / len(words) >= 0.6


def _case(text: str, all_caps: bool) -> str:
    """Lower the lettering's capitals so words are read as words, keeping acronyms."""
    upper = [w for w in _WORD.findall(text) if w.isupper() and len(w) > 1]

    def fix(token: str) -> str:
        core = token.strip(".,!?;:\"'()")
        if _DOTTED_ACRONYM.match(core):
            return token.upper()
        letters = core.replace("'", "").replace("’", "")
        if not letters.isupper() or (len(letters) < 2 and not all_caps):
            return token
        if letters in ACRONYMS and not (all_caps and letters in _AMBIGUOUS):
            return token
        lowered = token.lower()
        if all_caps and _proper_noun(core) and not _ELIDED.search(token):
            # a name keeps its capital ("Joe", "Anna"), in speech and on a braille display
            return lowered.replace(core.lower(), core.lower().capitalize(), 1)
        return lowered

    if not upper and not all_caps:
        return text
    return " ".join(fix(tok) for tok in text.split(" "))


#: a word lettered with a letter left out ("TH'", "'EM"): dialect, never a name
_ELIDED = re.compile(r"[A-Za-z]['’](?![A-Za-z])|(?<![A-Za-z])['’][A-Za-z]")


def _proper_noun(word: str) -> bool:
    """A word the dictionary's source knows only as a proper noun ("JOE", "ANNA", "LARS"):
    never one that is also a word ("BILL", "JASPER") or lettering of the comics lexicon."""
    key = word.lower().replace("’", "'")
    if len(key) < 3 or not key.isalpha() or key in comic_lexicon():
        return False
    return key in proper_names() and not WordList.load().knows(key)


_ABBREVIATIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bMrs\.", re.IGNORECASE), "Missus"),
    (re.compile(r"\bMr\.", re.IGNORECASE), "Mister"),
    (re.compile(r"\bMs\.", re.IGNORECASE), "Miz"),
    (re.compile(r"\bDr\.(?=\s+[A-Za-z])", re.IGNORECASE), "Doctor"),
    (re.compile(r"\bProf\.", re.IGNORECASE), "Professor"),
    (re.compile(r"\bCapt\.", re.IGNORECASE), "Captain"),
    (re.compile(r"\bSgt\.", re.IGNORECASE), "Sergeant"),
    (re.compile(r"\bLt\.", re.IGNORECASE), "Lieutenant"),
    (re.compile(r"\bGen\.(?=\s+[A-Za-z])", re.IGNORECASE), "General"),
    (re.compile(r"\bJr\.", re.IGNORECASE), "Junior"),
    (re.compile(r"\bvs\.?(?=\s)", re.IGNORECASE), "versus"),
    (re.compile(r"\betc\.", re.IGNORECASE), "etcetera."),
    (re.compile(r"\bNo\.\s*(?=\d)", re.IGNORECASE), "number "),
)


_ST = re.compile(r"(?:\b([A-Za-z]+)\s+)?\bSt\.", re.IGNORECASE)
_SAINT_AFTER = frozenset({"to", "in", "at", "of", "from", "on", "near", "by", "the", "and"})


def _abbreviations(text: str) -> str:
    for pattern, spoken in _ABBREVIATIONS:
        text = pattern.sub(spoken, text)
    return _ST.sub(_saint_or_street, text)


def _saint_or_street(m: re.Match[str]) -> str:
    # "St." first or after a preposition is a saint ("to St. Louis"); after a name a street.
    before = m.group(1)
    if before is None or before.lower() in _SAINT_AFTER:
        return (before + " " if before else "") + "Saint"
    return before + " Street."


def _numbers(text: str) -> str:
    text = _MONEY.sub(lambda m: _money(m.group(1)), text)
    text = _PERCENT.sub(lambda m: f"{m.group(1)} " + _("percent"), text)
    text = _ORDINAL.sub(lambda m: ordinal_words(int(m.group(1))), text)
    return _NUMBER.sub(_number_match, text)


def _number_match(m: re.Match[str]) -> str:
    digits = m.group(0)
    # "1,250" is a count; "1944" is most likely a year.
    return number_words(int(digits.replace(",", "")), year="," not in digits)


def _money(amount: str) -> str:
    dollars, _sep, cents = amount.partition(".")
    out = f"{dollars} " + (_("dollar") if dollars == "1" else _("dollars"))
    if cents and int(cents):
        out += f" {int(cents)} " + _("cents")
    return out


def _restore_names(text: str, names: Iterable[str]) -> str:
    for name in names:
        if name:
            text = re.sub(rf"\b{re.escape(name)}\b", name, text, flags=re.IGNORECASE)
    return text


_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand"))
_ORDINAL_WORDS = {
    "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
    "nine": "ninth", "twelve": "twelfth",
}  # fmt: skip


def number_words(n: int, *, year: bool = False) -> str:
    """English words for an integer ("1250" → "one thousand two hundred fifty").

    With ``year``, 1100–1999 read as years do: "1944" → "nineteen forty-four".
    """
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("-" + _ONES[ones] if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _ONES[hundreds] + " hundred" + (" " + number_words(rest) if rest else "")
    if year and 1100 <= n < 2000 and n % 100:
        high, low = divmod(n, 100)
        return number_words(high) + " " + (number_words(low) if low >= 10 else "oh " + number_words(low))
    for size, word in _SCALES:
        if n >= size:
            high, rest = divmod(n, size)
            return number_words(high) + f" {word}" + (" " + number_words(rest) if rest else "")
    raise AssertionError("unreachable")  # pragma: no cover


def ordinal_words(n: int) -> str:
    """English ordinal words: 21 → "twenty-first"."""
    words = number_words(n)
    head, sep, last = words.rpartition("-" if "-" in words.split(" ")[-1] else " ")
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last
