"""Who a name on the page belongs to, and which persons are named.

The speakers stage groups the page's balloons into persons (each link's ``character`` is a
person, their figures share a ``cluster``). A mention (:mod:`panelvox.names.evidence`) points
at a person:

- a **vocative** names the one spoken to, never the speaker: the person who answers (the
  next balloon of the conversation, in the same or the next panel), else, when the
  speaker goes on talking, the one they answered (the balloon before); and it says the
  *speaker* is not that name;
- a **self-introduction** names the speaker;
- a name **said** otherwise ("BELE KAHR IS CRUEL") names no one, and says the speaker is not
  that name (people speak of others by name, of themselves as "I");
- a **caption** may name the one person who speaks in its panel, when it names no one else
  and is not told in the first person ("I FOUND MYSELF IN DAVID'S HOUSE": the narrator is a
  second person, and the one who speaks may be either).

A name is given only with evidence that holds, because a wrong name said as fact is the one
thing a listener cannot catch. The evidence: two independent mentions on the page pointing
at one person (vocatives answered by them in two panels, or a vocative and a
self-introduction or a caption), or one exchange when the book lists the name (ComicInfo
``Characters``, a user's rename), or one call answered *in its own panel* when the book's
other pages say the name twice (an answer in the next panel may be the next scene's voice).
A caption supports a name but never holds one alone: it says who its panel is about, and the
one who speaks there may be someone else. The name must be said at least twice in the book
(a misread word is not); a vocative counts only in a two-person exchange (with three, who
is spoken to is a guess) and never for the one who says it; a name two persons would get
goes to neither. The name lands on the figures the evidence that held it points at (the
balloon that answers a call; never a caption naming two people), not on every panel the
grouping gave the person: whether the boy of panel 4 is the boy called in panel 1 is itself
a guess. A figure one of whose balloons calls the name is never given it (two balloons tied
to one figure are two people).

Said as fact only when the book lists the name and two independent mentions hold it; every
other name the words give is said as a guess ("probably Kala"): who is called and who
answers are read from the conversation alone. Weaker evidence names nobody: the person is
"character N".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from panelvox.analysis.lettering import WordList
from panelvox.model import Balloon, BalloonKind, PageAnalysis
from panelvox.names.evidence import Mention, NameSource, display_name, first_person, name_key, page_mentions

#: how sure a name is that the book lists and two mentions on the page hold (said as fact)
SURE = 0.8
#: how sure any other name from the words is: who is called, and who answers, are read
#: from the conversation alone, right about three times in four on the cib pages; said
#: "probably Kala", the cue the listener can tell apart
GUESS = 0.45
#: the page's mentions a name needs; one for a name the book lists or the user gave
_NEEDED = 2


@dataclass(frozen=True, slots=True)
class NameEvidence:
    """One mention tied to the person it names (or, ``against``, the person it cannot name)."""

    name: str
    person: str  # the person's character id (their first figure on the page)
    source: NameSource
    block: str
    against: bool = False
    #: the balloon the evidence lands on: the answer to a vocative, the introduction itself
    landed: str | None = None


class _Vote(NamedTuple):
    """One independent piece of evidence: where it is said, how, and whether the balloon it
    lands on is in that same panel (a call answered there, not in the next scene)."""

    place: str
    source: NameSource
    in_panel: bool


def _vote(e: NameEvidence, panel_of: Mapping[str, str | None]) -> _Vote:
    here = panel_of.get(e.block)
    return _Vote(here or e.block, e.source, here is not None and here == panel_of.get(e.landed or ""))


def person_evidence(analysis: PageAnalysis, mentions: Sequence[Mention]) -> list[NameEvidence]:
    """Every mention tied to the person it points at (and vocatives against their speakers)."""
    said = [
        (b, link.character)
        for b in analysis.blocks_in_order()
        if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)
        and (link := analysis.speaker_of(b.id)) is not None
        and link.character is not None
    ]
    index = {b.id: k for k, (b, _who) in enumerate(said)}
    panel_rank = {p.id: k for k, p in enumerate(analysis.panels_in_order())}
    out: list[NameEvidence] = []
    for m in mentions:
        if m.source is NameSource.CAPTION:
            found = _caption_person(analysis, m.block)
            if found is not None:
                out.append(NameEvidence(m.name, found[1], m.source, m.block, landed=found[0].id))
            continue
        k = index.get(m.block)
        if k is None:
            continue
        speaker = said[k][1]
        if m.source is NameSource.SELF:
            out.append(NameEvidence(m.name, speaker, m.source, m.block, landed=m.block))
            continue
        out.append(NameEvidence(m.name, speaker, m.source, m.block, against=True))
        if m.source is NameSource.SAID:
            continue  # a name spoken of: nobody on the page is shown to be its bearer
        answer = _answerer(said, k, panel_rank)
        if answer is not None and _two_party(said, said[k][0], answer[0]):
            out.append(NameEvidence(m.name, answer[1], m.source, m.block, landed=answer[0].id))
    return out


def _answerer(
    said: Sequence[tuple[Balloon, str]], k: int, panel_rank: dict[str, int]
) -> tuple[Balloon, str] | None:
    """The other side of the exchange at balloon ``k``: who answers, else who was answered."""
    block, speaker = said[k]
    here = panel_rank.get(block.panel or "", -1)
    for j in (k + 1, k - 1):
        if not 0 <= j < len(said):
            continue
        other, who = said[j]
        there = panel_rank.get(other.panel or "", -1)
        if who != speaker and here >= 0 and there >= 0 and abs(there - here) <= 1:
            return other, who
        if who != speaker:
            return None  # the next voice is too far away to be the one spoken to
    return None


def _two_party(said: Sequence[tuple[Balloon, str]], call: Balloon, answer: Balloon) -> bool:
    """Only two people talk in the panels of a call and its answer: the one called is the other."""
    panels = {call.panel, answer.panel}
    return None not in panels and len({who for b, who in said if b.panel in panels}) == 2


def _caption_person(analysis: PageAnalysis, caption_id: str) -> tuple[Balloon, str] | None:
    """The one person who speaks in a caption's panel, with their first balloon there."""
    caption = next((b for b in analysis.blocks if b.id == caption_id), None)
    if caption is None or caption.panel is None or first_person(caption.text):
        return None  # told by a narrator in the story: the name is someone they speak of
    said = [
        (b, link.character)
        for b in analysis.blocks_of(caption.panel)
        if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)
        and (link := analysis.speaker_of(b.id)) is not None
        and link.character is not None
    ]
    return said[0] if len({who for _b, who in said}) == 1 else None


def name_persons(
    analysis: PageAnalysis,
    mentions: Sequence[Mention],
    on_page: Mapping[str, int],
    other_pages: Callable[[str], int],
    known: Iterable[str] = (),
) -> PageAnalysis:
    """``analysis`` with the names its mentions hold put on the figures they land on.

    ``on_page`` counts the page's mentions of each name key, ``other_pages(key)`` how often
    the book's other analysed pages say it; ``known`` are the book's own names
    (ComicInfo, the user's), which need one exchange and give the spelling.
    """
    known = tuple(known)
    known_keys = {name_key(k) for k in known}
    evidence = person_evidence(analysis, mentions)
    # a caption naming two people ("CHAD TELLS KALA") says nothing about either
    caption_names: dict[str, set[str]] = defaultdict(set)
    for e in evidence:
        if e.source is NameSource.CAPTION:
            caption_names[e.block].add(name_key(e.name))
    refused = {(e.person, name_key(e.name)) for e in evidence if e.against}
    # what counts, for the votes and for where a name lands alike: never a caption naming two
    # people, never a word the whole book says once (a misread is said once)
    usable = [
        e
        for e in evidence
        if not e.against
        and not (e.source is NameSource.CAPTION and len(caption_names[e.block]) > 1)
        and (
            name_key(e.name) in known_keys
            or on_page.get(name_key(e.name), 0) + other_pages(name_key(e.name)) >= 2
        )
    ]
    # independent evidence: two exchanges (two panels) or two kinds of mention (a vocative and
    # a self-introduction or caption), not a name called twice in one breath
    panel_of = {b.id: b.panel for b in analysis.blocks if b.panel}
    votes: dict[tuple[str, str], set[_Vote]] = defaultdict(set)  # (person, name key) -> evidence
    spelled: dict[str, str] = {}
    for e in usable:
        key = name_key(e.name)
        votes[(e.person, key)].add(_vote(e, panel_of))
        spelled.setdefault(key, e.name)
    # held: the book lists the name (one exchange), two pieces of evidence on the page point at
    # the person, or one exchange within a panel does and the book's other pages say the name
    # twice; never a caption alone (it says who its panel is about, who speaks may be another)
    held = {
        pk: got
        for pk, got in votes.items()
        if pk not in refused
        and any(v.source is not NameSource.CAPTION for v in got)
        and (
            pk[1] in known_keys
            or len({(v.place, v.source) for v in got}) >= _NEEDED
            or (
                other_pages(pk[1]) >= _NEEDED
                and any(v.source is not NameSource.CAPTION and v.in_panel for v in got)
            )
        )
    }
    by_person: dict[str, str] = {}  # person -> the name key it holds
    for person in {p for p, _ in held}:
        names = sorted(((len(b), k) for (p, k), b in held.items() if p == person), reverse=True)
        if len(names) == 1 or names[0][0] > names[1][0]:
            by_person[person] = names[0][1]
    holders: dict[str, list[str]] = defaultdict(list)
    for person, key in by_person.items():
        holders[key].append(person)
    named = {p: k for p, k in by_person.items() if len(holders[k]) == 1}  # one name, one person
    if not named:
        return analysis
    # the name reaches the figures the evidence landed on, not the person's other figures:
    # grouping balloons into persons across panels is too unsure to carry a name said as fact
    figure_of = {link.balloon: link.figure or link.character for link in analysis.speakers}
    # a figure that says "Yes, Kala!" is not Kala, even when the answer's tail was tied to it too
    calls_out = {(figure_of.get(e.block), name_key(e.name)) for e in evidence if e.against}
    landed: dict[str, str] = {}
    for e in usable:
        if e.landed and named.get(e.person) == name_key(e.name):
            fig = figure_of.get(e.landed)
            if fig is not None and (fig, named[e.person]) not in calls_out:
                landed[fig] = named[e.person]
    sure = {p for p, k in named.items() if k in known_keys and len(held[(p, k)]) >= _NEEDED}
    sure_keys = {named[p] for p in sure}
    chars = []
    for c in analysis.characters:
        chosen = landed.get(c.id)
        if chosen is not None and c.name is None:
            confidence = SURE if chosen in sure_keys else GUESS
            c = replace(c, name=display_name(spelled[chosen], known), name_confidence=confidence)
        chars.append(c)
    return replace(analysis, characters=tuple(chars))


def name_page(analysis: PageAnalysis, words: WordList, known: Iterable[str] = ()) -> PageAnalysis:
    """``analysis`` named from its own words alone (a name said twice on it is usable)."""
    known = tuple(known)
    mentions = page_mentions(analysis, words, known)
    counts = Counter(m.key for m in mentions if m.source is not NameSource.SAID)
    return name_persons(analysis, mentions, counts, lambda _key: 0, known)
