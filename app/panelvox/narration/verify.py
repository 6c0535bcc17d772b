"""The verifier: every claim a model makes about a panel is checked against the page.

The four hallucination types of the page-narration study are flagged, each flag with its
evidence (for the log and for the eval):

1. QUOTE — quoting text that is not there: any quoted or reported ("X says that ...")
   dialogue must fuzzily match text the OCR found on the page; otherwise the claim is dropped.
2. MISATTRIBUTION — "X says ..." must agree with the speaker stage about the balloon it matches.
3. SCENERY — objects, setting and summary: agreement across samples (self-consistency) and
   the model's token probabilities; low agreement is flagged as uncertain.
4. CHARACTER — the number of characters must agree with the detections, names with the
   known names, and attributes (appearance, expression, posture, action) with the other samples.

Flagged claims are then dropped or spoken with the uncertainty cue (the user's choice,
:class:`FlaggedPolicy`); a QUOTE flag always drops.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from panelvox.model import BalloonKind, PageAnalysis
from panelvox.narration.describe import (
    Claim,
    ClaimKind,
    PanelClaims,
    PanelDescription,
    known_names,
)
from panelvox.narration.script import said_by, speaker_labels
from panelvox.textmatch import partial_similarity, word_form


class Hallucination(Enum):
    QUOTE = "quote-not-on-page"
    MISATTRIBUTION = "misattribution"
    SCENERY = "object-scenery"
    CHARACTER = "character-description"

    @property
    def flag(self) -> str:
        """The string put in ``Utterance.flags``."""
        return f"hallucination:{self.value}"


class Decision(Enum):
    KEEP = "keep"
    UNCERTAIN = "uncertain"
    DROP = "drop"


class FlaggedPolicy(Enum):
    """What happens to a claim flagged as uncertain (the user's choice)."""

    CUE = "cue"  # spoken with the uncertainty cue
    DROP = "drop"  # not spoken


@dataclass(frozen=True, slots=True)
class HallucinationFlag:
    type: Hallucination
    evidence: str


@dataclass(frozen=True, slots=True)
class VerifiedClaim:
    claim: Claim
    decision: Decision
    flags: tuple[HallucinationFlag, ...] = ()
    agreement: float | None = None  # share of other samples that say the same; None: one sample
    confidence: float = 1.0

    @property
    def spoken(self) -> bool:
        return self.decision is not Decision.DROP


@dataclass(frozen=True, slots=True)
class VerifiedPanel:
    panel_id: str
    panel_number: int
    claims: tuple[VerifiedClaim, ...]

    def kept(self, policy: FlaggedPolicy = FlaggedPolicy.CUE) -> list[VerifiedClaim]:
        if policy is FlaggedPolicy.DROP:
            return [c for c in self.claims if c.decision is Decision.KEEP]
        return [c for c in self.claims if c.spoken]

    @property
    def flags(self) -> list[HallucinationFlag]:
        return [f for c in self.claims for f in c.flags]


@dataclass(frozen=True, slots=True)
class VerifyConfig:
    # partial similarity (panelvox.textmatch, the eval's measure) of a quote with a run of page
    # text; 0.8 and the punctuation-aware form are the eval's own (eval.dialogue_metrics), so
    # a quote let through is one the eval counts as on the page. Measured on cib
    # (docs/benchmarks.md): words only keeps 0.7 % more true quotes but lets 0.8 % of altered
    # quotes through; a dropped true quote costs little (the OCR reads the balloon anyway)
    quote_threshold: float = 0.8
    quote_words_only: bool = False
    paraphrase_threshold: float = 0.5  # content-word overlap of reported speech with a balloon
    agreement_threshold: float = 0.5  # share of other samples that must agree
    similar: float = 0.4  # Dice similarity of content words for "the same claim"
    prob_threshold: float = 0.25  # geometric-mean token probability below which a claim is unsure
    min_quote_chars: int = 4


# -- text helpers ----------------------------------------------------------------------------------
_QUOTES = re.compile(
    r"\"([^\"]+)\"|“([^”]+)”|„([^“”]+)[“”]|«\s*([^»]+?)\s*»|「([^」]+)」|『([^』]+)』|‘([^’]+)’"
    r"|(?<![\w'])'([^']+?)'(?![\w'])"
)
# verbs whose object is what was said ("says that ...", "asks: ...")
_CONTENT_VERBS = (
    r"says?|said|asks?|asked|shouts?|shouted|yells?|yelled|screams?|screamed|replies|replied|"
    r"whispers?|whispered|exclaims?|exclaimed|mutters?|muttered|tells?|told|cries|cried|"
    r"answers?|answered|thinks?|thought|announces?|announced"
)
# verbs that only say someone speaks ("Steenie talks to Dougal")
_BARE_VERBS = r"speaks?|spoke|talks?|talked|calls?|called|chats?|chatted"
_REPORTED = re.compile(
    rf"(?P<who>[\w][\w .'-]{{0,40}}?)\s+(?:(?P<content>{_CONTENT_VERBS})|{_BARE_VERBS})\b"
    rf"(?(content)(?:\s+(?:to\s+)?\w+(?=\s*[:,]|\s+that\b))?(?:\s*[:,]\s*|\s+that\s+|\s+)"
    rf"(?P<what>[\"“‘«「][^\"”’»」]*[\"”’»」]?|[^.!?;]*)|)",
    re.IGNORECASE,
)
_STOP_WORDS = (
    "a an the and or but of in on at to with from by for is are was were be being been it its "
    "this that these those there here he she they them his her their him we you i me my our "
    "your as into onto over under up down out off very some one two who what which while"
)
_STOP = frozenset(_STOP_WORDS.split())


def normalize(text: str) -> str:
    """Words only, casefolded (:func:`panelvox.textmatch.word_form`)."""
    return word_form(text)


def content_words(text: str) -> set[str]:
    out = set()
    for w in normalize(text).split():
        w = w.strip("'")
        if len(w) > 1 and w not in _STOP:
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


def dice(a: str, b: str) -> float:
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return 1.0 if normalize(a) == normalize(b) else 0.0
    return 2 * len(wa & wb) / (len(wa) + len(wb))


def quote_match(quote: str, text: str, *, words_only: bool = True) -> float:
    """How well ``quote`` occurs inside ``text`` (punctuation ignored by default), in [0, 1].

    The eval's measure (:func:`panelvox.textmatch.partial_similarity`): 1 − the fewest edits
    turning the quote into some run of the text, over the quote's length.
    """
    if not normalize(quote) or not normalize(text):
        return 0.0
    return partial_similarity(quote, text, words_only=words_only)


def extract_quotes(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _QUOTES.finditer(text)]


def reported_speech(text: str) -> list[tuple[str, str]]:
    """(speaker words, what is said) for each "X says ..." in ``text``."""
    out = []
    for m in _REPORTED.finditer(text):
        who = m.group("who").strip()
        # keep the last few words before the verb: "In the street, Steenie says" -> "Steenie"
        who = " ".join(who.split()[-3:])
        out.append((who, (m.group("what") or "").strip()))
    return out


# -- the checks -------------------------------------------------------------------------------------
#: a quote is matched against runs of up to this many blocks in reading order (like the eval's
#: dialogue recall, eval.dialogue_metrics.MAX_WINDOW)
_MAX_JOINED = 3


@dataclass
class _Page:
    analysis: PageAnalysis
    panel_id: str
    names: dict[str, str]  # character id -> name
    speakers: dict[str, str]  # character id -> spoken name

    def texts(self) -> list[tuple[str, str]]:
        """(block id, text) of every text block on the page (dialogue comes from the OCR)."""
        return [(b.id, b.text) for b in self.analysis.blocks_in_order() if b.text.strip()]

    def best_block(self, quote: str, words_only: bool = True) -> tuple[str | None, float]:
        """The block a quote matches best, and how well; a quote may also span up to
        ``_MAX_JOINED`` consecutive blocks (the OCR splits one balloon or caption into several)."""
        texts = self.texts()
        best: tuple[str | None, float] = (None, 0.0)
        # one block first: a run only wins when it matches strictly better (then its first block)
        for size in range(1, _MAX_JOINED + 1):
            for i in range(len(texts) - size + 1):
                window = " ".join(t for _b, t in texts[i : i + size])
                score = quote_match(quote, window, words_only=words_only)
                if score > best[1]:
                    best = (texts[i][0], score)
            if best[1] >= 1.0:
                break
        return best

    def paraphrase_block(self, what: str) -> tuple[str | None, float]:
        words = content_words(what)
        if not words:
            return None, 1.0
        scored = [(bid, len(words & content_words(t)) / len(words)) for bid, t in self.texts()]
        return max(scored, key=lambda s: s[1]) if scored else (None, 0.0)

    def all_names(self) -> set[str]:
        return {n.casefold() for n in (*self.names.values(), *self.speakers.values())}

    def character_for(self, who: str) -> str | None:
        """The character id a subject names ("Steenie", "character 2"), None when unknown."""
        w = who.casefold()
        for cid, name in (*self.names.items(), *self.speakers.items()):
            if name.casefold() in w.split() or name.casefold() == w or w.endswith(name.casefold()):
                return cid
        return None

    def detected_in_panel(self) -> int:
        chars = [c for c in self.analysis.characters if c.panel == self.panel_id]
        bodies = [c for c in chars if c.kind == "body"]
        # a face inside a detected body is the same person
        faces = [
            f for f in chars if f.kind == "face" and not any(f.bbox.coverage_by(b.bbox) > 0.6 for b in bodies)
        ]
        return len(bodies) + len(faces)

    @property
    def characters_ran(self) -> bool:
        return any(s.startswith("characters") for s in self.analysis.stages)


def _quote_scores(text: str, page: _Page, cfg: VerifyConfig) -> list[tuple[str, str | None, float]]:
    return [
        (quote, *page.best_block(quote, cfg.quote_words_only))
        for quote in extract_quotes(text)
        if len(normalize(quote)) >= cfg.min_quote_chars
    ]


def quote_support(
    text: str, analysis: PageAnalysis, config: VerifyConfig = VerifyConfig()
) -> list[tuple[str, str | None, float]]:
    """(quote, best-matching block, score) for every quote in ``text`` the verifier checks;
    a quote scoring below ``config.quote_threshold`` is "text that is not there"."""
    return _quote_scores(text, _Page(analysis, "", {}, {}), config)


def _check_text(claim: Claim, page: _Page, cfg: VerifyConfig) -> list[HallucinationFlag]:
    """Types 1 and 2 (and unknown names, type 4) on one claim's text."""
    flags: list[HallucinationFlag] = []
    for quote, nearest, score in _quote_scores(claim.text, page, cfg):
        if score < cfg.quote_threshold:
            flags.append(
                HallucinationFlag(
                    Hallucination.QUOTE,
                    f"quote {quote!r} matches no text on the page (best {score:.2f}"
                    + (f" with {nearest})" if nearest else ", no text found)"),
                )
            )
    for who, what in reported_speech(claim.text):
        block: str | None = None
        quoted = extract_quotes(what)
        if quoted:
            # the quote itself was checked above; here it only tells which balloon is meant
            found, score = page.best_block(quoted[0], cfg.quote_words_only)
            block = found if score >= cfg.quote_threshold else None
        elif len(normalize(what)) >= cfg.min_quote_chars:
            found, score = page.paraphrase_block(what)
            if score >= cfg.paraphrase_threshold:
                block = found
            else:
                flags.append(
                    HallucinationFlag(
                        Hallucination.QUOTE,
                        f"reported speech {what!r} matches no text on the page (best overlap {score:.2f})",
                    )
                )
        flags.extend(_check_attribution(who, block, page))
    return flags


def _check_attribution(who: str, block: str | None, page: _Page) -> list[HallucinationFlag]:
    char = page.character_for(who)
    if char is None:
        # "he says", "the old man says": no name to hold against the speaker stage
        return []
    kind = next((b.kind for b in page.analysis.blocks if b.id == block), None)
    if block is not None and kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
        return []  # "the sign says EXIT": lettering nobody speaks
    if block is not None:
        link = page.analysis.speaker_of(block)
        speaker = said_by(page.analysis, link)
        if link is None or link.character is None:
            return [
                HallucinationFlag(
                    Hallucination.MISATTRIBUTION,
                    f"{who!r} is said to speak {block}, whose speaker the page analysis does not know",
                )
            ]
        if not page.analysis.same_person(char, link.character):
            return [
                HallucinationFlag(
                    Hallucination.MISATTRIBUTION,
                    f"{block} is attributed to {speaker or link.character} "
                    f"({link.reason.value}, {link.confidence:.2f}), not {who!r}",
                )
            ]
        return []
    # no matching balloon: the subject must at least speak in this panel
    speaking = {
        link.character
        for b in page.analysis.blocks_of(page.panel_id)
        if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)
        and (link := page.analysis.speaker_of(b.id)) is not None
        and link.character is not None
    }
    if not any(page.analysis.same_person(char, s) for s in speaking):
        return [
            HallucinationFlag(
                Hallucination.MISATTRIBUTION,
                f"{who!r} is said to speak, but the speaker stage has no balloon of theirs in this panel",
            )
        ]
    return []


def _agreement(
    claim: Claim, others: Sequence[PanelClaims], primary: PanelClaims, cfg: VerifyConfig
) -> float | None:
    if not others:
        return None
    votes = 0
    for sample in others:
        if claim.kind.attribute:
            # compare with the same attribute of the most similar character in that sample
            who = primary.who(claim.character or 0)
            indices = {c.character for c in sample.of(ClaimKind.CHARACTER)}
            match = max(indices, key=lambda i: dice(who, sample.who(i or 0)), default=None)
            pool = [c for c in sample.of(claim.kind) if c.character == match]
        else:
            pool = sample.of(claim.kind)
        if any(dice(claim.text, c.text) >= cfg.similar for c in pool):
            votes += 1
    return votes / len(others)


def verify_panel(
    description: PanelDescription,
    analysis: PageAnalysis,
    config: VerifyConfig = VerifyConfig(),
) -> VerifiedPanel:
    """Check the first sample's claims against the page and the other samples."""
    facts = description.facts
    if not description.samples:
        return VerifiedPanel(facts.panel_id, facts.panel_number, ())
    primary, others = description.samples[0], description.samples[1:]
    page = _Page(analysis, facts.panel_id, known_names(analysis), speaker_labels(analysis))
    out: list[VerifiedClaim] = []
    char_flags = _character_count_flags(primary, page)
    for claim in primary.claims:
        flags = _check_text(claim, page, config)
        agreement = _agreement(claim, others, primary, config)
        if claim.kind is ClaimKind.CHARACTER:
            flags.extend(char_flags.get(claim.character or 0, []))
            flags.extend(_name_flags(claim.text, page))
        elif claim.kind.attribute:
            # an attribute of a character that is itself in doubt is in doubt too
            flags.extend(char_flags.get(claim.character or 0, []))
        doubt = _doubt(claim, agreement, config)
        if doubt:
            about_character = claim.kind.attribute or claim.kind is ClaimKind.CHARACTER
            kind = Hallucination.CHARACTER if about_character else Hallucination.SCENERY
            flags.append(HallucinationFlag(kind, doubt))
        if claim.kind in (ClaimKind.SUMMARY, ClaimKind.ACTION, ClaimKind.SETTING):
            flags.extend(_name_flags(claim.text, page))
        decision = Decision.KEEP
        if flags:
            quote = any(f.type is Hallucination.QUOTE for f in flags)
            decision = Decision.DROP if quote else Decision.UNCERTAIN
        confidence = min(x for x in (1.0, agreement, claim.prob) if x is not None)
        out.append(VerifiedClaim(claim, decision, tuple(_dedupe(flags)), agreement, confidence))
    return VerifiedPanel(facts.panel_id, facts.panel_number, tuple(out))


def _doubt(claim: Claim, agreement: float | None, cfg: VerifyConfig) -> str:
    parts = []
    if agreement is not None and agreement < cfg.agreement_threshold:
        parts.append(f"agreement {agreement:.2f} across samples")
    if claim.prob is not None and claim.prob < cfg.prob_threshold:
        parts.append(f"token probability {claim.prob:.2f}")
    if agreement is None and claim.prob is None:
        parts.append("one sample and no token probabilities: cannot be checked")
    return ", ".join(parts)


def _character_count_flags(primary: PanelClaims, page: _Page) -> dict[int, list[HallucinationFlag]]:
    claimed = sorted({c.character or 0 for c in primary.of(ClaimKind.CHARACTER)})
    if not claimed:
        return {}
    if not page.characters_ran:
        flag = HallucinationFlag(
            Hallucination.CHARACTER, "no character detection ran: the count cannot be checked"
        )
        return {i: [flag] for i in claimed}
    detected = page.detected_in_panel()
    if len(claimed) <= detected:
        return {}
    # the characters described beyond the detected count are the doubtful ones
    flag = HallucinationFlag(
        Hallucination.CHARACTER, f"{len(claimed)} characters described, {detected} detected in the panel"
    )
    return {i: [flag] for i in claimed[detected:]}


def _name_flags(text: str, page: _Page) -> list[HallucinationFlag]:
    known = page.all_names()
    flags = []
    for word in name_candidates(text):
        if word.casefold() in known:
            continue
        flags.append(
            HallucinationFlag(Hallucination.CHARACTER, f"name {word!r} is not a known name on this page")
        )
    for cid, name in page.names.items():
        if re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE):
            present = any(c.id == cid and c.panel == page.panel_id for c in page.analysis.characters)
            if not present:
                flags.append(
                    HallucinationFlag(Hallucination.CHARACTER, f"{name} is not detected in this panel")
                )
    return flags


def name_candidates(text: str) -> list[str]:
    """Capitalised words of ``text`` the verifier takes for names ("Steenie", not "The")."""
    return [
        w
        for w in re.findall(r"\b[A-Z][a-z]{2,}\b", text)
        if w.casefold() not in _STOP and w.casefold() not in _COMMON_CAPS
    ]


# capitalised words that are not names: sentence starts of a description
_COMMON_CAPS_WORDS = (
    "a an the he she they his her their it its in on at with two three several one some man "
    "woman boy girl person people character characters panel background foreground inside "
    "outside night day"
)
_COMMON_CAPS = frozenset(_COMMON_CAPS_WORDS.split())


def _dedupe(flags: Sequence[HallucinationFlag]) -> list[HallucinationFlag]:
    seen: set[tuple[Hallucination, str]] = set()
    out = []
    for f in flags:
        if (f.type, f.evidence) not in seen:
            seen.add((f.type, f.evidence))
            out.append(f)
    return out


def verify_narration(
    text: str, analysis: PageAnalysis, config: VerifyConfig = VerifyConfig()
) -> tuple[str, list[HallucinationFlag]]:
    """Free text (a one-shot model narration): sentences quoting text not on the page are removed."""
    page = _Page(analysis, "", known_names(analysis), speaker_labels(analysis))
    kept, flags = [], []
    for sentence in re.split(r"(?<=[.!?…])\s+", text.strip()):
        found = [
            f
            for f in _check_text(Claim(ClaimKind.SUMMARY, sentence), page, config)
            if f.type is Hallucination.QUOTE
        ]
        flags.extend(found)
        if not found:
            kept.append(sentence)
    return " ".join(kept), flags
