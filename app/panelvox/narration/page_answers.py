"""Ask about this page (Q): answers from the page's structure, as the listener heard it.

Every answer rests on what was found on the page and cites where ("From balloon 3."); what
nothing supports gets "I can't tell". The words are the page's as narrated (the script's
spoken words, not the raw upper-case recognition), speakers are named as the narration
names them ("probably Kala" where it is a guess), and numbers count what the listener was
told: balloons are the speech and thought balloons, captions and sounds are counted apart.
The model, when the user added one, is asked only what the structure cannot answer, and its
answer is held to the same checks as a description's claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from panelvox.books import Book
from panelvox.i18n import _
from panelvox.model import Balloon, BalloonKind, PageAnalysis
from panelvox.narration.describe import SYSTEM_PROMPT, Claim, ClaimKind
from panelvox.narration.page_narration import as_sentence
from panelvox.narration.prefs import NarrationPrefs, UtteranceKind
from panelvox.narration.script import Flag, Utterance, script_page
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
#: blocks the listener hears as balloons (a speaker's line or thought); the rest are
#: captions, sounds and other lettering, numbered apart so "balloon 5" is the fifth heard
_BALLOONS = (BalloonKind.SPEECH, BalloonKind.THOUGHT)
_WHO_SPEAKS = re.compile(
    r"^\s*who(?:'s|\s+is|\s+are)?\s+(?:speaks|speaking|talks|talking|says\s+(?:something|anything)|"
    r"(?:on|in)\s+(?:this|the)\s+(?:page|panel)|(?:here|there|in\s+it)|in\s+panel\s+\d+)\b",
    re.IGNORECASE,
)
_WHO_IS_IN = re.compile(r"^\s*(?:which|what)\s+(?:characters?|people|persons?)\b", re.IGNORECASE)
_TITLE = re.compile(
    r"\b(?:title|(?:what|which)\s+(?:book|comic|story|series)\s+(?:is|am)\b|name\s+of\s+(?:the|this)\s+"
    r"(?:book|comic|story))",
    re.IGNORECASE,
)
_BALLOON_N = re.compile(r"\bballoon\s+(?:number\s+)?(\d+)\b", re.IGNORECASE)


def _kind_words(kind: BalloonKind) -> tuple[str, str]:
    """How a block of ``kind`` is counted aloud: (one, several), each with {n} / {list}."""
    if kind in _BALLOONS:
        # Translators: part of an answer's source; {n} the balloon number, {list} several.
        return _("balloon {n}"), _("balloons {list}")
    if kind is BalloonKind.CAPTION:
        # Translators: part of an answer's source; {n} the caption number, {list} several.
        return _("caption {n}"), _("captions {list}")
    if kind is BalloonKind.SFX:
        # Translators: part of an answer's source; {n} the sound effect's number, {list} several.
        return _("sound {n}"), _("sounds {list}")
    # Translators: part of an answer's source: lettering that is no one's speech (a sign).
    return _("lettering {n}"), _("lettering {list}")


def block_numbers(analysis: PageAnalysis) -> dict[str, tuple[BalloonKind, int]]:
    """Block id -> (the group it is counted in, its number there), in reading order."""
    counts: dict[BalloonKind, int] = {}
    out: dict[str, tuple[BalloonKind, int]] = {}
    for block in analysis.blocks_in_order():
        group = BalloonKind.SPEECH if block.kind in _BALLOONS else block.kind
        counts[group] = counts.get(group, 0) + 1
        out[block.id] = (group, counts[group])
    return out


def _block_name(number: tuple[BalloonKind, int]) -> str:
    return _kind_words(number[0])[0].format(n=number[1])


def cited_words(answer: Answer, analysis: PageAnalysis) -> str:
    """Where an answer comes from, as the user counts: "From balloon 3." / "From panels 1, 2."."""
    if not answer.citations:
        return ""
    blocks = block_numbers(analysis)
    panels = {p.id: p.order or i for i, p in enumerate(analysis.panels_in_order(), 1)}
    groups: dict[BalloonKind, list[int]] = {}
    for c in answer.citations:
        if c in blocks:
            groups.setdefault(blocks[c][0], []).append(blocks[c][1])
    counted: list[tuple[list[int], tuple[str, str]]] = [(nums, _kind_words(k)) for k, nums in groups.items()]
    # Translators: part of an answer's source; {n} the panel number, {list} several.
    counted.append(
        ([panels[c] for c in answer.citations if c in panels], (_("panel {n}"), _("panels {list}")))
    )
    parts = []
    for nums, (one, many) in counted:
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


@dataclass(frozen=True, slots=True)
class _Heard:
    """The page as narrated: each block's utterance (its spoken words and speaker)."""

    analysis: PageAnalysis
    by_block: dict[str, Utterance]
    numbers: dict[str, tuple[BalloonKind, int]]

    @classmethod
    def of(cls, analysis: PageAnalysis, prefs: NarrationPrefs) -> _Heard:
        # every kind, so a block the user chose not to hear is still quoted as it would be said
        script = script_page(analysis, replace(prefs, kinds=frozenset(UtteranceKind)))
        by_block = {u.region.block: u for u in script if u.region.block is not None and u.words}
        return cls(analysis, by_block, block_numbers(analysis))

    def words(self, block: Balloon) -> str:
        """The block's words as narrated (the recognition's only where the script has none)."""
        utt = self.by_block.get(block.id)
        return utt.words if utt is not None else block.text

    def speaker(self, block: Balloon) -> str | None:
        """Who says ``block``, as the narration says it ("Kala", "probably Kala", "character
        2", "someone"); None for captions, sounds and lines with no speaker."""
        utt = self.by_block.get(block.id)
        if utt is None or utt.kind not in (UtteranceKind.DIALOGUE, UtteranceKind.THOUGHT) or not utt.speaker:
            return None
        if Flag.SPEAKER_UNCERTAIN in utt.flags:
            return _("probably {name}").format(name=utt.speaker)
        return utt.speaker

    def name(self, block: Balloon) -> str:
        return _block_name(self.numbers[block.id])

    def quote(self, block: Balloon) -> str:
        """The block quoted as heard: "Kala, in balloon 2: “…”"."""
        who = self.speaker(block)
        words = self.words(block)
        if who:
            # Translators: an answer that quotes a line; {who} the speaker, {where} "balloon 2".
            text = _("{who}, in {where}: “{text}”").format(who=who, where=self.name(block), text=words)
        else:
            # Translators: an answer that quotes lettering; {where} is like "caption 1".
            text = _("{where}: “{text}”").format(where=self.name(block), text=words)
        return text[:1].upper() + text[1:]


def _names(items: Sequence[str]) -> str:
    """ "Kala", "Kala and Chad", "Kala, Chad and someone"."""
    if len(items) <= 1:
        return "".join(items)
    # Translators: joins the last two names of a list ("Kala, Chad and Roz").
    return _("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


def _who_speaks(heard: _Heard, blocks: Sequence[Balloon], where: str) -> Answer:
    """The speakers of ``blocks`` as the narration names them, in order of their first line."""
    speakers: dict[str, list[str]] = {}
    for block in blocks:
        who = heard.speaker(block)
        if who is not None:
            speakers.setdefault(who, []).append(block.id)
    names = list(speakers)
    # a person said as a guess on one line and plainly on another is named plainly
    plain = {n for n in names if _strip_probably(n) == n}
    names = [n for n in names if n in plain or _strip_probably(n) not in plain]
    cited = tuple(
        b.id
        for b in blocks
        if (w := heard.speaker(b)) is not None and (w in names or _strip_probably(w) in plain)
    )
    captions = [b.id for b in blocks if b.kind is BalloonKind.CAPTION and b.text.strip()]
    if not names:
        if any(b.kind in _BALLOONS for b in blocks):
            # Translators: answer to "who speaks?" where the balloons' speakers are not known.
            return Answer(_("I can't tell who speaks {where}.").format(where=where), (), False)
        if captions:
            # Translators: answer to "who speaks?" on a page with captions and no balloon.
            return Answer(_("Only the narrator, in captions."), tuple(captions))
        # Translators: answer to "who speaks?" where there is no balloon.
        return Answer(_("Nobody: there is no balloon {where}.").format(where=where), ())
    first = names[0][:1].upper() + names[0][1:]
    text = _names([first, *names[1:]])
    if captions:
        # Translators: after the speakers of a page, when it also has captions.
        text = _("{speakers}, and the narrator in captions").format(speakers=text)
    return Answer(text, cited)


def _strip_probably(name: str) -> str:
    prefix = _("probably {name}").format(name="")
    return name[len(prefix) :] if name.startswith(prefix) else name


@dataclass(frozen=True, slots=True)
class BookTitle:
    """What a question about the title is answered with."""

    title: str = ""  # as the book's metadata (ComicInfo) gives it
    file_name: str = ""  # where the metadata gives none: not said to be a title

    @classmethod
    def of(cls, book: Book) -> BookTitle:
        info = book.metadata
        if info is not None and (info.title or info.series):
            return cls(title=book.title)
        return cls(file_name=book.path.name)


def _title(analysis: PageAnalysis, heard: _Heard, book: BookTitle) -> Answer:
    lettered = [b for b in analysis.blocks_in_order() if b.title and b.text.strip()]
    parts = []
    if book.title:
        # Translators: answer to "what is the title?"; {title} the book's (its ComicInfo).
        parts.append(_("The book is “{title}”.").format(title=book.title))
    elif book.file_name:
        # Translators: answer to "what is the title?" for a book whose files name no title.
        parts.append(_("The book names no title; its file is “{name}”.").format(name=book.file_name))
    if lettered:
        # Translators: the story's title as lettered on this page, after the book's.
        parts.append(_("This page's title reads “{text}”.").format(text=heard.words(lettered[0])))
    if not parts:
        return cant_tell()
    return Answer(" ".join(parts), tuple(b.id for b in lettered[:1]))


def ask(  # noqa: C901 (one branch a kind of question: each is a few lines)
    question: str,
    analysis: PageAnalysis,
    panels: Sequence[VerifiedPanel] = (),
    *,
    backend: LlamaBackend | None = None,
    config: VerifyConfig | None = None,
    prefs: NarrationPrefs | None = None,
    book: BookTitle | None = None,
) -> Answer:
    """Answer a question about the page from its structure as narrated with ``prefs`` (and the
    verified descriptions and the model, when given); ``book`` names the book."""
    config = config or VerifyConfig()
    heard = _Heard.of(analysis, prefs or NarrationPrefs())
    q = question.strip()
    panel_id = _panel_asked(q, analysis)
    blocks = analysis.blocks_of(panel_id) if panel_id else analysis.blocks_in_order()

    m = re.match(
        r"\s*who\s+(?:says|said|is saying|shouts|asks|asked|yells|thinks)\s+(.+?)\??$", q, re.IGNORECASE
    )
    if m and not _WHO_SPEAKS.match(q):
        said = m.group(1).strip(" \"'“”")
        scored = [(quote_match(said, b.text), b) for b in blocks if b.text.strip()]
        if not scored or max(s for s, _b in scored) < config.quote_threshold:
            # Translators: answer when no balloon on the page says what the user asked about.
            return Answer(_("I can't tell: no balloon on this page says that."), (), False)
        block = max(scored, key=lambda s: s[0])[1]
        who = heard.speaker(block)
        if block.kind is BalloonKind.CAPTION:
            # Translators: the line asked about is a caption; {where} is like "caption 1".
            return Answer(_("The narrator, in {where}.").format(where=heard.name(block)), (block.id,))
        if who is None:
            # Translators: the line was found but its speaker is unknown; {where} is like "balloon 3".
            text = _("{where} says that, but I can't tell who speaks it.").format(where=heard.name(block))
            return Answer(text[:1].upper() + text[1:], (block.id,), False)
        # Translators: who speaks a given line; {who} name, {where} is like "balloon 3".
        text = _("{who}, in {where}.").format(who=who, where=heard.name(block))
        return Answer(text[:1].upper() + text[1:], (block.id,))

    if _WHO_SPEAKS.match(q) or _WHO_IS_IN.match(q):
        # Translators: where the speakers were looked for: "on this page" or "in panel 2".
        where = _("on this page") if panel_id is None else _("in this panel")
        return _who_speaks(heard, blocks, where)

    if _TITLE.search(q):
        return _title(analysis, heard, book or BookTitle())

    m = _BALLOON_N.search(q)
    if m:
        n = int(m.group(1))
        found = [b for b in analysis.blocks_in_order() if heard.numbers[b.id] == (BalloonKind.SPEECH, n)]
        if not found:
            count = sum(1 for k, _n in heard.numbers.values() if k is BalloonKind.SPEECH)
            # Translators: a balloon number the page does not have; {count} how many it has.
            return Answer(
                _("There is no balloon {n}: this page has {count}.").format(n=n, count=count), (), False
            )
        return Answer(heard.quote(found[0]), (found[0].id,))

    m = re.match(r"\s*what\s+(?:does|did)\s+(.+?)\s+(?:say|said|ask|think)\b", q, re.IGNORECASE)
    if m:
        name = m.group(1).casefold()
        lines = [b for b in blocks if (w := heard.speaker(b)) and _strip_probably(w).casefold() == name]
        if not lines:
            return cant_tell()
        text = " ".join(f"“{heard.words(b)}”" for b in lines)
        return Answer(text, tuple(b.id for b in lines))

    m = re.search(r"how many\s+(panels?|balloons?|characters?|people|persons?)", q, re.IGNORECASE)
    if m:
        what = m.group(1).casefold()
        if what.startswith("panel"):
            return Answer(str(len(analysis.panels)), tuple(p.id for p in analysis.panels_in_order()))
        if what.startswith("balloon"):
            found = [b for b in blocks if b.kind in _BALLOONS]
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
            text = as_sentence(vc.claim.text)
            if vc.decision is Decision.UNCERTAIN:
                text = _("Uncertain: {text}").format(text=text)
            return Answer(text, (pid,), vc.decision is Decision.KEEP)
    if best_block[1] is not None and best_block[0] > 0:
        b = best_block[1]
        return Answer(heard.quote(b), (b.id,))
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
