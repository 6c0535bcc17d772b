#!/usr/bin/env python3
"""Choose the order cue (app/panelvox/narration/data/order_cue.json: is a panel's balloon
order more likely wrong than right, so that "Order unclear." is said before it?) and report
its figures held out by story.

Data: the cib golden scripts in ../shared/data and, with ``--extra``, cib-extra (more pages
of the same 24 stories); for measuring and this training only, nothing of them is copied
into the project but the model's numbers. Each page is analysed once by the default stages
without characters and speakers (the order does not depend on them), with the text models'
lines remembered as ``scripts/eval_script_cached.py`` does; the analyses are cached under
$XDG_CACHE_HOME/panelvox/train-order. A panel is a sample when the narrator could cue it
(two or more blocks heard in it) and the eval can check it (``panelvox.eval.cue_calibration``:
two or more golden lines found in it); its label is "its golden lines are heard out of
order". Its features are :func:`panelvox.narration.order_cue.panel_features`.

Cross-validation holds out one story at a time (all its pages, cib and extra): what is
chosen on the other stories says which of its panels get the cue. Two ways are measured so:
a logistic regression over every feature (C chosen by held-out log loss), and a single cut
on the stage's least sure decision inside the panel, the largest under which the other
stories' panels are wrong more often than not (none qualifying: the cue is never said). Both
are reported beside the rule they replace (the cue wherever a heard block's order confidence
is under 0.5). The cut ships (the logistic regression, held out, ranked wrong panels worse
than chance on these data: see docs/benchmarks.md), chosen on every story.

    .venv/bin/python scripts/train_order_cue.py --extra ../shared/data/cib-extra          # report
    .venv/bin/python scripts/train_order_cue.py --extra ../shared/data/cib-extra --write  # and write
    .venv/bin/python scripts/train_order_cue.py --stories 2                               # smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))
sys.path.insert(0, str(REPO / "scripts"))
os.environ.setdefault("PANELVOX_EVAL_DATA", str(REPO.parent / "shared" / "data"))

from eval_script_cached import cache_text_reading  # noqa: E402

from panelvox import paths  # noqa: E402
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.eval.cue_calibration import page_order_wrong, panel_order_wrong  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import GoldenScript  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.script_metrics import score_script_page  # noqa: E402
from panelvox.model import PageAnalysis  # noqa: E402
from panelvox.narration.order_cue import (  # noqa: E402
    INNER,
    MODEL_FILE,
    OrderCueModel,
    page_feature,
    panel_features,
)
from panelvox.narration.prefs import NarrationPrefs  # noqa: E402
from panelvox.narration.script import heard_in_panel  # noqa: E402

MODEL = REPO / "app" / "panelvox" / "narration" / MODEL_FILE
#: the logistic regression's inverse regularisation, chosen by the same held-out figures
#: from these (few wrong panels: strong regularisation keeps the probabilities modest)
C_CHOICES = (0.03, 0.1, 0.3, 1.0)
#: the cue before this work: any heard block of the panel under this order confidence
OLD_THRESHOLD = 0.5
#: the cue that is never said: the narration of the training pages needs one (labels only)
SILENT = OrderCueModel(0.0)
#: the logistic regression's probability above which it would cue
CUE_PROBABILITY = 0.5


@dataclass(frozen=True, slots=True)
class Sample:
    story: str
    page: str
    panel: str
    features: tuple[float, ...]
    wrong: bool
    old_cue: bool  # the rule before this work said "Order unclear." (or the page's notice) here


def page_samples(
    story: str, page_id: str, analysis: PageAnalysis, script: GoldenScript
) -> tuple[list[Sample], Sample | None]:
    """The page's checkable panels, and the page itself when its panel order is checkable
    (its one feature: the least sure panel's place)."""
    heard = heard_blocks(analysis, order_cue=SILENT)
    score = score_script_page(script, heard)
    labels = panel_order_wrong(script, heard, score)
    page_wrong = page_order_wrong(heard, score)
    least = page_feature(analysis)
    page = (
        Sample(story, page_id, "", (least,), page_wrong, least < OLD_THRESHOLD)
        if page_wrong is not None and len(analysis.panels) > 1
        else None
    )
    prefs = NarrationPrefs()
    out = []
    for panel_id, wrong in labels.items():
        said = heard_in_panel(analysis, prefs, panel_id)
        if len(said) < 2:  # the narrator only cues a panel with two or more blocks heard
            continue
        old = any(b.order_confidence < OLD_THRESHOLD for b in said)
        out.append(Sample(story, page_id, panel_id, panel_features(analysis, panel_id), wrong, old))
    return out, page


def fit(samples: list[Sample], c: float) -> Callable[[tuple[float, ...]], float]:
    """A logistic regression on standardised features: the probability a panel is wrong."""
    if not samples:
        return lambda _x: 0.0
    x = np.array([s.features for s in samples], np.float64)
    y = np.array([s.wrong for s in samples], np.int64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    if len(set(y.tolist())) < 2:  # a smoke run that sees one class
        rate = float(y.mean())
        return lambda _x: rate
    lr = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)

    def probability(features: tuple[float, ...]) -> float:
        z = (np.asarray(features) - mean) / scale
        return float(lr.predict_proba(z[None, :])[0, 1])

    return probability


def choose_threshold(samples: list[Sample], index: int) -> float:
    """The largest cut on feature ``index`` (a confidence of the stage) at or under which the
    samples are wrong more often than not (0: no cut qualifies, never cue)."""
    best = 0.0
    for t in sorted({s.features[index] for s in samples}):
        below = [s for s in samples if s.features[index] <= t]
        if below and sum(s.wrong for s in below) * 2 > len(below):
            best = max(best, t)
    return best


def held_out_cuts(samples: list[Sample], stories: list[str], index: int) -> dict[str, object]:
    """The figures of a cut chosen on the other stories, for each story's samples."""
    cued = [False] * len(samples)
    cuts = {}
    for story in stories:
        cuts[story] = choose_threshold([s for s in samples if s.story != story], index)
        for i, s in enumerate(samples):
            if s.story == story:
                cued[i] = cuts[story] > 0 and s.features[index] <= cuts[story]
    return figures(samples, cued) | {"cuts": sorted(set(cuts.values()))}


def figures(samples: list[Sample], cued: list[bool]) -> dict[str, float | int | None]:
    n = len(samples)
    k = sum(cued)
    cw = sum(s.wrong for s, c in zip(samples, cued, strict=True) if c)
    pw = sum(s.wrong for s, c in zip(samples, cued, strict=True) if not c)
    wrong = cw + pw
    return {
        "panels": n,
        "wrong": wrong,
        "cues": k,
        "cued_wrong": round(cw / k, 3) if k else None,
        "plain_wrong": round(pw / (n - k), 3) if n - k else None,
        "wrong_cued": round(cw / wrong, 3) if wrong else None,
    }


def scores(samples: list[Sample], probability: list[float]) -> dict[str, float]:
    """Held-out log loss and AUC of the probabilities, their largest, and the log loss of
    the base rate of the same samples (what knowing nothing of a panel scores)."""
    y = np.array([s.wrong for s in samples], np.float64)
    p = np.clip(np.array(probability), 1e-6, 1 - 1e-6)
    rate = float(np.clip(y.mean(), 1e-6, 1 - 1e-6)) if len(y) else 0.5
    pos, neg = p[y == 1], p[y == 0]
    auc = (
        float(
            ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum())
            / (len(pos) * len(neg))
        )
        if len(pos) and len(neg)
        else float("nan")
    )
    return {
        "log_loss": round(float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()), 4)
        if len(y)
        else float("nan"),
        "base_rate_log_loss": round(float(-(y * np.log(rate) + (1 - y) * np.log(1 - rate)).mean()), 4)
        if len(y)
        else float("nan"),
        "auc": round(auc, 3),
        "max_probability": round(float(p.max()), 3) if len(p) else float("nan"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write", action="store_true", help="write the model fitted on every story")
    parser.add_argument("--extra", type=Path, help="cib-extra: more pages of the same stories")
    parser.add_argument("--stories", type=int, help="only the first N stories (a smoke run)")
    parser.add_argument(
        "--text-cache", type=Path, default=Path.home() / ".cache" / "panelvox-dev" / "read_lines"
    )
    parser.add_argument("--dump", type=Path, help="write the samples as JSON lines (for a look)")
    args = parser.parse_args()

    cache_text_reading(args.text_cache)
    dataset = load_dataset("cib")
    pages = [p for p in dataset.pages if p.script is not None]
    extra = [p for p in load_dataset(args.extra).pages if p.script is not None] if args.extra else []
    stages = tuple(s for s in default_stages() if s.name not in ("characters", "speakers"))
    analyzer = PageAnalyzer(
        stages, AnalysisCache(paths.cache_dir() / "train-order", pipeline_fingerprint(stages))
    )
    stories = books_of(pages)[: args.stories]
    extra_of = dict(books_of(extra))

    samples: list[Sample] = []
    pages_: list[Sample] = []
    for k, (story, story_pages) in enumerate(stories, 1):
        print(f"[{k}/{len(stories)}] {story}", file=sys.stderr)
        for group in (story_pages, extra_of.get(story, [])):
            if not group:
                continue
            book = DatasetBook(story, group)
            for number, page in enumerate(group, 1):
                analysis = analyzer.analyze_page(book, number, page.direction)
                panels, whole = page_samples(story, page.page_id, analysis, page.script)
                samples.extend(panels)
                pages_.extend([whole] if whole is not None else [])
    if args.dump:
        args.dump.write_text("".join(json.dumps(_row(s)) + "\n" for s in samples))

    names = [story for story, _pages in stories]
    report: dict[str, object] = {"before": figures(samples, [s.old_cue for s in samples])}
    by_c: dict[float, dict[str, float | int | None]] = {}
    for c in C_CHOICES:
        probability = [0.0] * len(samples)
        for story in names:
            model = fit([s for s in samples if s.story != story], c)
            for i, s in enumerate(samples):
                if s.story == story:
                    probability[i] = model(s.features)
        by_c[c] = figures(samples, [p > CUE_PROBABILITY for p in probability]) | scores(samples, probability)
        print(f"logistic C={c}: held out by story", json.dumps(by_c[c]))
    report["threshold_held_out"] = held_out_cuts(samples, names, INNER)
    report["pages_before"] = figures(pages_, [s.old_cue for s in pages_])
    report["pages_threshold_held_out"] = held_out_cuts(pages_, names, 0)
    # the C whose held-out probabilities are best calibrated (log loss, a proper score)
    best = min(C_CHOICES, key=lambda c: (float(by_c[c]["log_loss"] or 0.0), c))
    report["logistic_held_out"] = by_c[best] | {"C": best}
    report["by_C"] = {str(c): by_c[c] for c in C_CHOICES}
    cut, page_cut = choose_threshold(samples, INNER), choose_threshold(pages_, 0)
    report["cuts_on_every_story"] = {"cut": cut, "page_cut": page_cut}
    print(json.dumps(report, indent=1))
    if args.write:
        trained_on = (
            f"cib golden scripts{' and cib-extra' if extra else ''}: {len({s.page for s in samples})} pages "
            f"with a checkable panel, {len(names)} stories, {len(samples)} panels "
            f"({sum(s.wrong for s in samples)} heard out of order)"
        )
        command = "scripts/train_order_cue.py --write" + (
            " --extra ../shared/data/cib-extra" if extra else ""
        )
        data = OrderCueModel(cut, page_cut).to_json(
            chosen_on=trained_on,
            command=command,
            cross_validated=report["threshold_held_out"],
            logistic_cross_validated=report["logistic_held_out"],
            before=report["before"],
            pages_chosen_on=f"{len(pages_)} pages whose panel order is checkable",
            pages_cross_validated=report["pages_threshold_held_out"],
            pages_before=report["pages_before"],
        )
        MODEL.parent.mkdir(parents=True, exist_ok=True)
        MODEL.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL.relative_to(REPO)}", file=sys.stderr)
    return 0


def _row(s: Sample) -> dict[str, object]:
    return {f: getattr(s, f) for f in Sample.__slots__}


if __name__ == "__main__":
    raise SystemExit(main())
