"""``panelvox eval DATASET --stage describe``: pick the claim source, run, print and write the results."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any, TextIO

from panelvox.analysis.pipeline import Stage
from panelvox.errors import DatasetError
from panelvox.eval.describe_eval import ClaimSource, DescribeEvalResult, run_injected, run_model
from panelvox.eval.loaders import load_dataset
from panelvox.eval.progress import ProgressBar
from panelvox.i18n import _
from panelvox.models.device import Device
from panelvox.models.registry import ModelRegistry, read_gguf_info
from panelvox.narration.describe import DescribeConfig, Describer
from panelvox.narration.vlm_backend import BackendConfig, LlamaBackend, entry_for


def resolve_source(source: ClaimSource, registry: ModelRegistry) -> ClaimSource:
    """AUTO: the model when one was added, else the injected claims."""
    if source is not ClaimSource.AUTO:
        return source
    return ClaimSource.MODEL if registry.entries() else ClaimSource.INJECTED


def evaluate(
    dataset: str,
    source: ClaimSource = ClaimSource.AUTO,
    *,
    model: str | None = None,
    samples: int = 3,
    device: Device = Device.AUTO,
    limit: int | None = None,
    stages: tuple[Stage, ...] | None = None,
    registry: ModelRegistry | None = None,
) -> DescribeEvalResult:
    """Run the describe evaluation on one dataset (``model`` names an added model)."""
    if dataset == "all":
        raise DatasetError(
            # Translators: `panelvox eval all --stage describe`; "cib" is a dataset's name, keep it.
            _("The describe evaluation runs on one dataset at a time, for example cib."),
            detail="--stage describe with 'all'",
        )
    reg = registry or ModelRegistry()
    chosen = resolve_source(ClaimSource.MODEL if model else source, reg)
    ds = load_dataset(dataset)
    progress = ProgressBar(ds.name)
    if chosen is ClaimSource.INJECTED:
        return run_injected(ds, stages=stages, limit=limit, progress=progress)
    entry = entry_for(model, reg)
    read_gguf_info(entry.path)  # a moved or damaged file fails here with a clear message
    backend = LlamaBackend(BackendConfig(entry.path, entry.mmproj, device=device))
    try:
        backend.load()
        where = "GPU (all layers)" if backend.gpu_layers else "CPU"
        label = (
            f"{entry.name} ({entry.architecture}"
            + (f" + {entry.projector}" if entry.projector else ", text only")
            + f", {entry.total_bytes / 1024**2:.0f} MiB, sha256 {entry.sha256[:12]}) on {where}"
        )
        describer = Describer(backend, DescribeConfig(samples=samples))
        return run_model(ds, describer, label=label, stages=stages, limit=limit, progress=progress)
    finally:
        backend.close()


def _value(v: float | int | str) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    return "–" if math.isnan(v) else f"{v:.3f}"


def format_result(result: DescribeEvalResult) -> str:
    rows = [
        ("dataset", result.dataset),
        ("claims from", f"{result.source.value}: {result.label}"),
        ("pages", str(result.pages)),
        ("seconds", f"{result.seconds:.1f}"),
    ]
    rows += [(k, _value(v)) for k, v in result.metrics.items()]
    width = max(len(k) for k, _v in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def result_json(result: DescribeEvalResult) -> dict[str, Any]:
    def clean(v: float | int | str) -> float | int | str | None:
        return None if isinstance(v, float) and math.isnan(v) else v

    return {
        "dataset": result.dataset,
        "stage": "describe",
        "source": result.source.value,
        "label": result.label,
        "pages": result.pages,
        "seconds": round(result.seconds, 3),
        "metrics": {k: clean(v) for k, v in result.metrics.items()},
        "per_page": list(result.per_page),
    }


def run_command(
    dataset: str,
    source: str = "auto",
    *,
    model: str | None = None,
    samples: int = 3,
    limit: int | None = None,
    out: Path | None = None,
    command: str = "",
    stream: TextIO | None = None,
) -> int:
    """``panelvox eval DATASET --stage describe``: print the table, write metrics.json and report.md."""
    stream = stream or sys.stdout
    result = evaluate(dataset, ClaimSource(source), model=model, samples=samples, limit=limit)
    table = format_result(result)
    stream.write(table + "\n")
    out_dir = out if out is not None else Path("out") / "eval" / Path(dataset).name
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "metrics.json").write_text(
        json.dumps(result_json(result), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    report = "\n".join(
        ["# panelvox eval --stage describe", "", f"Command: `{command}`", "", "```", table, "```", ""]
    )
    (out_dir / "report.md").write_text(report, encoding="utf-8")
    # Translators: printed after an evaluation; {path} is the folder with metrics.json and report.md.
    print(_("Results written to {path}").format(path=out_dir), file=sys.stderr)
    return 0
