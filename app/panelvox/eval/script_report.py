"""The golden-script report: one row per page and the dataset's rates, as markdown."""

from __future__ import annotations

from collections.abc import Sequence

from panelvox.eval.script_metrics import ScriptPageScore, total_score
from panelvox.eval.story_metrics import story_rows


def _frac(num: int, den: int) -> str:
    return f"{num}/{den}" if den else "–"


def _rate(v: float) -> str:
    return "–" if v != v else f"{v:.3f}"  # NaN is the only value unequal to itself


def _row(s: ScriptPageScore, label: str) -> str:
    c = s.speakers
    cells = (
        label,
        str(s.lines),
        str(s.found),
        str(s.in_order),
        str(s.exact),
        str(s.kind_right),
        f"{s.blocks} / {s.junk}",
        _frac(c.attribution_right, c.attribution_total),
        _frac(c.turns_right, c.turns_total),
        f"{c.names_said} / {c.names_right}",
        f"{c.guesses_said} / {c.guesses_right}",
        _frac(c.recall_right, c.recall_total),
    )
    return "| " + " | ".join(cells) + " |"


def format_script_report(page_scores: Sequence[ScriptPageScore]) -> str:
    """A markdown table, one row per page and a totals row, then the dataset's rates."""
    head = (
        "| page | lines | found | in order | exact | kind right | blocks / junk | attribution | turns "
        "| names said / right | guesses said / right | named recall |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    t = total_score(page_scores)
    table = [head, *(_row(s, s.page_id) for s in page_scores), _row(t, "**total**")]
    ours, base = t.speakers, t.baseline
    summary = [
        "| metric | Panelvox | one speaker, no names |",
        "|---|---:|---:|",
        f"| lines found | {_rate(t.found_rate)} | |",
        f"| found in reading order | {_rate(t.in_order_rate)} | |",
        f"| read exactly | {_rate(t.exact_rate)} | |",
        f"| kind right (of found) | {_rate(t.kind_right_rate)} | |",
        f"| junk blocks | {_rate(t.junk_rate)} | |",
        f"| speaker attribution | {_rate(ours.attribution)} | {_rate(base.attribution)} |",
        f"| speaker turns | {_rate(ours.turns)} | {_rate(base.turns)} |",
        f"| named precision | {_rate(ours.named_precision)} | {_rate(base.named_precision)} |",
        f"| … sure names | {_rate(ours.sure_name_precision)} | {_rate(base.sure_name_precision)} |",
        f"| … guesses | {_rate(ours.guess_precision)} | {_rate(base.guess_precision)} |",
        f"| named recall | {_rate(ours.named_recall)} | {_rate(base.named_recall)} |",
        *story_rows([(s.page_id, s.dialogue) for s in page_scores]),
    ]
    return "\n".join(table) + "\n\n" + "\n".join(summary) + "\n"
