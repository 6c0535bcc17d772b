"""What ``panelvox eval DATASET`` does: load, run, print the table, write the files."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from panelvox.analysis.pipeline import Stage, default_stages
from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import Dataset, GTPage
from panelvox.eval.loaders import KNOWN_DATASETS, data_root, load_dataset
from panelvox.eval.overlay import write_overlay
from panelvox.eval.progress import ProgressBar
from panelvox.eval.report import format_table, write_outputs
from panelvox.eval.runner import DatasetResult, EvalStage, run_eval
from panelvox.i18n import _
from panelvox.model import Image, PageAnalysis

ALL = "all"
#: ``--stage describe``: the describer and verifier (not a pipeline stage, see describe_eval)
DESCRIBE = "describe"


def _command(dataset: str, stage: str) -> str:
    return "panelvox eval " + shlex.join(
        sys.argv[2:] if sys.argv[1:2] == ["eval"] else [dataset, "--stage", stage]
    )


def _datasets(name: str) -> list[Dataset]:
    if name != ALL:
        return [load_dataset(name)]
    root = data_root()
    present = [n for n in KNOWN_DATASETS if root is not None and (root / n).is_dir()]
    if not present:
        raise DatasetError(
            # Translators: printed when `panelvox eval all` finds no evaluation data at all.
            _("No evaluation data was found."),
            detail="no known dataset under ../shared/data or $PANELVOX_EVAL_DATA",
        )
    return [load_dataset(n) for n in present]


def run_command(
    dataset: str,
    stage: str = "all",
    *,
    limit: int | None = None,
    out: Path | None = None,
    overlays: bool = False,
    narrations: Path | None = None,
    stages: tuple[Stage, ...] | None = None,
    describer: str = "auto",
    model: str | None = None,
    samples: int = 3,
) -> int:
    """Run the evaluation, print the table, write metrics.json and report.md; returns 0.

    ``stage="describe"`` measures the describer and verifier instead (:mod:`.describe_eval`;
    ``describer``, ``model`` and ``samples`` apply only to it).
    """
    if stage == DESCRIBE:
        from panelvox.eval.describe_report import run_command as run_describe

        return run_describe(
            dataset,
            describer,
            model=model,
            samples=samples,
            limit=limit,
            out=out,
            command=_command(dataset, stage),
        )
    eval_stage = EvalStage(stage)
    datasets = _datasets(dataset)
    out_dir = out if out is not None else Path("out") / "eval" / Path(dataset).name
    pipeline = default_stages() if stages is None else stages  # built once for every dataset
    results: list[DatasetResult] = []
    for ds in datasets:
        overlay_dir = out_dir / (ds.name if len(datasets) > 1 else "") / "overlays"

        def on_page(page: GTPage, image: Image, pred: PageAnalysis, _dir: Path = overlay_dir) -> None:
            write_overlay(_dir, image, page, pred)

        results.append(
            run_eval(
                ds,
                eval_stage,
                stages=pipeline,
                limit=limit,
                narrations=narrations,
                progress=ProgressBar(ds.name),
                on_page=on_page if overlays else None,
            )
        )
    print(format_table(results))
    write_outputs(results, out_dir, _command(dataset, stage))
    # Translators: printed after an evaluation; {path} is the folder with metrics.json and report.md.
    print(_("Results written to {path}").format(path=out_dir), file=sys.stderr)
    return 0
