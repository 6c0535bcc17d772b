"""Page narration and "ask about this page", built from verified structure, never in one shot.

The page narration follows the study's prompt (characters, setting, interaction, under 400
words) but is *composed*: dialogue comes from the OCR with the speaker stage's attribution,
descriptions only from claims the verifier let through. Answers to a question cite the
balloon or panel they rest on and say "I can't tell" when nothing on the page supports one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from panelvox.errors import BookError
from panelvox.i18n import _
from panelvox.model import BalloonKind, Image, PageAnalysis
from panelvox.narration.describe import SYSTEM_PROMPT, Claim, ClaimKind, Describer
from panelvox.narration.prefs import UncertaintyCue, UtteranceKind
from panelvox.narration.script import Flag, Region, Utterance, said_by, speaker_labels
from panelvox.narration.verify import (
    Decision,
    FlaggedPolicy,
    VerifiedClaim,
    VerifiedPanel,
    VerifyConfig,
    content_words,
    normalize,
    quote_match,
    verify_panel,
)
from panelvox.narration.vlm_backend import LlamaBackend

MAX_PAGE_WORDS = 400


# -- utterances -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    claims: tuple[VerifiedClaim, ...]

    @property
    def uncertain(self) -> bool:
        return any(c.decision is Decision.UNCERTAIN for c in self.claims)


def _pieces(panel: VerifiedPanel, policy: FlaggedPolicy) -> list[_Piece]:
    kept = panel.kept(policy)
    out: list[_Piece] = []
    summary = [c for c in kept if c.claim.kind is ClaimKind.SUMMARY]
    out.extend(_Piece(_sentence(c.claim.text), (c,)) for c in summary)
    indices = sorted({c.claim.character for c in kept if c.claim.character is not None})
    for i in indices:
        group = [c for c in kept if c.claim.character == i]
        who = next((c for c in group if c.claim.kind is ClaimKind.CHARACTER), None)
        attrs = [c for c in group if c.claim.kind.attribute]
        if who is None:
            continue  # attributes of a character that was dropped are not spoken
        sure = [c for c in attrs if c.decision is Decision.KEEP and who.decision is Decision.KEEP]
        unsure = [c for c in attrs if c not in sure]
        if who.decision is Decision.KEEP:
            out.append(_Piece(_sentence(_join(who, sure)), (who, *sure)))
            if unsure:
                out.append(_Piece(_sentence(_join(who, unsure)), tuple(unsure)))
        else:
            out.append(_Piece(_sentence(_join(who, unsure)), (who, *unsure)))
    setting = [c for c in kept if c.claim.kind is ClaimKind.SETTING]
    # Translators: introduces the setting of a panel in a scene description.
    out.extend(_Piece(_sentence(_("Setting: {text}").format(text=c.claim.text)), (c,)) for c in setting)
    objects = [c for c in kept if c.claim.kind is ClaimKind.OBJECT]
    for decided in (Decision.KEEP, Decision.UNCERTAIN):
        group = [c for c in objects if c.decision is decided]
        if group:
            # Translators: introduces the key objects of a panel in a scene description.
            text = _("Objects: {list}").format(list=", ".join(c.claim.text for c in group))
            out.append(_Piece(_sentence(text), tuple(group)))
    return out


def _join(who: VerifiedClaim, attrs: Sequence[VerifiedClaim]) -> str:
    return who.claim.text + (": " + "; ".join(c.claim.text for c in attrs) if attrs else "")


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?…" else text + "."


def _words(text: str) -> int:
    return len(text.split())


def panel_utterances(
    panel: VerifiedPanel,
    *,
    policy: FlaggedPolicy = FlaggedPolicy.CUE,
    cue: UncertaintyCue = UncertaintyCue.WORD,
    word_budget: int = 60,
    region: Region | None = None,
) -> list[Utterance]:
    """The DESCRIPTION utterances of a verified panel, within ``word_budget`` words."""
    out: list[Utterance] = []
    used = 0
    for piece in _pieces(panel, policy):
        if used + _words(piece.text) > word_budget:
            continue
        used += _words(piece.text)
        flags = {f.type.flag for c in piece.claims for f in c.flags}
        spoken = piece.text
        if piece.uncertain:
            flags.add(Flag.UNCERTAIN)
            if cue is UncertaintyCue.WORD:
                spoken = _("Uncertain: {text}").format(text=piece.text)
        out.append(
            Utterance(
                UtteranceKind.DESCRIPTION,
                spoken,
                piece.text,
                confidence=min(c.confidence for c in piece.claims),
                flags=frozenset(flags),
                region=region or Region(None, panel.panel_id, None),
                panel_number=panel.panel_number,
            )
        )
    return out


# -- the page narration ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PageNarration:
    text: str
    words: int
    dropped_claims: int  # claims the verifier removed (quotes not on the page, or flagged under DROP)


def compose_page_narration(
    analysis: PageAnalysis,
    panels: Sequence[VerifiedPanel],
    *,
    policy: FlaggedPolicy = FlaggedPolicy.CUE,
    max_words: int = MAX_PAGE_WORDS,
) -> PageNarration:
    """Characters, setting and interaction of the page, from verified claims and OCR dialogue."""
    spoken = speaker_labels(analysis)
    by_panel = {p.panel_id: p for p in panels}
    # parts: (priority, text); lower priority numbers survive the word budget longer
    parts: list[tuple[int, str]] = []
    # Translators: first sentence of a page narration; {page} is the page number.
    parts.append((0, _("Page {page}.").format(page=analysis.page)))
    cast = list(dict.fromkeys(spoken.values()))
    if cast:
        # Translators: who speaks on the page, in a page narration.
        parts.append((1, _sentence(_("Speaking on this page: {names}").format(names=", ".join(cast)))))
    for n, panel in enumerate(analysis.panels_in_order(), 1):
        parts.append((0, _("Panel {n}.").format(n=panel.order or n)))
        verified = by_panel.get(panel.id)
        if verified is not None:
            for piece in _pieces(verified, policy):
                cue = _("Uncertain: {text}").format(text=piece.text) if piece.uncertain else piece.text
                kind = piece.claims[0].claim.kind
                parts.append((2 if kind is ClaimKind.SUMMARY else 4 if piece.uncertain else 3, cue))
        for block in analysis.blocks_of(panel.id):
            if not block.text.strip() or block.kind in (BalloonKind.SFX, BalloonKind.OTHER):
                continue
            link = analysis.speaker_of(block.id)
            who = said_by(analysis, link)
            if block.kind is BalloonKind.CAPTION:
                parts.append((1, _("Caption: {text}").format(text=block.text)))
            elif who:
                parts.append((1, _("{who} says: “{text}”").format(who=who, text=block.text)))
            else:
                parts.append((1, _("Someone says: “{text}”").format(text=block.text)))
    for cutoff in (4, 3, 2, 1, 0):
        chosen = [t for prio, t in parts if prio <= cutoff]
        if sum(_words(t) for t in chosen) <= max_words:
            break
    text = " ".join(chosen)
    words = text.split()
    if len(words) > max_words:
        text = " ".join(words[: max_words - 1]) + " …"
    dropped = sum(1 for p in panels for c in p.claims if c not in p.kept(policy))
    return PageNarration(text, min(len(words), max_words), dropped)


# -- ask about this page ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    citations: tuple[str, ...] = ()  # block and panel ids the answer rests on
    supported: bool = True


_MAX_CITED = 3  # citations spoken after an answer; the rest are counted
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "last": -1}
_KIND_WORDS: tuple[tuple[ClaimKind, frozenset[str]], ...] = (
    (
        ClaimKind.SETTING,
        frozenset(["where", "place", "setting", "location", "background", "room", "outside", "inside"]),
    ),
    (
        ClaimKind.EXPRESSION,
        frozenset(["feel", "feeling", "expression", "face", "look", "mood", "happy", "sad", "angry"]),
    ),
    (
        ClaimKind.APPEARANCE,
        frozenset(["wear", "wearing", "look", "like", "appearance", "dressed", "clothes", "hair"]),
    ),
    (ClaimKind.POSTURE, frozenset(["posture", "standing", "sitting", "pose"])),
    (ClaimKind.ACTION, frozenset(["doing", "action", "happening", "happen"])),
    (ClaimKind.OBJECT, frozenset(["object", "objects", "holding", "hold", "thing", "things"])),
)


def cited_words(answer: Answer, analysis: PageAnalysis) -> str:
    """Where an answer comes from, as the user counts: "From balloon 3." / "From panels 1, 2."."""
    if not answer.citations:
        return ""
    balloons = {b.id: i for i, b in enumerate(analysis.blocks_in_order(), 1)}
    panels = {p.id: p.order or i for i, p in enumerate(analysis.panels_in_order(), 1)}
    b_nums = [balloons[c] for c in answer.citations if c in balloons]
    p_nums = [panels[c] for c in answer.citations if c in panels]
    parts = []
    for nums, one, many in (
        # Translators: part of an answer's source; {n} the balloon number, {list} several.
        (b_nums, _("balloon {n}"), _("balloons {list}")),
        # Translators: part of an answer's source; {n} the panel number, {list} several.
        (p_nums, _("panel {n}"), _("panels {list}")),
    ):
        if len(nums) == 1:
            parts.append(one.format(n=nums[0]))
        elif nums:
            shown = ", ".join(str(n) for n in nums[:_MAX_CITED])
            if len(nums) > _MAX_CITED:
                # Translators: a list of numbers cut short; {list} the first ones, {more} how many left.
                shown = _("{list} and {more} more").format(list=shown, more=len(nums) - _MAX_CITED)
            parts.append(many.format(list=shown))
    if not parts:
        return ""
    # Translators: spoken after an answer; {where} is like "balloon 3" or "panels 1, 2".
    return _("From {where}.").format(where=_(" and ").join(parts))


def cant_tell() -> Answer:
    # Translators: the answer to a question that nothing on the page supports.
    return Answer(_("I can't tell from this page."), (), False)


def _panel_asked(question: str, analysis: PageAnalysis) -> str | None:
    panels = analysis.panels_in_order()
    m = re.search(r"panel\s+(\d+)", question, re.IGNORECASE)
    n = int(m.group(1)) if m else None
    if n is None:
        for word, value in _ORDINALS.items():
            if re.search(rf"\b{word}\s+panel\b", question, re.IGNORECASE):
                n = len(panels) if value == -1 else value
    if n is None or not 1 <= n <= len(panels):
        return None
    return panels[n - 1].id


def ask(  # noqa: C901 (over the budget before it existed: split when next changed)
    question: str,
    analysis: PageAnalysis,
    panels: Sequence[VerifiedPanel] = (),
    *,
    backend: LlamaBackend | None = None,
    config: VerifyConfig | None = None,
) -> Answer:
    """Answer a question about the page from the verified structure (and the model, when given)."""
    config = config or VerifyConfig()
    q = question.strip()
    panel_id = _panel_asked(q, analysis)
    blocks = analysis.blocks_of(panel_id) if panel_id else analysis.blocks_in_order()
    number = {b.id: i for i, b in enumerate(analysis.blocks_in_order(), 1)}

    def who_of(block_id: str) -> str | None:
        link = analysis.speaker_of(block_id)
        return said_by(analysis, link)

    m = re.match(
        r"\s*who\s+(?:says|said|is saying|shouts|asks|asked|yells|thinks)\s+(.+?)\??$", q, re.IGNORECASE
    )
    if m:
        said = m.group(1).strip(" \"'“”")
        scored = [(quote_match(said, b.text), b) for b in blocks if b.text.strip()]
        if not scored or max(s for s, _b in scored) < config.quote_threshold:
            # Translators: answer when no balloon on the page says what the user asked about.
            return Answer(_("I can't tell: no balloon on this page says that."), (), False)
        block = max(scored, key=lambda s: s[0])[1]
        who = who_of(block.id)
        if who is None:
            # Translators: the balloon was found but its speaker is unknown; {n} is its number.
            return Answer(
                _("Balloon {n} says that, but I can't tell who speaks it.").format(n=number[block.id]),
                (block.id,),
                False,
            )
        # Translators: who speaks a given line; {who} name, {n} balloon number on the page.
        return Answer(_("{who}, in balloon {n}.").format(who=who, n=number[block.id]), (block.id,))

    m = re.match(r"\s*what\s+(?:does|did)\s+(.+?)\s+(?:say|said|ask|think)\b", q, re.IGNORECASE)
    if m:
        name = m.group(1).casefold()
        lines = [b for b in blocks if (w := who_of(b.id)) and w.casefold() == name]
        if not lines:
            return cant_tell()
        text = " ".join(f"“{b.text}”" for b in lines)
        return Answer(text, tuple(b.id for b in lines))

    m = re.search(r"how many\s+(panels?|balloons?|characters?|people|persons?)", q, re.IGNORECASE)
    if m:
        what = m.group(1).casefold()
        if what.startswith("panel"):
            return Answer(str(len(analysis.panels)), tuple(p.id for p in analysis.panels_in_order()))
        if what.startswith("balloon"):
            found = [b for b in blocks if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)]
            return Answer(str(len(found)), tuple(b.id for b in found))
        if not any(s.startswith("characters") for s in analysis.stages):
            return cant_tell()
        chars = [
            c for c in analysis.characters if (panel_id is None or c.panel == panel_id) and c.kind == "body"
        ]
        return Answer(str(len(chars)), tuple(sorted({c.panel for c in chars if c.panel})))

    # descriptions: the verified claims of the panel (or page) that best fit the question
    words = content_words(q) - {"panel", "page", "what", "happen"}
    candidates: list[tuple[float, VerifiedClaim, str]] = []
    for vp in panels:
        if panel_id is not None and vp.panel_id != panel_id:
            continue
        for vc in vp.kept(FlaggedPolicy.CUE):
            score = len(words & content_words(vc.claim.text)) + _kind_bonus(q, vc.claim)
            if score > 0:
                candidates.append((score, vc, vp.panel_id))
    best_block = max(
        ((len(words & content_words(b.text)), b) for b in blocks if b.text.strip()),
        key=lambda s: s[0],
        default=(0, None),
    )
    if candidates:
        score, vc, pid = max(candidates, key=lambda c: c[0])
        if score >= best_block[0]:
            text = _sentence(vc.claim.text)
            if vc.decision is Decision.UNCERTAIN:
                text = _("Uncertain: {text}").format(text=text)
            return Answer(text, (pid,), vc.decision is Decision.KEEP)
    if best_block[1] is not None and best_block[0] > 0:
        b = best_block[1]
        who = who_of(b.id)
        # Translators: an answer that quotes a balloon; {n} its number, {text} its words.
        text = _("Balloon {n}: “{text}”").format(n=number[b.id], text=b.text)
        return Answer(f"{who}: {text}" if who else text, (b.id,))
    if backend is not None:
        return _ask_model(q, analysis, panel_id, backend, config)
    return cant_tell()


def _kind_bonus(question: str, claim: Claim) -> float:
    qw = set(normalize(question).split())
    for kind, words in _KIND_WORDS:
        if claim.kind is kind and qw & words:
            return 1.5
    return 0.0


_ASK_GRAMMAR = "\n".join(
    [
        'root ::= "{" ws "\\"answer\\":" ws str "," ws "\\"sure\\":" ws ("true" | "false") ws "}"',
        'str ::= "\\"" ch{0,160} "\\""',
        r"ch ::= [^\"\\\x00-\x1f\x7f]",
        'ws ::= " "?',
    ]
)


def _ask_model(
    question: str, analysis: PageAnalysis, panel_id: str | None, backend: LlamaBackend, config: VerifyConfig
) -> Answer:
    """Ask the model, then hold its answer to the same checks as a claim."""
    import json

    from panelvox.narration.describe import PanelClaims, PanelDescription, PanelFacts

    gen = backend.generate(SYSTEM_PROMPT, f"Question about the comic page: {question}", grammar=_ASK_GRAMMAR)
    try:
        data = json.loads(gen.text)
        text, sure = str(data["answer"]).strip(), bool(data["sure"])
    except (ValueError, KeyError, TypeError):
        return cant_tell()
    if not text or not sure:
        return cant_tell()
    claim = Claim(ClaimKind.SUMMARY, text, None, gen.mean_prob)
    facts = PanelFacts(panel_id or "", 0)
    verified = verify_panel(PanelDescription(facts, (PanelClaims((claim,)),)), analysis, config=config)
    vc = verified.claims[0]
    if vc.decision is Decision.DROP:
        return cant_tell()
    body = _("Uncertain: {text}").format(text=text) if vc.decision is Decision.UNCERTAIN else text
    return Answer(body, (panel_id,) if panel_id else (), vc.decision is Decision.KEEP)


def describe_verified(
    describer: Describer, image: Image | None, analysis: PageAnalysis, panel: int | None = None
) -> list[VerifiedPanel]:
    """Describe and verify the page's panels (or the ``panel``-th one, 1-based)."""
    panels = analysis.panels_in_order()
    if panel is not None:
        if not 1 <= panel <= len(panels):
            raise BookError(
                # Translators: asked to describe a panel number the page does not have.
                _("There is no panel {n} on this page.").format(n=panel),
                detail=f"{len(panels)} panels",
            )
        panels = [panels[panel - 1]]
    return [verify_panel(d, analysis) for d in describer.describe_page(image, analysis, panels=panels)]
