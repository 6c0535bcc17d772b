"""Page narration and "ask about this page", built from verified structure, never in one shot.

The page narration follows the study's prompt (characters, setting, interaction, under 400
words) but is *composed*: dialogue comes from the OCR with the speaker stage's attribution,
descriptions only from claims the verifier let through. Answers to a question cite the
balloon or panel they rest on and say "I can't tell" when nothing on the page supports one
(:mod:`panelvox.narration.page_answers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from panelvox.errors import BookError
from panelvox.i18n import _
from panelvox.model import BalloonKind, Image, PageAnalysis
from panelvox.narration.describe import ClaimKind, Describer
from panelvox.narration.prefs import UncertaintyCue, UtteranceKind
from panelvox.narration.script import Flag, Region, Utterance, said_by, speaker_labels
from panelvox.narration.verify import (
    Decision,
    FlaggedPolicy,
    VerifiedClaim,
    VerifiedPanel,
    verify_panel,
)

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
    out.extend(_Piece(as_sentence(c.claim.text), (c,)) for c in summary)
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
            out.append(_Piece(as_sentence(_join(who, sure)), (who, *sure)))
            if unsure:
                out.append(_Piece(as_sentence(_join(who, unsure)), tuple(unsure)))
        else:
            out.append(_Piece(as_sentence(_join(who, unsure)), (who, *unsure)))
    setting = [c for c in kept if c.claim.kind is ClaimKind.SETTING]
    # Translators: introduces the setting of a panel in a scene description.
    out.extend(_Piece(as_sentence(_("Setting: {text}").format(text=c.claim.text)), (c,)) for c in setting)
    objects = [c for c in kept if c.claim.kind is ClaimKind.OBJECT]
    for decided in (Decision.KEEP, Decision.UNCERTAIN):
        group = [c for c in objects if c.decision is decided]
        if group:
            # Translators: introduces the key objects of a panel in a scene description.
            text = _("Objects: {list}").format(list=", ".join(c.claim.text for c in group))
            out.append(_Piece(as_sentence(text), tuple(group)))
    return out


def _join(who: VerifiedClaim, attrs: Sequence[VerifiedClaim]) -> str:
    return who.claim.text + (": " + "; ".join(c.claim.text for c in attrs) if attrs else "")


def as_sentence(text: str) -> str:
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
        parts.append((1, as_sentence(_("Speaking on this page: {names}").format(names=", ".join(cast)))))
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
