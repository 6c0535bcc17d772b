"""From page structure to what the reader hears: an ordered list of utterances.

``script_page`` works from whatever the :class:`PageAnalysis` holds (panels only, text
only, or everything with speakers and order) and never invents: a balloon with no
attributed speaker is read without a name, a link without a character is "someone", and
what the analysis is unsure of is flagged so the speech layer can give the chosen cue.

The cue is kept for the doubts that matter to a listener and is calibrated to mean "more
likely wrong than right" (docs/benchmarks.md): the words of a line (its least sure
recognised line under ``prefs.text_threshold``; not for sound effects, whose spelling is
not what the listener follows), and who speaks it ("probably Kala"). A panel whose balloon
order is a guess says so in two words before its first balloon, not as a stop of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from panelvox.i18n import _
from panelvox.languages import detect_language
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    PageAnalysis,
    Panel,
    SpeakerLink,
    SpeakerReason,
)
from panelvox.narration.normalize import normalize_for_speech
from panelvox.narration.order_cue import OrderCueModel
from panelvox.narration.prefs import NarrationPrefs, ReadingUnit, UncertaintyCue, UtteranceKind, Verbosity
from panelvox.speech.backend import Capabilities, Priority, SpeechRequest
from panelvox.speech.voices import VoiceManifest, VoiceStyle, build_request

#: The speaker key of captions (the narrator's voice) and of unattributed speech.
NARRATOR = "narrator"
SOMEONE = "someone"


class Flag:
    """Why an utterance deserves an audible cue (string constants; kept in a frozenset)."""

    UNCERTAIN = "uncertain"  # the text itself is unsure (low OCR/detection confidence)
    SPEAKER_UNCERTAIN = "speaker-uncertain"
    #: "Order unclear." is said with it (a panel's first line heard), or the page's panel notice
    ORDER_UNCERTAIN = "order-uncertain"
    UNREADABLE = "unreadable"  # a balloon was found but its text could not be read


@dataclass(frozen=True, slots=True)
class Region:
    """Where an utterance came from, so the UI can highlight and zoom it."""

    bbox: BBox | None = None
    panel: str | None = None
    block: str | None = None


@dataclass(frozen=True, slots=True)
class Utterance:
    kind: UtteranceKind
    text: str  # what is spoken (normalised, with announcements and cue word)
    display: str  # what is shown (the lettering as recognised, or the notice)
    speaker: str | None = None  # display name or role ("someone", "narrator"); None: not said
    speaker_key: str | None = None  # stable identity for the voice map (cluster, id or role)
    #: the character's proper name when the listener hears one ("Kala", also in "probably
    #: Kala"); None for "character 2", "someone", the narrator. Exports and the eval use it.
    speaker_name: str | None = None
    confidence: float = 1.0
    flags: frozenset[str] = field(default_factory=frozenset)
    region: Region = Region()
    priority: Priority = Priority.NORMAL
    language: str = "en"
    panel_number: int | None = None
    #: the block's words alone, as spoken (no speaker, kind, panel or cue): what exports
    #: attach to the block; empty for notices
    words: str = ""

    @property
    def uncertain(self) -> bool:
        """The words may be wrong: the cue (word, tone or voice) goes with this utterance.

        A doubtful speaker is said in words ("probably Kala") and an unreadable balloon says
        so itself, so neither takes the cue as well."""
        return Flag.UNCERTAIN in self.flags


_KIND = {
    BalloonKind.SPEECH: UtteranceKind.DIALOGUE,
    BalloonKind.THOUGHT: UtteranceKind.THOUGHT,
    BalloonKind.CAPTION: UtteranceKind.CAPTION,
    BalloonKind.SFX: UtteranceKind.SFX,
    BalloonKind.OTHER: UtteranceKind.TEXT,
}


def speaker_labels(analysis: PageAnalysis) -> dict[str, str]:
    """Character id -> what the listener hears for it, for every character that speaks.

    The labels come with the page (the book's names pass sets them); in order of each
    character's first line.
    """
    out: dict[str, str] = {}
    for block in analysis.blocks_in_order():
        link = analysis.speaker_of(block.id)
        char = analysis.voice_of(link) if link is not None else None
        if char is not None and char.label:
            out.setdefault(char.id, char.label)
    return out


def heard_speakers(analysis: PageAnalysis, panel_id: str | None = None, threshold: float = 0.5) -> list[str]:
    """Who speaks on the page (or in panel ``panel_id``), said as the lines say them, in order
    of their first line: a name said plainly on at least one of its lines is said plainly,
    one said only as a guess is "probably Kala" (never a name as fact in a summary where
    every line hedges it); "character 2" asserts nobody and is said plainly. ``threshold``
    is the narration's :attr:`NarrationPrefs.uncertainty_threshold`."""
    blocks = analysis.blocks_of(panel_id) if panel_id is not None else analysis.blocks_in_order()
    plain: dict[str, bool] = {}
    for block in blocks:
        link = analysis.speaker_of(block.id)
        char = analysis.voice_of(link) if link is not None and link.character is not None else None
        if link is None or char is None or not char.label:
            continue
        sure = char.name != char.label or min(link.confidence, char.name_confidence) >= threshold
        plain[char.label] = plain.get(char.label, False) or sure
    # Translators: a speaker whose name is a guess, in a page or panel summary ("probably Kala").
    return [label if sure else _("probably {name}").format(name=label) for label, sure in plain.items()]


def heard_in_panel(analysis: PageAnalysis, prefs: NarrationPrefs, panel_id: str) -> list[Balloon]:
    """The blocks of a panel that are said, with ``prefs``'s kinds."""
    return [b for b in analysis.blocks_of(panel_id) if prefs.hears(_KIND[b.kind])]


def text_confidence(analysis: PageAnalysis, block: Balloon) -> float:
    """How sure the recognition is of a block's words: its least sure line.

    A block is wrong when any of its lines is, so the least sure line speaks for it; the
    block's own confidence also holds how sure its balloon outline is, which says nothing
    about the words. Without its lines (a page from an older analysis) the block's own."""
    by_id = {ln.id: ln.confidence for ln in analysis.lines}
    found = [by_id[i] for i in block.lines if i in by_id]
    return min(found) if found else block.confidence


def said_by(analysis: PageAnalysis, link: SpeakerLink | None) -> str | None:
    """What the listener hears for the speaker of a balloon's ``link``; None when no label."""
    char = analysis.voice_of(link) if link is not None and link.character is not None else None
    return char.label if char is not None and char.label else None


def speaker_label(analysis: PageAnalysis, link: SpeakerLink | None) -> str | None:
    """Who says a block, in words: a name, "character 2", "narrator", "someone"; None for nobody."""
    if link is None:
        return None
    if link.reason is SpeakerReason.NARRATOR:
        # Translators: the speaker of a caption box.
        return _("narrator")
    # Translators: the speaker of a balloon when no character could be found ("someone says").
    return said_by(analysis, link) or _("someone")


def order_cue_words() -> str:
    """The words said before the first balloon of a panel whose balloon order is a guess."""
    # Translators: a short cue before the first balloon of a panel whose balloon order is a guess.
    return _("Order unclear.")


def script_page(
    analysis: PageAnalysis,
    prefs: NarrationPrefs,
    *,
    unit: ReadingUnit | None = None,
    order_cue: OrderCueModel | None = None,
) -> list[Utterance]:
    """The utterances of one page in reading order, shaped by ``prefs``.

    ``unit`` (default ``prefs.unit``) decides how often the panel number is repeated:
    reading balloon by balloon, each balloon says its panel; otherwise the first one does.
    ``order_cue`` (default: the shipped model) decides which panels are said with "Order
    unclear.".
    """
    unit = unit or prefs.unit
    cue = order_cue or OrderCueModel.shipped()
    builder = _Builder(analysis, prefs, unit, speaker_labels(analysis), cue)
    return builder.build()


#: the stages whose failure leaves a page's words unknown, and its panels (by stage name)
_TEXT_STAGES = frozenset({"text", "balloons"})
_PANEL_STAGES = frozenset({"panels"})


def text_unknown(analysis: PageAnalysis) -> bool:
    """Whether a stage that finds the page's words failed: then no count or absence of text
    may be said (a page that sounds empty when Panelvox failed is a false statement)."""
    return not _TEXT_STAGES.isdisjoint(analysis.failed)


def panels_unknown(analysis: PageAnalysis) -> bool:
    """Whether the panel stage failed (see :func:`text_unknown`)."""
    return not _PANEL_STAGES.isdisjoint(analysis.failed)


def _text_announced(notices: Sequence[str]) -> bool:
    from panelvox.analysis.text_stage import announces_text  # the OCR stack only when asked

    return bool(notices) and announces_text(notices)


@dataclass
class _Builder:
    analysis: PageAnalysis
    prefs: NarrationPrefs
    unit: ReadingUnit
    speakers: dict[str, str]
    order_cue: OrderCueModel
    out: list[Utterance] = field(default_factory=list)
    first_in_panel: bool = False
    #: the panel just entered has its balloons in a guessed order (said with its first one)
    order_unclear: bool = False

    def build(self) -> list[Utterance]:
        a = self.analysis
        for notice in a.notices:
            self.out.append(_notice(notice, priority=Priority.NEXT))
        if not a.blocks and _text_announced(a.notices):
            return self.out  # "A page of text, about 2,000 words." said what is there
        # Absence is said only of what was looked for: a failed stage's notice said it failed.
        no_text = not a.blocks and not text_unknown(a)
        if no_text and not a.panels and not panels_unknown(a):
            # Translators: spoken when nothing at all was found on a page.
            self.out.append(_notice(_("No panels or text were found on this page.")))
            return self.out
        if no_text:
            # Translators: spoken when panels were found but no lettering at all.
            self.out.append(_notice(_("No text was found on this page.")))
        if self.order_cue.panels_doubtful(a):
            self.out.append(
                # Translators: spoken when the reading order of the panels is a guess.
                _notice(_("The order of these panels is unclear."), flags=frozenset({Flag.ORDER_UNCERTAIN}))
            )
        panels = a.panels_in_order()
        number = {pn.id: (pn.order if pn.order is not None else i) for i, pn in enumerate(panels, 1)}
        pending = list(panels)
        announced: set[str | None] = set()
        for block in a.blocks_in_order():
            panel = a.panel(block.panel) if block.panel else None
            if panel is not None and panel in pending:
                # Silent panels that come before this one are still announced in their place.
                while pending and pending[0] is not panel:
                    self._silent_panel(pending.pop(0), number)
                pending.pop(0)
            if panel is not None and panel.id not in announced:
                self._enter_panel(panel)
            announced.add(panel.id if panel is not None else None)
            self._block(block, panel, number.get(panel.id) if panel is not None else None)
        for panel in pending:
            self._silent_panel(panel, number)
        if a.blocks and not any(u.kind is not UtteranceKind.NOTICE for u in self.out):
            # Translators: spoken when the reader's settings skip everything on the page.
            self.out.append(_notice(_("Nothing on this page is of the kinds you chose to hear.")))
        return self.out

    # -- pieces ----------------------------------------------------------------------
    def _enter_panel(self, panel: Panel) -> None:
        heard = heard_in_panel(self.analysis, self.prefs, panel.id)
        # said where the order is more likely wrong than right (a panel of one line heard has none)
        self.order_unclear = len(heard) > 1 and self.order_cue.doubtful(self.analysis, panel.id)
        self.first_in_panel = True

    def _silent_panel(self, panel: Panel, number: Mapping[str, int]) -> None:
        if not self.prefs.panels_announced:
            return
        n = number[panel.id]
        # Translators: spoken for a panel with no lettering; {n} is the panel number.
        text = _("Panel {n}: no text.").format(n=n)
        self.out.append(
            Utterance(
                UtteranceKind.NOTICE,
                text,
                text,
                confidence=panel.confidence,
                region=Region(panel.bbox, panel.id, None),
                panel_number=n,
            )
        )

    def _block(self, block: Balloon, panel: Panel | None, panel_no: int | None) -> None:
        p = self.prefs
        kind = _KIND[block.kind]
        if not p.hears(kind):
            return
        flags: set[str] = set()
        language = block.language or detect_language(block.text)
        spoken = normalize_for_speech(block.text, language=language, names=self.speakers.values())
        confidence = block.confidence
        if not spoken:
            flags.add(Flag.UNREADABLE)
            # Translators: spoken for a balloon whose text could not be recognised.
            spoken = _("a balloon whose text could not be read")
        elif kind is not UtteranceKind.SFX and text_confidence(self.analysis, block) < p.text_threshold:
            flags.add(Flag.UNCERTAIN)
        speaker, key, link_conf = self._speaker(block)
        name = self._proper_name(block, kind, speaker)
        # "probably" qualifies a name; "character 2" asserts nobody, so it is said plainly
        if name is not None and link_conf < p.uncertainty_threshold:
            flags.add(Flag.SPEAKER_UNCERTAIN)
        if key not in (NARRATOR, None):
            confidence = min(confidence, link_conf)
        body = self._frame(kind, speaker, spoken, Flag.SPEAKER_UNCERTAIN in flags)
        if block.title and p.verbosity is not Verbosity.TERSE:
            # Translators: the story's title, said once before the page.
            body = _("Title: {text}").format(text=spoken)
        if p.uncertainty_cue is UncertaintyCue.WORD and Flag.UNCERTAIN in flags:
            body = _cue_word(body)
        prefix = ""
        first = self.first_in_panel
        if panel_no is not None and p.panels_announced and (self.unit is ReadingUnit.BALLOON or first):
            # Translators: announces the panel number before its first balloon.
            prefix = _("Panel {n}.").format(n=panel_no) + " "
        if first and self.order_unclear:
            flags.add(Flag.ORDER_UNCERTAIN)
            prefix += order_cue_words() + " "
        self.first_in_panel = self.order_unclear = False
        self.out.append(
            Utterance(
                kind,
                prefix + body,
                block.text,
                speaker=speaker,
                speaker_key=key,
                speaker_name=name,
                confidence=confidence,
                flags=frozenset(flags),
                region=Region(block.bbox, panel.id if panel is not None else block.panel, block.id),
                language=language,
                panel_number=panel_no,
                words=spoken,
            )
        )

    def _speaker(self, block: Balloon) -> tuple[str | None, str | None, float]:
        """(spoken name or role, voice key, link confidence)."""
        if block.kind is BalloonKind.CAPTION:
            # Translators: the role that speaks captions.
            return _("narrator"), NARRATOR, 1.0
        if block.kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            return None, None, 1.0
        link = self.analysis.speaker_of(block.id)
        if link is None:
            return None, None, 1.0
        if link.character is None:
            # Translators: the speaker of a balloon whose speaker is not on the page.
            return _("someone"), SOMEONE, link.confidence
        char = self.analysis.voice_of(link)
        name = char.label if char is not None else None
        if char is None or name is None:  # a page that has not been through the names pass
            return _("someone"), SOMEONE, link.confidence
        key = char.person or char.cluster or name  # one voice per person of the book
        sure = link.confidence
        if char is not None and char.name == name:  # a name can be a guess ("probably Steenie")
            sure = min(sure, char.name_confidence)
        return name, key, sure

    def _proper_name(self, block: Balloon, kind: UtteranceKind, speaker: str | None) -> str | None:
        """The character's name when the listener hears it before this block, else None."""
        said = kind in (UtteranceKind.DIALOGUE, UtteranceKind.THOUGHT) and self.prefs.speakers_announced
        link = self.analysis.speaker_of(block.id)
        char = self.analysis.voice_of(link) if link is not None else None
        return char.name if said and char is not None and char.name and char.name == speaker else None

    def _frame(self, kind: UtteranceKind, speaker: str | None, text: str, unsure: bool) -> str:
        p = self.prefs
        terse = p.verbosity is Verbosity.TERSE
        if kind in (UtteranceKind.DIALOGUE, UtteranceKind.THOUGHT) and speaker and p.speakers_announced:
            who = _("probably {name}").format(name=speaker) if unsure else speaker
            who = who[:1].upper() + who[1:]
            if kind is UtteranceKind.THOUGHT:
                # Translators: a character's thought; {who} is the name.
                return _("{who} thinks: {text}").format(who=who, text=text)
            # Translators: a character's line of dialogue; {who} is the name.
            return _("{who}: {text}").format(who=who, text=text)
        if terse:
            return text
        if kind is UtteranceKind.THOUGHT:
            # Translators: a thought balloon with no known thinker.
            return _("Thought: {text}").format(text=text)
        if kind is UtteranceKind.SFX:
            # Translators: a sound effect lettered on the page.
            return _("Sound: {text}").format(text=text)
        if kind is UtteranceKind.TEXT:
            # Translators: lettering that is not speech: a sign, a title, a credit.
            return _("Written: {text}").format(text=text)
        if kind is UtteranceKind.CAPTION and p.verbosity is Verbosity.FULL:
            # Translators: a caption box, in full verbosity.
            return _("Caption: {text}").format(text=text)
        return text


def _notice(
    text: str,
    *,
    priority: Priority = Priority.NORMAL,
    flags: frozenset[str] = frozenset(),
    region: Region = Region(),
) -> Utterance:
    return Utterance(UtteranceKind.NOTICE, text, text, flags=flags, region=region, priority=priority)


def _cue_word(text: str) -> str:
    # Translators: said before text the page reader is unsure of.
    return _("Uncertain: {text}").format(text=text)


def word_cued(utt: Utterance, prefs: NarrationPrefs) -> str:
    """The utterance's text with the cue as a word, for outputs that cannot beep or change
    voice (a screen reader saying it, a backend without tones)."""
    if utt.uncertain and prefs.uncertainty_cue is not UncertaintyCue.WORD:
        return _cue_word(utt.text)
    return utt.text


#: what ends a sentence, so that the next utterance is heard as a new one; closing quotes and
#: brackets after it still end it
_SENTENCE_END = frozenset(".!?…:;。！？")
_CLOSERS = frozenset("\"'’”)]」』）")


def join_sentences(texts: Iterable[str]) -> str:
    """Utterances said as one string (a screen reader's item, one announcement): each ends
    as a sentence, so a speech engine pauses between them and a listener hears where one
    balloon ends ("We help him. Probably Chad Billow: …", not "we help him Probably Chad
    Billow"). Lettering without a closing mark gets a full stop, an ideographic one after
    Japanese or Chinese."""
    pieces = [t.strip() for t in texts]
    pieces = [t for t in pieces if t]
    out = []
    for i, text in enumerate(pieces):
        if i < len(pieces) - 1:
            core = text.rstrip("".join(_CLOSERS))
            if core and core[-1] not in _SENTENCE_END:
                text += "。" if _ideographic(core[-1]) else "."
        out.append(text)
    return " ".join(out)


def _ideographic(ch: str) -> bool:
    """Kana, CJK ideographs and full-width forms: scripts whose sentences end with 。."""
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"


def group_by_unit(utterances: Sequence[Utterance], unit: ReadingUnit) -> list[list[Utterance]]:
    """Split a page's utterances into the steps the reader moves by.

    Page-level notices stay with the first step.
    """
    if unit is ReadingUnit.PAGE:
        return [list(utterances)] if utterances else []
    groups: list[list[Utterance]] = []
    current: list[Utterance] = []
    current_key: object = object()
    for utt in utterances:
        if unit is ReadingUnit.PANEL:
            key: object = utt.region.panel
        else:
            key = utt.region.block or utt.region.panel
        page_level = utt.region.panel is None and utt.region.block is None
        if (
            current
            and not page_level
            and key != current_key
            and any(u.region.panel or u.region.block for u in current)
        ):
            groups.append(current)
            current = []
        current.append(utt)
        if not page_level:
            current_key = key
    if current:
        groups.append(current)
    return groups


def page_voices(
    utterances: Sequence[Utterance], manifest: VoiceManifest | None = None
) -> dict[str, VoiceStyle]:
    """Distinct voices for the speakers of a page (pass to :func:`to_request`)."""
    return (manifest or VoiceManifest()).assign(u.speaker_key for u in utterances)


def to_request(
    utt: Utterance,
    prefs: NarrationPrefs,
    caps: Capabilities,
    manifest: VoiceManifest | None = None,
    voices: Mapping[str, VoiceStyle] | None = None,
) -> SpeechRequest:
    """The speech request for one utterance: the speaker's voice and the uncertainty cue.

    ``voices`` (from :func:`page_voices`) keeps characters of one page apart.
    """
    cue = prefs.uncertainty_cue
    # A backend that cannot beep gets the word instead: the cue must stay audible.
    text = word_cued(utt, prefs) if cue is UncertaintyCue.TONE and not caps.can_tone else utt.text
    key = utt.speaker_key if utt.kind is not UtteranceKind.NOTICE else NARRATOR
    return build_request(
        text,
        speaker_key=key,
        caps=caps,
        manifest=manifest or VoiceManifest(),
        rate=prefs.rate,
        pitch=prefs.pitch,
        volume=prefs.volume,
        language=utt.language,
        character_voices=prefs.character_voices,
        tone_before=utt.uncertain and cue is UncertaintyCue.TONE,
        change_voice=utt.uncertain and cue is UncertaintyCue.VOICE,
        tag=utt.region.block or "",
        style=(voices or {}).get(key or ""),
    )
