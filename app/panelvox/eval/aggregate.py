"""Turn per-page records into a dataset's metrics (micro sums for counts, page means for scores)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from panelvox.eval.cue_calibration import cue_metrics
from panelvox.eval.dialogue_metrics import mean_of
from panelvox.eval.metrics import Counts, OcrCounts, average_precision
from panelvox.eval.page_scoring import Group, PageRecord
from panelvox.eval.script_metrics import aggregate_scores

#: a metric whose pipeline stage does not exist yet
NOT_IMPLEMENTED = "not implemented"
#: a metric the dataset has no annotation for
NOT_ANNOTATED = "n/a"

MetricValue = float | str

_DETECTION = ("P", "R", "F1", "AP50")
_OCR = ("det_P", "det_R", "det_Hmean", "e2e_P", "e2e_R", "e2e_Hmean", "1-NED", "AP50")

#: metric names of each group, in report order
GROUP_METRICS: Mapping[Group, tuple[str, ...]] = {
    Group.PANELS: tuple(f"panels.{m}" for m in _DETECTION),
    Group.PANEL_ORDER: ("panels.order_NED", "panels.order_tau"),
    Group.PANEL_ORDER_ORACLE: ("panels.oracle_order_NED", "panels.oracle_order_tau"),
    Group.TEXT: tuple(f"text.{m}" for m in _OCR),
    Group.TEXT_ORDER: ("text.order_NED", "text.order_tau"),
    Group.TEXT_ORDER_ORACLE: ("text.oracle_order_NED", "text.oracle_order_tau"),
    Group.DIALOGUE: ("dialogue.recall", "dialogue.ordered_recall"),
    Group.CHARACTERS: tuple(f"characters.{m}" for m in _DETECTION),
    Group.FACES: tuple(f"faces.{m}" for m in _DETECTION),
    Group.SPEAKERS: ("speakers.recall@text", "speakers.HDS", "speakers.HDS_text", "speakers.HDS_name"),
    Group.IDENTITY: ("characters.AMI", "characters.NMI"),
    Group.NARRATION: ("narration.pages_quoting_absent_text", "narration.unsupported_quote_rate"),
    Group.SCRIPT: (
        *(
            f"script.{m}"
            for m in (
                "attribution",
                "turns",
                "named_precision",
                "sure_name_precision",
                "guess_precision",
                "named_recall",
                "names_said",
                "guesses_said",
                "found_rate",
                "in_order_rate",
                "exact_rate",
                "kind_right_rate",
                "junk_rate",
                "baseline.attribution",
                "baseline.turns",
                "story_attribution",
                "common_label",
                "labels_per_person",
                "baseline.story_attribution",
                "baseline.labels_per_person",
            )
        ),
        # the uncertainty cue: how often a line said with it, or plainly, is wrong
        "cue.cued_share",
        "cue.cued_wrong",
        "cue.plain_wrong",
        "cue.wrong_cued",
        "cue.text_cued_wrong",
        "cue.text_plain_wrong",
        "cue.speaker_cued_wrong",
        "cue.speaker_plain_wrong",
        # "Order unclear." and the page's panel notice: how often a cued or a plain panel
        # (page) is out of order (issue 31)
        "cue.order_said",
        "cue.order_panels",
        "cue.order_cued",
        "cue.order_cued_wrong",
        "cue.order_plain_wrong",
        "cue.order_pages",
        "cue.order_pages_cued",
        "cue.order_pages_cued_wrong",
        "cue.order_pages_plain_wrong",
    ),
}

#: (metric, per-page value key, higher is better) used to list a dataset's worst pages
WORST_PAGE_KEYS: tuple[tuple[str, str, bool], ...] = (
    ("panels.F1", "panels_f1", True),
    ("panels.order_NED", "panel_order_ned", False),
    ("text.det_Hmean", "text_det_hmean", True),
    ("text.e2e_Hmean", "text_e2e_hmean", True),
    ("text.order_NED", "text_order_ned", False),
    ("text.oracle_order_NED", "text_order_oracle_ned", False),
    ("dialogue.recall", "dialogue_recall", True),
    ("speakers.recall@text", "speaker_recall", True),
)


def group_metric_names(group: Group) -> tuple[str, ...]:
    return GROUP_METRICS[group]


def _sum_counts(records: Sequence[PageRecord], key: str) -> Counts:
    total = Counts(0, 0, 0)
    for r in records:
        total = total + r.counts.get(key, Counts(0, 0, 0))
    return total


def _detection(prefix: str, records: Sequence[PageRecord]) -> dict[str, MetricValue]:
    c = _sum_counts(records, prefix)
    ap = average_precision([r.ap[prefix] for r in records if prefix in r.ap])
    return {f"{prefix}.P": c.precision, f"{prefix}.R": c.recall, f"{prefix}.F1": c.f1, f"{prefix}.AP50": ap}


def _mean(records: Sequence[PageRecord], key: str) -> float:
    return mean_of([r.values[key] for r in records if key in r.values])


def _sum(records: Sequence[PageRecord], key: str) -> float:
    return sum(r.sums.get(key, 0.0) for r in records)


def _ratio(num: float, den: float) -> float:
    return num / den if den else float("nan")


def aggregate(group: Group, records: Sequence[PageRecord]) -> dict[str, MetricValue]:
    """The group's metrics over the pages it was scored on."""
    if group in (Group.PANELS, Group.CHARACTERS, Group.FACES):
        return _detection(group.value, records)
    if group is Group.TEXT:
        ocr = OcrCounts(Counts(0, 0, 0), Counts(0, 0, 0), 0.0, 0)
        for r in records:
            if r.ocr is not None:
                ocr = ocr + r.ocr
        ap = average_precision([r.ap["text"] for r in records if "text" in r.ap])
        return {
            "text.det_P": ocr.detection.precision,
            "text.det_R": ocr.detection.recall,
            "text.det_Hmean": ocr.detection.f1,
            "text.e2e_P": ocr.end_to_end.precision if ocr.end_to_end.n_true else float("nan"),
            "text.e2e_R": ocr.end_to_end.recall if ocr.end_to_end.n_true else float("nan"),
            "text.e2e_Hmean": ocr.end_to_end.f1 if ocr.end_to_end.n_true else float("nan"),
            "text.1-NED": ocr.mean_similarity,
            "text.AP50": ap,
        }
    if group is Group.DIALOGUE:
        n = _sum(records, "dialogue_n")
        return {
            "dialogue.recall": _ratio(_sum(records, "dialogue_recovered"), n),
            "dialogue.ordered_recall": _ratio(_sum(records, "dialogue_in_order"), n),
        }
    if group is Group.SPEAKERS:
        return {
            "speakers.recall@text": _mean(records, "speaker_recall"),
            "speakers.HDS": _mean(records, "hds"),
            "speakers.HDS_text": _mean(records, "hds_text"),
            "speakers.HDS_name": _mean(records, "hds_name"),
        }
    if group is Group.IDENTITY:
        return {
            "characters.AMI": _mean(records, "identity_ami"),
            "characters.NMI": _mean(records, "identity_nmi"),
        }
    if group is Group.NARRATION:
        return {
            "narration.pages_quoting_absent_text": _ratio(
                _sum(records, "narration_pages_flagged"), _sum(records, "narration_pages")
            ),
            "narration.unsupported_quote_rate": _ratio(
                _sum(records, "narration_unsupported"), _sum(records, "narration_quotes")
            ),
        }
    if group is Group.SCRIPT:
        totals = aggregate_scores(r.script for r in records if r.script is not None)
        cues = cue_metrics(r.cues for r in records if r.cues is not None)
        return {
            name: cues[name] if name.startswith("cue.") else totals[name.removeprefix("script.")]
            for name in GROUP_METRICS[group]
        }
    names = GROUP_METRICS[group]
    keys = {
        Group.PANEL_ORDER: ("panel_order_ned", "panel_order_tau"),
        Group.PANEL_ORDER_ORACLE: ("panel_order_oracle_ned", "panel_order_oracle_tau"),
        Group.TEXT_ORDER: ("text_order_ned", "text_order_tau"),
        Group.TEXT_ORDER_ORACLE: ("text_order_oracle_ned", "text_order_oracle_tau"),
    }[group]
    return {name: _mean(records, key) for name, key in zip(names, keys, strict=True)}


def page_value(record: PageRecord, key: str) -> float | None:
    """A per-page number for the worst-pages list (None where the page did not measure it)."""
    if key == "panels_f1":
        c = record.counts.get("panels")
        return c.f1 if c else None
    if key in ("text_det_hmean", "text_e2e_hmean"):
        if record.ocr is None:
            return None
        counts = record.ocr.detection if key == "text_det_hmean" else record.ocr.end_to_end
        return counts.f1 if counts.n_true else None
    v = record.values.get(key)
    return None if v is None or v != v else v


def worst_pages(
    records: Sequence[PageRecord], key: str, higher_is_better: bool, n: int = 5
) -> list[tuple[str, float]]:
    """The ``n`` pages with the worst value of ``key``; perfect pages are never listed."""
    perfect = 1.0 if higher_is_better else 0.0
    scored = [(r.page_id, v) for r in records if (v := page_value(r, key)) is not None and v != perfect]
    scored.sort(key=lambda pv: pv[1], reverse=not higher_is_better)
    return scored[:n]
