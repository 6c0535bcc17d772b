#!/usr/bin/env python3
"""Train the speaker pair model (app/panelvox/analysis/data/speaker_pairs.json) and report its
cross-validated figures.

Data: the cib golden scripts in ../shared/data (for measuring and this training only; nothing
of it is copied into the project, only the model's 44 numbers). Each page is analysed once by
the default stages up to "characters" (cached under $XDG_CACHE_HOME/panelvox/train); for
every pair of dialogue balloons whose lines the golden script gives a sure speaker, the
label is "one person says both".

Cross-validation holds out one story at a time: its pages are measured by
``panelvox eval``'s own code (``--stage script``: the page service, the names pass, what the
listener hears) with a model trained on the other stories only. Those held-out figures are
the ones reported; the shipped model is then fitted on every story.

    .venv/bin/python scripts/train_speaker_model.py            # CV report only
    .venv/bin/python scripts/train_speaker_model.py --write    # also write the model
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from panelvox import paths  # noqa: E402
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, PageImages, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.analysis.speaker_identity import FEATURES, PairModel, balloon_facts, page_pairs  # noqa: E402
from panelvox.analysis.speakers_stage import SpeakersStage, attribute  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import Dataset, GTPage  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.runner import EvalStage, run_eval  # noqa: E402
from panelvox.eval.script_metrics import aggregate_scores, format_script_report, score_script_page  # noqa: E402
from panelvox.model import BalloonKind, PageAnalysis, ReadingDirection  # noqa: E402

MODEL = REPO / "app" / "panelvox" / "analysis" / "data" / "speaker_pairs.json"
#: the grouping's merge bias, in log-odds: a page has few speakers (chosen by CV on the cib
#: stories from 0, 0.3, 0.6, 1.0; see docs/benchmarks.md)
MERGE_BIAS = 0.6
C = 0.1  # the logistic regression's inverse regularisation: strong, few pages (0.1 from 1, 0.1, 0.03 by CV)


class FoldAnalyzer:
    """The cached stages up to "characters", then the speakers stage with a given model."""

    def __init__(self, prefix: PageAnalyzer, model: PairModel) -> None:
        self.prefix = prefix
        self.stage = SpeakersStage(model=model)

    def analyze_page(self, book: PageImages, page: int, direction: ReadingDirection) -> PageAnalysis:
        analysis = self.prefix.analyze_page(book, page, direction)
        return self.stage(book.load_page_array(page - 1), analysis)


def labelled_pairs(page: GTPage, analysis: PageAnalysis, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The page's pair features and labels (pairs whose two lines have sure speakers)."""
    assert page.script is not None
    links = attribute(analysis)
    facts = balloon_facts(analysis, links, image)
    pairs, rows = page_pairs(facts, max(analysis.width, analysis.height))
    # which balloon says which golden line: the eval's own matching
    plain = replace(analysis, speakers=())
    score = score_script_page(page.script, heard_blocks(plain))
    blocks = analysis.blocks_in_order()
    lines = [ln for ln in page.script.lines if any(ch.isalnum() for ch in ln.text)]
    speaker: dict[str, str] = {}
    for line, pos in zip(lines, score.positions, strict=True):
        if pos is None or line.kind.value not in ("speech", "thought") or not line.speaker:
            continue
        if line.speaker_sure and blocks[pos].kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            speaker.setdefault(blocks[pos].id, line.speaker)
    keep, labels = [], []
    for k, (i, j) in enumerate(pairs):
        a, b = speaker.get(facts[i].balloon.id), speaker.get(facts[j].balloon.id)
        if a is not None and b is not None:
            keep.append(k)
            labels.append(int(a == b))
    return rows[keep], np.array(labels, np.int64)


def fit(x: np.ndarray, y: np.ndarray) -> PairModel:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    lr = LogisticRegression(C=C, max_iter=5000).fit((x - mean) / scale, y)
    return PairModel(mean, scale, lr.coef_[0].astype(np.float64), float(lr.intercept_[0]), MERGE_BIAS)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write", action="store_true", help="write the model fitted on every story")
    args = parser.parse_args()

    dataset = load_dataset("cib")
    pages = [p for p in dataset.pages if p.script is not None]
    prefix_stages = tuple(s for s in default_stages() if s.name != "speakers")
    cache = AnalysisCache(paths.cache_dir() / "train", pipeline_fingerprint(prefix_stages))
    prefix = PageAnalyzer(prefix_stages, cache)
    stories = books_of(pages)

    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for k, (story, story_pages) in enumerate(stories, 1):
        print(f"[{k}/{len(stories)}] analysing {story}", file=sys.stderr)
        book = DatasetBook(story, story_pages)
        xs, ys = [], []
        for number, page in enumerate(story_pages, 1):
            analysis = prefix.analyze_page(book, number, page.direction)
            x, y = labelled_pairs(page, analysis, book.load_page_array(number - 1))
            xs.append(x)
            ys.append(y)
        data[story] = (np.concatenate(xs), np.concatenate(ys))

    results = []
    for story, story_pages in stories:
        x = np.concatenate([v[0] for s, v in data.items() if s != story])
        y = np.concatenate([v[1] for s, v in data.items() if s != story])
        held_out = Dataset("cib", dataset.root, tuple(story_pages))
        results.append(
            run_eval(
                held_out, EvalStage.SCRIPT, stages=default_stages(), analyzer=FoldAnalyzer(prefix, fit(x, y))
            )
        )
    scores = [r.script for res in results for r in res.records if r.script is not None]
    totals = aggregate_scores(scores)
    print(format_script_report(scores))
    cv = {
        k: round(float(totals[k]), 3)
        for k in ("attribution", "turns", "named_precision", "named_recall", "baseline.attribution")
    }
    print("held-out stories (leave one story out):", json.dumps(cv))
    if args.write:
        x = np.concatenate([v[0] for v in data.values()])
        y = np.concatenate([v[1] for v in data.values()])
        model = fit(x, y)
        MODEL.write_text(
            json.dumps(
                model.to_json(
                    trained_on=f"cib golden scripts: {len(pages)} pages, {len(stories)} stories, {len(y)} pairs",
                    cross_validated=cv,
                ),
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {MODEL.relative_to(REPO)} ({len(FEATURES)} features)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
