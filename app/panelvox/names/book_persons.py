"""Persons of the book: the speaking persons of each page grouped into persons of the story.

The speakers stage groups a page's balloons into *page persons* (one cluster id per person on
its page). A listener hears a story, so the page persons of the book's analysed pages are
grouped once more, across pages, into *book persons*: the ``person`` id of the page JSON,
the same string on every page where Panelvox believes the same person speaks.

Whether two page persons (on two pages) are one person is decided for each pair by a small
logistic model (:data:`MODEL_FILE`, made by ``scripts/train_speaker_model.py`` on the cib
golden scripts, reported with every story held out) over what the pages show and say:

- what they look like (the mean appearance of where their balloons point);
- the names their pages give them (the same name is one person, two names are two), and the
  names they call out ("Lars!" is said *to* Lars: whoever calls a name is not that person);
- how much they speak (the one who says most on two pages is often the story's lead), and
  whether either is a voice that is never seen.

Page persons are then grouped by average linkage on the pair log-odds plus a merge bias,
never joining two persons of one page (the page's own grouping already told them apart).
The result is a pure function of the *set* of pages given: the order they were read in
never changes it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from panelvox.analysis.speaker_identity import grams
from panelvox.logistic import LogisticModel
from panelvox.model import BalloonKind, PageAnalysis
from panelvox.names.persons import GUESS

MODEL_FILE = "data/person_links.json"
MODEL_FORMAT = "panelvox.person-links/1"
#: the pair log-odds given to two persons of one page: never one person
_APART = -1e6

FEATURES: tuple[str, ...] = (
    "look_similarity",
    "look_missing",
    "same_name",
    "other_names",
    "calls_the_other",
    "both_lead",
    "one_lead",
    "min_share",
    "max_share",
    "both_voices",
    "a_voice",
    "pages_apart",
    "persons_on_pages",
    "words_alike",
    "same_calls",
    "both_think",
)


@dataclass(frozen=True, slots=True)
class PagePerson:
    """One speaking person of one page, as the book's grouping sees it."""

    page: int
    #: the person's cluster on its page ("k2"): the key the page's figures share
    key: str
    lines: int
    #: share of the page's dialogue balloons this person says
    share: float
    #: says the most balloons on the page (ties: the first heard)
    lead: bool
    voice: bool
    look: tuple[float, ...]
    #: the name key the page's words hold for this person (the names pass), or None
    name: str | None
    #: the page alone holds the name as fact (the book lists it and two mentions hold it)
    name_sure: bool
    #: name keys this person calls out on the page (never their own)
    calls: frozenset[str]
    persons_on_page: int
    #: letter trigrams of everything they say on the page (the way they speak), as a unit vector
    words: Mapping[str, float] = field(default_factory=dict)
    #: some of their balloons are thoughts
    thinks: bool = False

    @property
    def ident(self) -> tuple[int, str]:
        return (self.page, self.key)


def page_persons(
    analysis: PageAnalysis, calls: Mapping[str, frozenset[str]] | None = None
) -> list[PagePerson]:
    """The speaking persons of a named page, in order of their first balloon.

    ``calls`` maps a balloon id to the name keys it calls out (vocatives).
    """
    calls = calls or {}
    chars = {c.id: c for c in analysis.characters}
    said: dict[str, list[str]] = {}  # page person key -> its balloons
    text: dict[str, list[str]] = {}
    thought: set[str] = set()
    own: dict[str, str] = {}  # key -> the person's own figure id
    for b in analysis.blocks_in_order():
        if b.kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            continue
        link = analysis.speaker_of(b.id)
        who = chars.get(link.character) if link is not None and link.character else None
        if who is None:
            continue
        key = who.cluster or who.id
        said.setdefault(key, []).append(b.id)
        text.setdefault(key, []).append(b.text)
        own.setdefault(key, who.id)
        if b.kind is BalloonKind.THOUGHT:
            thought.add(key)
    total = sum(len(v) for v in said.values())
    most = max((len(v) for v in said.values()), default=0)
    lead_key = next((k for k, v in said.items() if len(v) == most), None)
    out = []
    for key, balloons in said.items():
        who = chars[own[key]]
        named = [
            c
            for c in analysis.characters
            if (c.cluster or c.id) == key and c.name is not None and c.name_confidence < 1.0
        ]
        out.append(
            PagePerson(
                page=analysis.page,
                key=key,
                lines=len(balloons),
                share=len(balloons) / total,
                lead=key == lead_key,
                voice=who.kind == "voice",
                look=who.look,
                name=_key(named[0].name or "") if named else None,
                name_sure=bool(named) and named[0].name_confidence >= HELD,
                calls=frozenset(k for b in balloons for k in calls.get(b, ())),
                persons_on_page=len(said),
                words=_unit(grams(" ".join(text[key]))),
                thinks=key in thought,
            )
        )
    return out


def _key(name: str) -> str:
    return " ".join(name.upper().split())


def _unit(counts: Counter[str]) -> dict[str, float]:
    norm = math.sqrt(sum(n * n for n in counts.values()))
    return {k: n / norm for k, n in counts.items()} if norm else {}


def _dot(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return sum(w * large.get(k, 0.0) for k, w in small.items())


def look_similarity(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cosine similarity of two looks; None when either is missing."""
    if not a or not b or len(a) != len(b):
        return None
    va, vb = np.asarray(a, np.float64), np.asarray(b, np.float64)
    den = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / den if den > 0 else None


def link_features(u: PagePerson, v: PagePerson) -> list[float]:
    """The features of page persons ``u`` and ``v`` (of two pages), in :data:`FEATURES` order."""
    sim = look_similarity(u.look, v.look)
    names = u.name is not None and v.name is not None
    return [
        sim if sim is not None else 0.0,
        float(sim is None),
        float(names and u.name == v.name),
        float(names and u.name != v.name),
        float((v.name is not None and v.name in u.calls) or (u.name is not None and u.name in v.calls)),
        float(u.lead and v.lead),
        float(u.lead != v.lead),
        min(u.share, v.share),
        max(u.share, v.share),
        float(u.voice and v.voice),
        float(u.voice != v.voice),
        min(abs(u.page - v.page), 4) / 4,
        min(u.persons_on_page + v.persons_on_page, 8) / 8,
        _dot(u.words, v.words),
        float(bool(u.calls & v.calls)),
        float(u.thinks and v.thinks),
    ]


class PersonModel(LogisticModel):
    """The log-odds that both page persons of each row are one person of the book."""

    __slots__ = ()
    WHAT, FORMAT, FEATURES = "the person link model", MODEL_FORMAT, FEATURES
    PACKAGE, FILE = "panelvox.names", MODEL_FILE


#: a remembered pair log-odds: the two page persons and the names their pages hold
LinkKey = tuple[tuple[int, str], tuple[int, str], str | None, str | None]


def link_matrix(
    persons: Sequence[PagePerson], model: PersonModel, memo: dict[LinkKey, float] | None = None
) -> npt.NDArray[np.float64]:
    """Pair log-odds of every two page persons (persons of one page: never one); ``memo``
    keeps them between calls (a page person's features change only with its page's name)."""
    n = len(persons)
    score = np.full((n, n), _APART)
    memo = memo if memo is not None else {}
    key = {i: (p.ident, p.name) for i, p in enumerate(persons)}
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if persons[i].page != persons[j].page]
    todo = [(i, j) for i, j in pairs if (key[i][0], key[j][0], key[i][1], key[j][1]) not in memo]
    if todo:
        rows = np.array([link_features(persons[i], persons[j]) for i, j in todo], np.float64)
        for (i, j), lo in zip(todo, model.log_odds(rows), strict=True):
            memo[(key[i][0], key[j][0], key[i][1], key[j][1])] = float(lo)
    for i, j in pairs:
        score[i, j] = score[j, i] = memo[(key[i][0], key[j][0], key[i][1], key[j][1])]
    return score


#: a long book's persons are grouped within runs of this many pages (a chapter or more): the
#: grouping compares every two page persons, which a whole manga volume makes too many
BLOCK_PAGES = 40


def group_book(
    persons: Sequence[PagePerson], model: PersonModel, memo: dict[LinkKey, float] | None = None
) -> list[int]:
    """Book person labels 0, 1 … (in order of first appearance) for ``persons``.

    Average linkage on the pair log-odds plus the merge bias: the two groups whose mean is
    highest merge while it is above zero; two persons of one page never share a group; pages
    are grouped in runs of :data:`BLOCK_PAGES`. Pure in the set: the persons are taken in
    (page, key) order whatever order they came in. ``memo`` keeps pair log-odds between calls.
    """
    n = len(persons)
    if n == 0:
        return []
    order = sorted(range(n), key=lambda i: persons[i].ident)
    label_of: dict[int, int] = {}
    for block in sorted({(persons[i].page - 1) // BLOCK_PAGES for i in order}):
        ids = [i for i in order if (persons[i].page - 1) // BLOCK_PAGES == block]
        base = len(set(label_of.values()))
        for i, g in zip(ids, _group_run([persons[i] for i in ids], model, memo), strict=True):
            label_of[i] = base + g
    return [label_of[i] for i in range(n)]


def _group_run(
    ranked: Sequence[PagePerson], model: PersonModel, memo: dict[LinkKey, float] | None
) -> list[int]:
    """:func:`group_book` over persons already in (page, key) order: labels in that order."""
    n = len(ranked)
    score = link_matrix(ranked, model, memo) + model.merge_bias
    page_index = {page: k for k, page in enumerate(sorted({p.page for p in ranked}))}
    on_page = np.zeros((n, len(page_index)), np.float64)  # group x page: the group has a person there
    for i, p in enumerate(ranked):
        on_page[i, page_index[p.page]] = 1.0
    groups: list[list[int]] = [[i] for i in range(n)]
    size = np.ones(n)
    sums = score.copy()  # summed pair log-odds between groups (average linkage: sum / sizes)
    alive = np.ones(n, bool)
    while alive.sum() > 1:
        idx = np.flatnonzero(alive)
        mean = sums[np.ix_(idx, idx)] / np.outer(size[idx], size[idx])
        blocked = (on_page[idx] @ on_page[idx].T) > 0  # share a page (the diagonal included)
        mean[blocked] = -np.inf
        flat = int(np.argmax(mean))
        x, y = divmod(flat, len(idx))
        if not mean[x, y] > 0:
            break
        a, b = int(idx[min(x, y)]), int(idx[max(x, y)])
        sums[a, :] += sums[b, :]
        sums[:, a] += sums[:, b]
        size[a] += size[b]
        on_page[a] += on_page[b]
        groups[a] += groups[b]
        alive[b] = False
    kept = [groups[a] for a in np.flatnonzero(alive)]
    out = [0] * n
    for k, g in enumerate(sorted(kept, key=min)):
        for i in g:
            out[i] = k
    return out


#: a name carried to a page where the person's own words did not hold it (said "probably",
#: and listed apart from a guess the page's own words make, :data:`persons.GUESS`)
CARRIED = 0.4
#: how sure the link model must be that two page persons are one before a name held by one
#: reaches the other: a carried name is heard, and a wrong one is said of the wrong person
CARRY_SURE = 0.9


def carries(model: PersonModel) -> Callable[[PagePerson, PagePerson], bool]:
    """Whether ``model`` is sure enough that two page persons are one to carry a name."""
    floor = math.log(CARRY_SURE / (1 - CARRY_SURE))

    def sure(u: PagePerson, v: PagePerson) -> bool:
        row = np.array([link_features(u, v)], np.float64)
        return bool(model.log_odds(row)[0] >= floor)

    return sure


#: a name held on two pages of the book, or listed by the book and held on one (said as fact)
HELD = 0.8


def person_id(first: PagePerson) -> str:
    """A book person's id: their first page and key there ("b3.k1")."""
    return f"b{first.page}.{first.key}"


#: what the book decided for one page person: (name, confidence, said on all its figures;
#: else only where the page's own evidence put it)
_Decision = tuple[str, float, bool]
_Carry = Callable[[PagePerson, PagePerson], bool]


def name_book(
    pages: Mapping[int, PageAnalysis],
    persons: Sequence[PagePerson],
    groups: Sequence[int],
    user: Mapping[tuple[int, str], str] | None = None,
    carry: _Carry | None = None,
) -> dict[int, PageAnalysis]:
    """Each page with its persons those of the book and their names decided for the book.

    ``pages`` are named page by page (:func:`panelvox.names.persons.name_persons`),
    ``persons`` their page persons and ``groups`` the book person of each. A name is said as
    fact where two pages hold it for the person (or one page holds it as fact: the book lists
    it and two mentions there point at the person), on the figures the page's evidence put
    it on; it reaches the person's other pages as a guess where ``carry(holder, other)``
    allows (default: always). Two names held as often name no one; whoever calls a name is
    never given it. ``user`` maps a page person's ident to the name the user gave it: it
    wins, said as fact on the renamed person's figures.
    """
    members: dict[int, list[PagePerson]] = {}
    for p, g in zip(persons, groups, strict=True):
        members.setdefault(g, []).append(p)
    spelled = {_key(c.name): c.name for page in pages.values() for c in page.characters if c.name is not None}
    person_of: dict[tuple[int, str], str] = {}
    decided: dict[tuple[int, str], _Decision] = {}
    for group in members.values():
        first = min(group, key=lambda p: p.ident)
        person_of.update((p.ident, person_id(first)) for p in group)
        decided.update(_decide(group, user or {}, spelled, carry))
    out = {}
    for number, page in pages.items():
        chars = []
        for c in page.characters:
            ident = (number, c.cluster or c.id)
            got = decided.get(ident)
            said: str | None = None
            conf = 1.0
            if got is not None and (got[2] or c.name is not None):
                said, conf = got[0], got[1]
            chars.append(replace(c, person=person_of.get(ident), name=said, name_confidence=conf))
        out[number] = replace(page, characters=tuple(chars))
    return out


def _decide(
    group: Sequence[PagePerson],
    user: Mapping[tuple[int, str], str],
    spelled: Mapping[str, str],
    carry: _Carry | None,
) -> dict[tuple[int, str], _Decision]:
    """The name of each page person of one person of the book (see :func:`name_book`)."""

    def reaches(holders: Sequence[PagePerson], p: PagePerson) -> bool:
        return all(carry(h, p) for h in holders) if carry is not None else True

    out: dict[tuple[int, str], _Decision] = {}
    renamed = [p for p in sorted(group, key=lambda p: p.ident) if p.ident in user]
    if renamed:
        for p in group:
            if p.ident in user:
                out[p.ident] = (user[p.ident], 1.0, True)
            elif reaches(renamed, p):
                out[p.ident] = (user[renamed[0].ident], CARRIED, True)
        return out
    held: dict[str, set[int]] = {}
    for p in group:
        if p.name is not None:
            held.setdefault(p.name, set()).add(p.page)
    ranked = sorted(held.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    if not ranked or (len(ranked) > 1 and len(ranked[1][1]) == len(ranked[0][1])):
        return out  # nobody named, or two names held as often: no one is named
    name, where = ranked[0]
    said = spelled.get(name, name.title())
    holders = [q for q in group if q.name == name]
    for p in group:
        if name in p.calls:
            continue
        if p.name == name:  # the page's own words hold it: said where they put it
            out[p.ident] = (said, HELD if len(where) >= 2 or p.name_sure else GUESS, False)
        elif reaches(holders, p):
            out[p.ident] = (said, CARRIED, True)
    return out
