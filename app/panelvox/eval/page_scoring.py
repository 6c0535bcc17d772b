"""Score one page: a ground-truth page against the pipeline's PageAnalysis.

Which metric groups apply is decided by the page's annotations (:class:`Fact`) and by the
pipeline stages that exist; the runner turns a group whose stage is missing into
"not implemented". Text boxes are compared at the dataset's level: line boxes with
``PageAnalysis.lines``; block text boxes (OpenMantra, Manga109) with the *text region* of
each predicted block (the union of its lines, else its box); balloon outlines (iabc) with
the predicted block boxes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from panelvox.analysis.pipeline import Stage
from panelvox.eval.cue_calibration import CueCounts, score_cues
from panelvox.eval.dialogue_metrics import (
    hybrid_dialog_score,
    identity_clustering,
    narration_faithfulness,
    speaker_recall,
    transcript_recall,
)
from panelvox.eval.ground_truth import Fact, GTPage, TextLevel
from panelvox.eval.metrics import Counts, OcrCounts, match_boxes, matched_order, ocr_counts, order_score
from panelvox.eval.script_metrics import HeardBlock, ScriptPageScore, score_script_page
from panelvox.model import Balloon, BalloonKind, BBox, Image, PageAnalysis, Panel
from panelvox.narration.order_cue import OrderCueModel
from panelvox.narration.prefs import NarrationPrefs
from panelvox.narration.script import Flag, script_page, text_confidence

#: (box, confidence) predictions and true boxes of one page, for AP.
APInput = tuple[tuple[tuple[BBox, float], ...], tuple[BBox, ...]]


class Group(Enum):
    """A family of metrics that needs the same annotations and stages."""

    PANELS = "panels"
    PANEL_ORDER = "panel_order"
    PANEL_ORDER_ORACLE = "panel_order_oracle"
    TEXT = "text"
    TEXT_ORDER = "text_order"
    TEXT_ORDER_ORACLE = "text_order_oracle"
    DIALOGUE = "dialogue"
    CHARACTERS = "characters"
    FACES = "faces"
    SPEAKERS = "speakers"
    IDENTITY = "identity"
    NARRATION = "narration"
    SCRIPT = "script"


#: annotations a page needs for a group
GROUP_FACTS: Mapping[Group, tuple[Fact, ...]] = {
    Group.PANELS: (Fact.PANELS,),
    Group.PANEL_ORDER: (Fact.PANELS, Fact.PANEL_ORDER),
    Group.PANEL_ORDER_ORACLE: (Fact.PANELS, Fact.PANEL_ORDER),
    Group.TEXT: (Fact.TEXTS,),
    Group.TEXT_ORDER: (Fact.TEXTS, Fact.TEXT_ORDER),
    Group.TEXT_ORDER_ORACLE: (Fact.TEXTS, Fact.TEXT_ORDER),
    Group.DIALOGUE: (Fact.DIALOGUE,),
    Group.CHARACTERS: (Fact.CHARACTERS,),
    Group.FACES: (Fact.FACES,),
    Group.SPEAKERS: (Fact.SPEAKERS, Fact.CHARACTERS),
    Group.IDENTITY: (Fact.CHARACTERS,),
    Group.NARRATION: (),
    Group.SCRIPT: (Fact.SCRIPT,),
}


def required_stages(group: Group, page: GTPage) -> tuple[str, ...]:
    """Pipeline stages a group needs on this page."""
    text_stage = "text" if page.text_level is TextLevel.LINE else "balloons"
    return {
        Group.PANELS: ("panels",),
        Group.PANEL_ORDER: ("panels", "order"),
        Group.PANEL_ORDER_ORACLE: ("order",),
        Group.TEXT: (text_stage,),
        Group.TEXT_ORDER: (text_stage, "order"),
        Group.TEXT_ORDER_ORACLE: ("order",),
        Group.DIALOGUE: ("text",),
        Group.CHARACTERS: ("characters",),
        Group.FACES: ("characters",),
        Group.SPEAKERS: ("balloons", "characters", "speakers"),
        Group.IDENTITY: ("characters",),
        Group.NARRATION: (),
        Group.SCRIPT: ("text", "balloons", "order"),
    }[group]


@dataclass(frozen=True, slots=True)
class PageRecord:
    """Everything measured on one page, kept so the worst pages can be listed."""

    page_id: str
    seconds: float
    groups: frozenset[Group]  # groups that were scored on this page
    counts: Mapping[str, Counts] = field(default_factory=dict)
    ocr: OcrCounts | None = None
    values: Mapping[str, float] = field(default_factory=dict)  # averaged over pages
    sums: Mapping[str, float] = field(default_factory=dict)  # summed over pages
    ap: Mapping[str, APInput] = field(default_factory=dict)
    notices: tuple[str, ...] = ()
    script: ScriptPageScore | None = None
    cues: CueCounts | None = None


def _order(item: Panel | Balloon) -> int | None:
    return item.order


def predicted_text_units(page: GTPage, pred: PageAnalysis) -> list[tuple[BBox, str, int | None, float]]:
    """(box, text, order, confidence) of the predicted units comparable with the page's text boxes."""
    if page.text_level is TextLevel.LINE:
        return [(ln.bbox, ln.text, None, ln.confidence) for ln in pred.lines]
    # Block level: a block is scored by its own box, which is what the reader reports and
    # highlights (the traced balloon with its tail, or its lines' box when no outline was
    # found). Scoring the union of its lines instead (round 1) gave openmantra 0.667
    # against 0.802: the later titles box a text as the inside of its balloon.
    return [(b.bbox, b.text, b.order, b.confidence) for b in pred.blocks]


def heard_blocks(
    pred: PageAnalysis, prefs: NarrationPrefs | None = None, *, order_cue: OrderCueModel | None = None
) -> list[HeardBlock]:
    """What the listener hears of each block, in reading order: its text and kind, its speaker
    (the page JSON's id) and the name said before it, and the cues, as the narration says it
    (``order_cue``: the model that decides "Order unclear.", default the shipped one)."""
    utterances = script_page(pred, prefs or NarrationPrefs(), order_cue=order_cue)
    said = {u.region.block: u for u in utterances if u.region.block}
    persons = {c.id: c.person for c in pred.characters if c.person is not None}
    out = []
    for b in pred.blocks_in_order():
        link = pred.speaker_of(b.id)
        utt = said.get(b.id)
        name = utt.speaker_name if utt is not None else None
        guess = utt is not None and name is not None and Flag.SPEAKER_UNCERTAIN in utt.flags
        unsure = utt is not None and Flag.UNCERTAIN in utt.flags
        speaker = link.character if link else None
        person = persons.get(speaker) if speaker is not None else None
        confidence = text_confidence(pred, b)
        order_cued = utt is not None and Flag.ORDER_UNCERTAIN in utt.flags
        out.append(
            HeardBlock(
                b.id,
                b.text,
                b.kind.value,
                speaker,
                name,
                guess,
                unsure,
                confidence,
                person,
                b.panel,
                order_cued,
            )
        )
    return out


def panels_cued(pred: PageAnalysis, prefs: NarrationPrefs | None = None) -> bool:
    """Whether the page is said with "The order of these panels is unclear."."""
    return any(
        u.region.block is None and Flag.ORDER_UNCERTAIN in u.flags
        for u in script_page(pred, prefs or NarrationPrefs())
    )


def _spoken_texts(pred: PageAnalysis) -> list[str]:
    if pred.blocks:
        return [b.text for b in pred.blocks_in_order() if b.text]
    return [ln.text for ln in sorted(pred.lines, key=lambda ln: (ln.bbox.y0, ln.bbox.x0)) if ln.text]


def oracle_order(
    page: GTPage, image: Image, order_stage: Stage
) -> tuple[list[int | None], list[int | None]] | None:
    """Orders the order stage gives to the *true* panels and text boxes (fed in unordered)."""
    panels = tuple(
        Panel(id=f"gt-{p.id}", bbox=p.bbox, confidence=1.0, stage="ground-truth") for p in page.panels
    )
    blocks = []
    for k, t in enumerate(page.text_units()):
        holder = max(panels, key=lambda p: t.bbox.coverage_by(p.bbox), default=None)
        in_panel = holder is not None and t.bbox.coverage_by(holder.bbox) >= 0.5
        blocks.append(
            Balloon(
                id=f"gt-b{k}",
                kind=BalloonKind.SPEECH,
                bbox=t.bbox,
                text=t.text or "",
                confidence=1.0,
                stage="ground-truth",
                panel=holder.id if in_panel and holder is not None else None,
            )
        )
    start = PageAnalysis(
        page=1,
        width=page.width,
        height=page.height,
        direction=page.direction,
        panels=panels,
        blocks=tuple(blocks),
        stages=("panels:ground-truth", "balloons:ground-truth"),
    )
    result = order_stage(image, start)
    panel_order = {p.id: p.order for p in result.panels}
    block_order = {b.id: b.order for b in result.blocks}
    return [panel_order.get(p.id) for p in panels], [block_order.get(b.id) for b in blocks]


def _ranks(orders: Sequence[int | None]) -> list[float]:
    last = len(orders) + 1
    return [float(o) if o is not None else float(last + k) for k, o in enumerate(orders)]


def score_page(
    page: GTPage,
    pred: PageAnalysis,
    groups: frozenset[Group],
    *,
    seconds: float,
    oracle: tuple[list[int | None], list[int | None]] | None = None,
    narration: str | None = None,
) -> PageRecord:
    """Compute every metric of ``groups`` on one page."""
    counts: dict[str, Counts] = {}
    values: dict[str, float] = {}
    sums: dict[str, float] = {}
    ap: dict[str, APInput] = {}
    ocr: OcrCounts | None = None
    true_panels = [p.bbox for p in page.panels]

    if Group.PANELS in groups:
        ap["panels"] = (tuple((p.bbox, p.confidence) for p in pred.panels), tuple(true_panels))
        counts["panels"] = Counts(
            len(match_boxes([p.bbox for p in pred.panels], true_panels)), len(pred.panels), len(true_panels)
        )
    if Group.PANEL_ORDER in groups:
        s = matched_order([(p.bbox, _order(p)) for p in pred.panels], true_panels)
        values["panel_order_ned"], values["panel_order_tau"] = s.ned, s.kendall_tau
    if oracle is not None and Group.PANEL_ORDER_ORACLE in groups and page.panels:
        s = order_score([float(k) for k in range(len(page.panels))], _ranks(oracle[0]))
        values["panel_order_oracle_ned"], values["panel_order_oracle_tau"] = s.ned, s.kendall_tau
    units = page.text_units()
    pred_units = predicted_text_units(page, pred) if groups & {Group.TEXT, Group.TEXT_ORDER} else []
    if Group.TEXT in groups:
        known = page.has(Fact.TEXT_CONTENT)
        ocr = ocr_counts(
            [(b, t) for b, t, _, _ in pred_units], [(u.bbox, u.text if known else None) for u in units]
        )
        ap["text"] = (tuple((b, c) for b, _, _, c in pred_units), tuple(u.bbox for u in units))
    if Group.TEXT_ORDER in groups:
        s = matched_order([(b, o) for b, _, o, _ in pred_units], [u.bbox for u in units])
        values["text_order_ned"], values["text_order_tau"] = s.ned, s.kendall_tau
    if oracle is not None and Group.TEXT_ORDER_ORACLE in groups and units:
        s = order_score([float(k) for k in range(len(units))], _ranks(oracle[1]))
        values["text_order_oracle_ned"], values["text_order_oracle_tau"] = s.ned, s.kendall_tau
    if Group.DIALOGUE in groups:
        tr = transcript_recall(page.dialogue, _spoken_texts(pred))
        sums.update(dialogue_recovered=tr.recovered, dialogue_in_order=tr.in_order, dialogue_n=tr.n_true)
        values["dialogue_recall"] = tr.recall
    char_matches: dict[int, int] = {}
    bodies = [c for c in pred.characters if c.kind == "body"]
    if groups & {Group.CHARACTERS, Group.SPEAKERS, Group.IDENTITY}:
        char_matches = dict(match_boxes([c.bbox for c in bodies], [c.bbox for c in page.characters]))
    if Group.CHARACTERS in groups:
        counts["characters"] = Counts(len(char_matches), len(bodies), len(page.characters))
        ap["characters"] = (
            tuple((c.bbox, c.confidence) for c in bodies),
            tuple(c.bbox for c in page.characters),
        )
    if Group.FACES in groups:
        faces = [c for c in pred.characters if c.kind == "face"]
        counts["faces"] = Counts(
            len(match_boxes([c.bbox for c in faces], [c.bbox for c in page.faces])),
            len(faces),
            len(page.faces),
        )
        ap["faces"] = (tuple((c.bbox, c.confidence) for c in faces), tuple(c.bbox for c in page.faces))
    if Group.SPEAKERS in groups:
        values.update(_speaker_values(page, pred, char_matches))
    if Group.IDENTITY in groups:
        pairs = [(page.characters[j].identity, bodies[i].cluster) for i, j in char_matches.items()]
        known_pairs = [(t, c) for t, c in pairs if t is not None]
        cs = identity_clustering([t for t, _ in known_pairs], [c for _, c in known_pairs])
        values["identity_ami"], values["identity_nmi"] = cs.ami, cs.nmi
    if Group.NARRATION in groups and narration is not None:
        texts = [*page.dialogue, *(u.text for u in units if u.text), *_spoken_texts(pred)]
        fs = narration_faithfulness(narration, texts)
        sums.update(
            narration_pages=1,
            narration_pages_flagged=int(fs.quotes_text_not_there),
            narration_quotes=fs.quotes,
            narration_unsupported=len(fs.unsupported),
        )
    script = cues = None
    if Group.SCRIPT in groups and page.script is not None:
        heard = heard_blocks(pred)
        script = replace(score_script_page(page.script, heard), page_id=page.page_id)
        cues = score_cues(page.script, heard, script, panels_cued=panels_cued(pred))
    return PageRecord(
        page_id=page.page_id,
        seconds=seconds,
        groups=groups,
        script=script,
        cues=cues,
        counts=counts,
        ocr=ocr,
        values=values,
        sums=sums,
        ap=ap,
        notices=pred.notices,
    )


def _speaker_values(page: GTPage, pred: PageAnalysis, char_matches: Mapping[int, int]) -> dict[str, float]:
    """Recall@#text and the Hybrid Dialog Score of one page."""
    pred_chars = [c for c in pred.characters if c.kind == "body"]
    identity_of_pred = {pred_chars[i].id: page.characters[j].identity for i, j in char_matches.items()}
    name_of = {c.identity: c.name for c in page.characters if c.identity}
    block_matches = dict(
        (j, i) for i, j in match_boxes([b.bbox for b in pred.blocks], [b.bbox for b in page.balloons])
    )
    speaking = [(k, b) for k, b in enumerate(page.balloons) if b.speaker]
    predicted: list[str | None] = []
    for k, _ in speaking:
        i = block_matches.get(k)
        link = pred.speaker_of(pred.blocks[i].id) if i is not None else None
        # the figure the balloon belongs to in its own panel (the person's first figure may
        # be in another panel): Recall@#text asks which drawn character says it
        who = (link.figure or link.character) if link is not None else None
        predicted.append(identity_of_pred.get(who) if who else None)
    sr = speaker_recall([b.speaker or "" for _, b in speaking], predicted)
    true_pairs = [(name_of.get(b.speaker) if b.speaker else None, b.text or "") for b in page.balloons]
    pred_pairs = []
    for b in pred.blocks_in_order():
        link = pred.speaker_of(b.id)
        voice = pred.voice_of(link) if link is not None and link.character else None  # as heard
        pred_pairs.append(((voice.name or voice.cluster or voice.id) if voice is not None else None, b.text))
    hds = hybrid_dialog_score(true_pairs, pred_pairs)
    return {
        "speaker_recall": sr.recall,
        "hds": hds.hds,
        "hds_text": hds.text,
        "hds_name": hds.name,
    }
