"""Character names learned from what is written on the page.

As the CoMix annotations put it, "whenever the character names are spoken in the text
boxes, their names propagate on the whole story". Evidence comes from:

- **vocatives**: "STEENIE, I HAVE BEEN LOOKING FOR YOU" names the one spoken *to*: the
  only other character of the panel (never the speaker), or with more in the panel, as a
  guess, the one who spoke just before or answers just after;
- **self-introductions**: "I'M DOUGAL MACCALLUM" names the speaker;
- **captions** naming who acts ("AND SO STEENIE WENT ..."), when their panel holds a single
  figure, the page says the name twice (one odd word in a caption is often a misread)
  and the caption names no one else;
- the book's ComicInfo ``Characters`` list, which lets a name that is also an English word
  ("CURT") count from one mention and gives the spelling to use.

A word that is also an English word must be named twice on the page (or be listed in
ComicInfo) before it counts, so "RUN!" or "HONEY!" never become names. Names then spread
to every character of the same identity cluster on the page (:func:`name_page`), and by
look to the book's other pages (:class:`panelvox.names.book_names.BookNames`). A
character without a name is "character N", numbered by its first line on the page
(:mod:`panelvox.names.labels`), never a made-up description.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from panelvox.analysis.lettering import WordList
from panelvox.model import BalloonKind, PageAnalysis, SpeakerLink

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
#: ways to address someone that say who they are in the story ("PROFESSOR!", "SARGE?"):
#: used as a role name for whoever is spoken to when no proper name is known
_ROLE_TEXT = """
    professor sarge sergeant captain doc doctor chief boss colonel general lieutenant
    major sheriff judge nurse officer mom dad grandpa grandma uncle auntie
"""
ROLES = frozenset(_ROLE_TEXT.split())
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
# a role word closing a sentence, not after an article or possessive: "... WANT IT, PROFESSOR!"
_ROLE_END = re.compile(r"(?<!\bTHE )(?<!\bA )(?<!\bMY )(?<!\bYOUR )(?<!\bHIS )(?<!\bHER )\b([A-Z]+)\s*[!?]")


class NameSource(Enum):
    VOCATIVE = "vocative"
    SELF = "self-introduction"
    CAPTION = "caption"
    ROLE = "role"  # "PROFESSOR!": a role, used only where no proper name is known
    USER = "user"


@dataclass(frozen=True, slots=True)
class NameEvidence:
    """One mention of a name and the character it names."""

    name: str
    character: str
    source: NameSource
    block: str
    confidence: float


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


def role_vocatives(text: str) -> list[str]:
    """Roles someone is addressed by ("IF THAT'S THE WAY YOU WANT IT PROFESSOR!" -> ["PROFESSOR"])."""
    t = _norm(text)
    found = [m.group(1) for m in _ROLE_END.finditer(t) if m.group(1).lower() in ROLES]
    for rx in (_LEAD, _MID):
        found += [m.group(1) for m in rx.finditer(t) if m.group(1).lower() in ROLES]
    return list(dict.fromkeys(found))


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


def _key(name: str) -> str:
    """Mentions of one person share their first word ("STEENIE STEENSON" ~ "STEENIE")."""
    return name.split()[0].casefold()


def _display(name: str, known: dict[str, str]) -> str:
    key = _key(name)
    return known.get(key) or key.title()


def _known(known_names: Iterable[str]) -> dict[str, str]:
    return {_key(n): n.strip() for n in known_names if n.strip()}


def _plausible(name: str, counts: Counter[str], known: dict[str, str], words: WordList) -> bool:
    key = _key(name)
    if key in known:
        return True
    if words.knows(key):  # an English word: needs a second mention
        return counts[key] >= 2
    return True


def name_evidence(
    analysis: PageAnalysis, words: WordList, known_names: Sequence[str] = ()
) -> list[NameEvidence]:
    """Every name mention on the page tied to the character it names.

    ``words`` tells names from ordinary English words ("CURT" needs a second mention).
    """
    known = _known(known_names)
    links = {s.balloon: s for s in analysis.speakers}
    bodies = [c for c in analysis.characters if c.kind != "face"]
    mentions: list[tuple[str, NameSource, str]] = []  # name, source, block id
    for b in analysis.blocks_in_order():
        if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            said = vocatives(b.text)
            said += [n for n in titled_vocatives(b.text) if n not in said]
            said = [n for n in said if _key(n) not in ROLES]  # "PROFESSOR!" is a role, below
            mentions += [(n, NameSource.VOCATIVE, b.id) for n in said]
            mentions += [(n, NameSource.SELF, b.id) for n in self_introductions(b.text)]
            mentions += [(n, NameSource.ROLE, b.id) for n in role_vocatives(b.text)]
        elif b.kind is BalloonKind.CAPTION:
            for found in re.findall(_WORD, _norm(b.text)):
                token = found.strip("'-")  # "TOWN-" cut at the line's end is "TOWN"
                key = token.casefold()
                if _possessive(token):
                    token, key = token[:-2], key[:-2]  # "STEENIE'S DOG" still says who
                if key in known or (key not in STOP_WORDS and len(key) > 2 and not words.knows(key)):
                    mentions.append((token, NameSource.CAPTION, b.id))
    counts = Counter(_key(n) for n, _, _ in mentions)

    def caption_name(name: str) -> bool:
        # one odd word in a caption is as often a misread word as a name
        key = _key(name)
        return _plausible(name, counts, known, words) and (counts[key] >= 2 or key in known)

    in_caption: dict[str, set[str]] = defaultdict(set)  # caption block -> the names it says
    for name, source, block_id in mentions:
        if source is NameSource.CAPTION and caption_name(name):
            in_caption[block_id].add(_key(name))
    blocks = {b.id: b for b in analysis.blocks}
    out = []
    for name, source, block_id in mentions:
        if source is not NameSource.ROLE and not _plausible(name, counts, known, words):
            continue
        if source is NameSource.CAPTION and (not caption_name(name) or len(in_caption[block_id]) > 1):
            continue  # a misread word, or "CHAD TELLS KALA": which one is the figure?
        link: SpeakerLink | None = links.get(block_id)
        panel = blocks[block_id].panel
        in_panel = [c for c in bodies if c.panel == panel and panel is not None]
        speaker = link.character if link is not None else None
        target: str | None = None
        conf = 0.0
        if source is NameSource.SELF and speaker is not None:
            target, conf = speaker, 0.8 * (link.confidence if link else 0.5) + 0.15
        elif source in (NameSource.VOCATIVE, NameSource.ROLE) and speaker is not None:
            speaker_cluster = next((c.cluster for c in bodies if c.id == speaker), None)
            others = [
                c for c in in_panel if c.id != speaker and (c.cluster is None or c.cluster != speaker_cluster)
            ]
            if len(others) == 1:
                target, conf = others[0].id, (0.6 if source is NameSource.VOCATIVE else 0.3)
            elif others and source is NameSource.VOCATIVE:
                # more people in the panel: the one who spoke just before (a reply names
                # who it answers), else the one who answers next; said as a guess
                target = _partner(block_id, panel, speaker, {c.id for c in others}, analysis, links)
                conf = 0.45
        elif source is NameSource.CAPTION and len(in_panel) == 1:
            target, conf = in_panel[0].id, 0.35
        if target is not None:
            out.append(NameEvidence(_display(name, known), target, source, block_id, round(conf, 3)))
    return out


def _partner(
    block_id: str,
    panel: str | None,
    speaker: str,
    others: set[str],
    analysis: PageAnalysis,
    links: Mapping[str, SpeakerLink],
) -> str | None:
    """The other side of an exchange: the panel's speaker just before ``block_id``, else after."""
    spoken = [
        b.id
        for b in analysis.blocks_in_order()
        if b.panel == panel and b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)
    ]
    k = spoken.index(block_id)
    for j in (k - 1, k + 1):
        link = links.get(spoken[j]) if 0 <= j < len(spoken) else None
        who = link.character if link is not None else None
        if who is not None and who != speaker:
            return who if who in others else None
    return None


def name_page(analysis: PageAnalysis, words: WordList, known_names: Sequence[str] = ()) -> PageAnalysis:
    """``analysis`` with names from its own text given to characters and their clusters."""
    evidence = name_evidence(analysis, words, known_names)
    if not evidence:
        return analysis
    cluster_of = {c.id: (c.cluster or c.id) for c in analysis.characters}
    votes: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    proper: dict[str, set[str]] = defaultdict(set)  # names that are not roles, per key
    for e in evidence:
        # the cluster's votes name its members; a figure's own votes name it first (the
        # colour look can join two people in one cluster, what is said to each one is not)
        for key in (cluster_of.get(e.character, e.character), f"own:{e.character}"):
            votes[key][e.name] += e.confidence
            if e.source is not NameSource.ROLE:
                proper[key].add(e.name)
    # a proper name always beats a role ("Kemal" over "Professor"); then the votes decide
    best = {k: max(v, key=lambda n: (n in proper[k], v[n], n)) for k, v in votes.items()}
    # how sure: the evidence for the name, summed (one vocative 0.6, a role or a caption
    # alone stays under one half and is said "probably")
    sure = {k: min(1.0, votes[k][n]) for k, n in best.items()}
    chars = []
    for c in analysis.characters:
        key = f"own:{c.id}" if f"own:{c.id}" in best else cluster_of[c.id]
        if c.name is None and key in best:
            c = replace(c, name=best[key], name_confidence=round(sure[key], 3))
        chars.append(c)
    return replace(analysis, characters=tuple(chars))
