"""The results of ``panelvox eval`` as a printed table, metrics.json and report.md."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from panelvox.eval.aggregate import WORST_PAGE_KEYS, MetricValue, worst_pages
from panelvox.eval.cue_calibration import format_cue_report
from panelvox.eval.runner import DatasetResult
from panelvox.eval.script_report import format_script_report


def fmt(value: MetricValue) -> str:
    if isinstance(value, str):
        return value
    if math.isnan(value):
        return "–"
    return f"{value:.3f}"


def table_rows(results: Sequence[DatasetResult]) -> list[list[str]]:
    """Metrics as rows, datasets as columns (a row per dataset would be far too wide)."""
    names: list[str] = []
    for r in results:
        names.extend(n for n in r.metrics if n not in names)
    rows = [["metric", *(r.dataset for r in results)]]
    rows.append(["pages", *(str(r.pages) for r in results)])
    rows.append(["pages/second", *(fmt(r.pages_per_second) for r in results)])
    for name in names:
        rows.append([name, *(fmt(r.metrics.get(name, "n/a")) for r in results)])
    return rows


def format_table(results: Sequence[DatasetResult]) -> str:
    rows = table_rows(results)
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(widths[k]) for k, cell in enumerate(row)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(results: Sequence[DatasetResult]) -> str:
    rows = table_rows(results)
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out.extend("| " + " | ".join(row) + " |" for row in rows[1:])
    return "\n".join(out)


def _json_value(value: MetricValue) -> float | str | None:
    if isinstance(value, str):
        return value
    return None if math.isnan(value) else round(value, 4)


def result_json(result: DatasetResult) -> dict[str, Any]:
    return {
        "dataset": result.dataset,
        "stage": result.stage.value,
        "pages": result.pages,
        "seconds": round(result.seconds, 3),
        "pages_per_second": _json_value(result.pages_per_second),
        "stages_available": list(result.stages_available),
        "metrics": {k: _json_value(v) for k, v in result.metrics.items()},
        "per_page": [
            {
                "page": r.page_id,
                "seconds": round(r.seconds, 3),
                "groups": sorted(g.value for g in r.groups),
                "values": {k: _json_value(v) for k, v in r.values.items()},
                "counts": {k: {"tp": c.tp, "pred": c.n_pred, "true": c.n_true} for k, c in r.counts.items()},
                "ocr": None
                if r.ocr is None
                else {
                    "det": [r.ocr.detection.tp, r.ocr.detection.n_pred, r.ocr.detection.n_true],
                    "e2e": [r.ocr.end_to_end.tp, r.ocr.end_to_end.n_pred, r.ocr.end_to_end.n_true],
                    "mean_1-NED": _json_value(r.ocr.mean_similarity),
                },
                "notices": list(r.notices),
            }
            for r in result.records
        ],
    }


def report_markdown(results: Sequence[DatasetResult], command: str) -> str:
    parts = [
        "# panelvox eval",
        "",
        f"Command: `{command}`",
        "",
        "`not implemented`: the pipeline has no stage for it yet; `n/a`: the dataset has no "
        "annotation for it; `–`: nothing to measure on the pages run.",
        "",
        markdown_table(results),
        "",
    ]
    for r in results:
        parts.append(f"## {r.dataset}")
        parts.append("")
        parts.append(
            f"Stages run: {', '.join(r.stages_available) or 'none'}; {r.pages} pages in {r.seconds:.1f} s."
        )
        parts.append("")
        for metric, key, higher in WORST_PAGE_KEYS:
            worst = worst_pages(r.records, key, higher)
            if worst:
                listed = ", ".join(f"{page} ({value:.2f})" for page, value in worst)
                parts.append(f"- worst pages by {metric}: {listed}")
        notices = sorted({n for rec in r.records for n in rec.notices})
        if notices:
            parts.append(f"- notices met: {'; '.join(notices)}")
        parts.append("")
    return "\n".join(parts)


def write_outputs(results: Sequence[DatasetResult], out_dir: Path, command: str) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    data: Any = (
        result_json(results[0]) if len(results) == 1 else {"datasets": [result_json(r) for r in results]}
    )
    (out_dir / "metrics.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out_dir / "report.md").write_text(report_markdown(results, command), encoding="utf-8")
    for r in results:  # the golden scripts' per-page table: where speakers and names fail
        scripts = [rec.script for rec in r.records if rec.script is not None]
        if scripts:
            name = "script.md" if len(results) == 1 else f"script-{r.dataset}.md"
            text = f"# {r.dataset}: what the listener hears, page by page\n\nCommand: `{command}`\n\n"
            cues = [rec.cues for rec in r.records if rec.cues is not None]
            text += format_script_report(scripts)
            text += "\n## The uncertainty cue: how often a line said with it, or plainly, is wrong\n\n"
            (out_dir / name).write_text(text + format_cue_report(cues), encoding="utf-8")
