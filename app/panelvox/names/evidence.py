"""Where the words of a page say a name: vocatives, self-introductions, captions.

As the CoMix annotations put it, "whenever the character names are spoken in the text
boxes, their names propagate on the whole story". This module finds the *mentions*; who
each one names is decided in :mod:`panelvox.names.persons`:

- **vocatives**: "STEENIE, I HAVE BEEN LOOKING FOR YOU", "MR. KEMAL …" name the one spoken to;
- **self-introductions**: "I'M DOUGAL MACCALLUM" names the speaker;
- **captions**: "AND SO STEENIE WENT ..." may name who acts;
- **names said otherwise** in a balloon ("BELE KAHR IS CRUEL"): they name no one, but the one
  who says a name is not that person unless introducing themself (on the cib and cib-extra
  golden scripts, 209 of 218 sure dialogue lines that say a cast member's name are said by
  someone else, and 8 of the 9 others are "I'M …" introductions).

Only a word that could be a name counts (:func:`is_name_word`): never a stop word, a
pronoun, a way to address anyone ("HONEY!", "PAL"), an interjection, a sound, baby talk or
dialect as printed (the shipped list ``names/data/comic_words.txt``: "NAAH", "GAWSH",
"ARF"), a stammer ("S-SO"), a drawn-out sound ("OHHH") or an English word, unless the
book's ComicInfo ``Characters`` or the user lists it ("CURT").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources

from panelvox.analysis.lettering import WordList
from panelvox.model import BalloonKind, PageAnalysis

_STOP_TEXT = """
    a an and the i me my you your ye yer he him his she her it its we us our they them their
    this that these those who what why where when how which there here then now so but or if
    oh ah aw ay aye eh hey hi hello huh well yes yeah yep no nope okay ok o.k. say look listen
    gosh golly gee goodness gracious wow whew ha haha hah ho hmm uh um er bah boy man men
    honey dear darling sweetheart love baby sugar pal buddy chum friend friends folks kids kid
    children sir sirs madam ma'am mister miss missus mrs mr ms doc boss chief captain sarge
    lady ladies gentlemen guys fellas fellows mom mother ma dad daddy father pop son sonny
    grandpa grandma uncle auntie brother sister bro sis stranger everybody everyone someone
    nobody all please thanks thank sorry good great help wait stop run quick come go hurry
    not never maybe just only very too also please alright right sure fine hush shh quiet
    lord god heavens mercy jeepers gadzooks egad gad drat darn rats shucks nuts blah etc
    hiya ja ya yo yah aie ai whoa yikes ouch ugh eek oops ooh aha ahem yipe yow hooray bye im
    i'm i'll i'd i've you're you'll you've it's what's that's there's here's he's she's we're
    they're let's don't can't won't ain't isn't didn't up down out in on at to for with of off
    over by from about into back away again is are was were be been am do does did have has
    had will would can could shall should may might must
"""
#: words never taken for names: pronouns, interjections, generic ways to address someone
STOP_WORDS = frozenset(_STOP_TEXT.split())
#: titles before a name ("MR. KEMAL", "PRIVATE PINTO"): the name is the word after
_TITLE_TEXT = """
    mr mrs miss ms dr doc professor prof captain capt sergeant sgt sarge private pvt
    colonel col general lieutenant lt major officer sheriff judge uncle aunt auntie sir
    lady lord king queen prince princess father brother sister
"""
TITLES = frozenset(_TITLE_TEXT.split())
_WORD = r"[A-Z][A-Z'’\-]*"
_NAME = rf"({_WORD}(?:\s+{_WORD}){{0,2}})"
_LEAD = re.compile(rf"(?:^|[.!?]\s+|\.\.\.\s*){_NAME}\s*(?:,|!|\?|\.{{2,}})")
# the mark after a name is looked ahead at, not taken: it may open the next one ("HEY,
# CHAD?": the comma after HEY is the one before CHAD)
_MID = re.compile(rf",\s*{_NAME}\s*(?=[,!?]|\.\.\.|\.(?!\w)|$)")
_SELF = re.compile(rf"\b(?:I'M|I’M|I AM|MY NAME IS|NAME'S|NAME’S|CALL ME)\s+{_NAME}")
# a title and a name opening a balloon or sentence address someone, comma or not (OCR
# often drops it): "MR. KEMAL I-I DON'T SEE ...", "MISS LULU, I PRESUME?"
_TITLED = re.compile(rf"(?:^|[!?]\s+|\.\.\.\s*)([A-Z]+)\.?\s+({_WORD}(?:\s+{_WORD})?)")


class NameSource(Enum):
    VOCATIVE = "vocative"
    SELF = "self-introduction"
    CAPTION = "caption"
    #: a name said in a balloon that neither calls nor introduces anyone ("BELE KAHR IS CRUEL"):
    #: it names no one, but the one who says it is not that person
    SAID = "said"


def _norm(text: str) -> str:
    return " ".join(text.upper().replace("’", "'").split())


def _interjection(token: str) -> bool:
    """ "OHHH", "AAAH", "HMMM", "OHH", "UH-HUH": drawn-out sounds, never names."""
    t = token.lower()
    if "-" in t.strip("-"):  # "UH-HUH", "OH-OH", "I-LOVE-YOU": a sound or a stammer
        return all(_interjection(part) for part in t.split("-") if part)
    return re.search(r"(.)\1\1", t) is not None or re.sub(r"(.)\1+", r"\1", t) in STOP_WORDS


def _clean(candidate: str) -> list[str]:
    tokens = [t.strip("'-") for t in candidate.split()]
    if len(tokens) > 1 and tokens[0].lower() in TITLES:
        tokens = tokens[1:]  # "PRIVATE PINTO" is Pinto
    # a name is the capitalised run before the first stop word ("STEENIE I" -> "STEENIE")
    out = []
    for t in tokens:
        if not t or t.lower() in STOP_WORDS or len(t) < 2 or _interjection(t) or _possessive(t):
            break
        out.append(t)
    return out


def _possessive(token: str) -> bool:
    """ "MYRRAH'S": someone's, not someone spoken to."""
    return token.upper().endswith(("'S", "’S"))


def titled_vocatives(text: str) -> list[str]:
    """Names after a title that opens a sentence ("MR. KEMAL I-I ..." -> ["KEMAL"])."""
    out = []
    for m in _TITLED.finditer(_norm(text)):
        if m.group(1).lower() in TITLES:
            tokens = _clean(m.group(2))
            if tokens:
                out.append(tokens[0])
    return out


def vocatives(text: str) -> list[str]:
    """Candidate names a balloon addresses ("STEENIE, I ..." -> ["STEENIE"])."""
    t = _norm(text)
    found = []
    for rx in (_LEAD, _MID):
        for m in rx.finditer(t):
            tokens = _clean(m.group(1))
            if tokens and len(tokens) == len(m.group(1).split()):
                found.append(" ".join(tokens))
    return found


def self_introductions(text: str) -> list[str]:
    """Names a speaker gives for themself ("I'M DOUGAL MACCALLUM" -> ["DOUGAL MACCALLUM"])."""
    out = []
    for m in _SELF.finditer(_norm(text)):
        tokens = _clean(m.group(1))
        if tokens:
            out.append(" ".join(tokens))
    return out


_FIRST_PERSON_TEXT = "i me my mine myself we our ours ourselves i'm i've i'd i'll we're we've we'd we'll"
#: the narrator speaking of themself: "I FOUND MYSELF IN DAVID'S HOUSE" (not "US": "U.S.")
_FIRST_PERSON = frozenset(_FIRST_PERSON_TEXT.split())


def first_person(text: str) -> bool:
    """Whether a caption is told by someone in the story ("I REACHED THE TIME WHEN DAVID
    AND I ..."): the name it says is then one more person than its narrator."""
    return any(w.strip(".,!?;:-\"'") in _FIRST_PERSON for w in _norm(text).lower().split())


def name_key(name: str) -> str:
    """Mentions of one person share their first word, case-folded ("STEENIE STEENSON" ~ "STEENIE")."""
    return name.split()[0].casefold()


@functools.cache
def comic_words() -> frozenset[str]:
    """Interjections, sounds, baby talk and dialect comics print, which are never names
    (``names/data/comic_words.txt``, read once per process)."""
    text = resources.files("panelvox.names").joinpath("data/comic_words.txt").read_text("utf-8")
    return frozenset(w for line in text.splitlines() for w in line.split("#")[0].split())


def _stammer(token: str) -> bool:
    """ "S-SO", "Y-YES", "W-WAIT": a stammered word, each part the start of the next."""
    parts = [p for p in token.lower().split("-") if p]
    return len(parts) > 1 and all(parts[-1].startswith(p) or p.startswith(parts[-1][:1]) for p in parts[:-1])


def is_name_word(token: str, words: WordList, known: Iterable[str] = ()) -> bool:
    """Could ``token`` be someone's name? Never a stop word, an interjection, a sound, a
    stammer, a dictionary word or anything without a vowel; a name the book lists (ComicInfo)
    or the user gave always can."""
    key = token.strip("'-").casefold()
    if key in {name_key(k) for k in known}:
        return True
    if len(key) < 3 or not re.fullmatch(r"[a-z][a-z'\-]*[a-z]", key) or not re.search(r"[aeiouy]", key):
        return False
    if key in STOP_WORDS or key in comic_words() or _interjection(key) or _stammer(key) or _possessive(key):
        return False
    if "-" in key:  # "GARR-RGH", "BLAH-BLAH": sounds; "MARY-LOU": both halves are names
        return all(is_name_word(part, words) for part in key.split("-"))
    return not words.knows(key) and not words.knows(key.rstrip("'"))


@dataclass(frozen=True, slots=True)
class Mention:
    """One place the page's words say a name."""

    name: str  # as printed ("DOUGAL", "DOUGAL MACCALLUM")
    source: NameSource
    block: str  # the text block that says it

    @property
    def key(self) -> str:
        return name_key(self.name)


def display_name(name: str, known: Iterable[str] = ()) -> str:
    """How a name is said: the book's own spelling ("Dougal MacCallum"), else title case."""
    spelled = {name_key(k): " ".join(k.split()) for k in known if k.strip()}
    return spelled.get(name_key(name)) or name_key(name).title()


def page_mentions(analysis: PageAnalysis, words: WordList, known: Sequence[str] = ()) -> list[Mention]:
    """Every name the page's words say, in reading order, that could be a name.

    Balloons: who is called ("STEENIE, COME HERE!", "MR. KEMAL …") and who introduces
    themself ("I'M DOUGAL"); captions: the words that could be names ("AND SO STEENIE WENT").
    """
    out: list[Mention] = []
    for b in analysis.blocks_in_order():
        if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            said = vocatives(b.text)
            said += [n for n in titled_vocatives(b.text) if n not in said]
            out += [
                Mention(n, NameSource.VOCATIVE, b.id)
                for n in said
                if is_name_word(n.split()[0], words, known)
            ]
            own = [n for n in self_introductions(b.text) if is_name_word(n.split()[0], words, known)]
            out += [Mention(n, NameSource.SELF, b.id) for n in own]
            # every other name word of the balloon: said of someone who is not its speaker
            taken = {w for n in (*said, *own) for w in n.split()}
            for found in dict.fromkeys(re.findall(_WORD, _norm(b.text))):
                token = found.strip("'-")
                if _possessive(token):
                    token = token[:-2]  # "MYRRAH'S FATHER" speaks of Myrrah
                if token not in taken and is_name_word(token, words, known):
                    out.append(Mention(token, NameSource.SAID, b.id))
        elif b.kind is BalloonKind.CAPTION:
            for found in re.findall(_WORD, _norm(b.text)):
                token = found.strip("'-")  # "TOWN-" cut at the line's end is "TOWN"
                if _possessive(token):
                    token = token[:-2]  # "STEENIE'S DOG" still says who
                if is_name_word(token, words, known):
                    out.append(Mention(token, NameSource.CAPTION, b.id))
    return out
