#!/usr/bin/env python3
"""Train the speaker models and report their cross-validated figures: the page's pair model
(app/panelvox/analysis/data/speaker_pairs.json: are two balloons of a page one person?) and the
book's person link model (app/panelvox/names/data/person_links.json: are two page persons of
a story one person of the book?).

Data: the cib golden scripts in ../shared/data (for measuring and this training only; nothing
of it is copied into the project, only the model's 44 numbers). Each page is analysed once by
the default stages up to "characters" (cached under $XDG_CACHE_HOME/panelvox/train); for
every pair of dialogue balloons whose lines the golden script gives a sure speaker, the
label is "one person says both".

Cross-validation holds out one story at a time: its pages are measured by
``panelvox eval``'s own code (``--stage script``: the page service, the names pass, what the
listener hears) with a model trained on the other stories only. Those held-out figures are
the ones reported; the shipped model is then fitted on every story.

A story's page persons (for the link model) are those its pages get from the pair model of
the fold that held that story out; their label is the golden speaker most of their balloons
have. ``--extra DIR`` adds the pages of ``cib-extra`` (the same stories) to the training
data; the figures reported are those of cib's 67 pages, and of the extra pages apart.

    .venv/bin/python scripts/train_speaker_model.py            # CV report only
    .venv/bin/python scripts/train_speaker_model.py --write    # also write the models
    .venv/bin/python scripts/train_speaker_model.py --stories 2  # a smoke run (CI)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
from sklearn.linear_model import LogisticRegression

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from panelvox import paths  # noqa: E402
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, PageImages, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.analysis.speaker_identity import PairModel, balloon_facts, page_pairs  # noqa: E402
from panelvox.analysis.speakers_stage import SpeakersStage, attribute  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import Dataset, GTPage  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.runner import EvalStage, run_eval  # noqa: E402
from panelvox.eval.script_metrics import aggregate_scores, score_script_page  # noqa: E402
from panelvox.eval.script_report import format_script_report  # noqa: E402
from panelvox.model import BalloonKind, PageAnalysis, ReadingDirection  # noqa: E402
from panelvox.names.book_names import BookNames  # noqa: E402
from panelvox.names.book_persons import FEATURES as PERSON_FEATURES  # noqa: E402
from panelvox.names.book_persons import PersonModel, link_features  # noqa: E402
from panelvox.names.stores import NameStore  # noqa: E402
from panelvox.pages import PageSource  # noqa: E402

MODEL = REPO / "app" / "panelvox" / "analysis" / "data" / "speaker_pairs.json"
PERSON_MODEL = REPO / "app" / "panelvox" / "names" / "data" / "person_links.json"
#: model files only the speakers stage and the names pass read
SPEAKER_MODELS = (
    MODEL,
    *(REPO / "app" / "panelvox" / "analysis" / "data" / f"appearance.{x}" for x in ("npz", "json")),
)
#: the book grouping's merge biases tried, in log-odds: the one with the best held-out story
#: attribution is shipped (the oracle curve in docs/benchmarks.md found +1.5 best at most AUCs)
PERSON_MERGE_BIASES = (0.0, 0.75, 1.5, 2.25)
PERSON_C = 0.1
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
    speaker = block_speakers(page, analysis)  # which balloon says which golden line
    keep, labels = [], []
    for k, (i, j) in enumerate(pairs):
        a, b = speaker.get(facts[i].balloon.id), speaker.get(facts[j].balloon.id)
        if a is not None and b is not None:
            keep.append(k)
            labels.append(int(a == b))
    return rows[keep], np.array(labels, np.int64)


def _logistic(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, scale, coefficients, intercept) of a logistic regression on standardised ``x``;
    a smoke run that sees one class only gets no weights and a low intercept."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    if len(set(y.tolist())) < 2:
        return mean, scale, np.zeros(x.shape[1]), -2.0
    lr = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    return mean, scale, lr.coef_[0].astype(np.float64), float(lr.intercept_[0])


def fit(x: np.ndarray, y: np.ndarray) -> PairModel:
    return PairModel(*_logistic(x, y, C), MERGE_BIAS)


def fit_persons(x: np.ndarray, y: np.ndarray, bias: float) -> PersonModel:
    return PersonModel(*_logistic(x, y, PERSON_C), bias)


def block_speakers(page: GTPage, analysis: PageAnalysis) -> dict[str, str]:
    """Block id -> the golden speaker of the sure dialogue line it says (the eval's matching)."""
    assert page.script is not None
    score = score_script_page(page.script, heard_blocks(replace(analysis, speakers=())))
    blocks = analysis.blocks_in_order()
    lines = [ln for ln in page.script.lines if any(ch.isalnum() for ch in ln.text)]
    out: dict[str, str] = {}
    for line, pos in zip(lines, score.positions, strict=True):
        if pos is None or line.kind.value not in ("speech", "thought") or not line.speaker:
            continue
        if line.speaker_sure and blocks[pos].kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            out.setdefault(blocks[pos].id, line.speaker)
    return out


def story_person_pairs(
    story: str, pages: list[GTPage], analyzer: PageSource
) -> tuple[np.ndarray, np.ndarray]:
    """The link features and labels of every two labelled page persons of a story's pages,
    as the book's names pass sees them (pages named, persons of the page)."""
    book = DatasetBook(story, pages)
    with TemporaryDirectory(prefix="panelvox-train-") as tmp:
        return _story_person_pairs(book, pages, analyzer, NameStore(Path(tmp) / "names.json"))


def _story_person_pairs(
    book: DatasetBook, pages: list[GTPage], analyzer: PageSource, store: NameStore
) -> tuple[np.ndarray, np.ndarray]:
    names = BookNames(book.content_hash, (), store)
    analyses = {}
    for number, page in enumerate(pages, 1):
        analyses[number] = analyzer.analyze_page(book, number, page.direction)
        names.learn(analyses[number])
    persons = names.page_persons()
    gold: dict[tuple[int, str], str] = {}
    for number, page in enumerate(pages, 1):
        analysis = analyses[number]
        said = block_speakers(page, analysis)
        chars = {c.id: c for c in analysis.characters}
        votes: dict[str, Counter[str]] = {}
        for block, speaker in said.items():
            link = analysis.speaker_of(block)
            who = chars.get(link.character) if link is not None and link.character else None
            if who is not None:
                votes.setdefault(who.cluster or who.id, Counter())[speaker] += 1
        for key, c in votes.items():
            gold[(number, key)] = c.most_common(1)[0][0]
    labelled = [p for p in persons if p.ident in gold]
    rows, labels = [], []
    for i, u in enumerate(labelled):
        for v in labelled[i + 1 :]:
            if u.page != v.page:
                rows.append(link_features(u, v))
                labels.append(int(gold[u.ident] == gold[v.ident]))
    return np.array(rows, np.float64).reshape(len(rows), len(PERSON_FEATURES)), np.array(labels, np.int64)


def _auc(scores: np.ndarray, labels: np.ndarray) -> float:
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1.0
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


_REPORTED = (
    "attribution",
    "turns",
    "story_attribution",
    "common_label",
    "labels_per_person",
    "named_precision",
    "sure_name_precision",
    "names_said",
    "guesses_said",
    "named_recall",
    "baseline.attribution",
    "baseline.turns",
    "baseline.story_attribution",
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write", action="store_true", help="write the models fitted on every story")
    parser.add_argument("--extra", type=Path, help="cib-extra: more pages of the same stories to train on")
    parser.add_argument("--stories", type=int, help="only the first N stories (a smoke run)")
    parser.add_argument(
        "--biases", type=float, nargs="+", default=PERSON_MERGE_BIASES, help="the book merge biases to try"
    )
    args = parser.parse_args()

    dataset = load_dataset("cib")
    pages = [p for p in dataset.pages if p.script is not None]
    extra = [p for p in load_dataset(args.extra).pages if p.script is not None] if args.extra else []
    prefix_stages = tuple(s for s in default_stages() if s.name != "speakers")
    # the stages before "speakers" never read the speaker models: retraining keeps the cache
    fingerprint = pipeline_fingerprint(prefix_stages, ignore=SPEAKER_MODELS)
    cache = AnalysisCache(paths.cache_dir() / "train", fingerprint)
    prefix = PageAnalyzer(prefix_stages, cache)
    stories = books_of(pages)[: args.stories]
    extra_of = {name: group for name, group in books_of(extra)}
    everything = {name: group + extra_of.get(name, []) for name, group in stories}

    # the page pair model's data: every story's pages, cib and extra
    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for k, (story, story_pages) in enumerate(everything.items(), 1):
        print(f"[{k}/{len(everything)}] analysing {story}", file=sys.stderr)
        book = DatasetBook(story, story_pages)
        xs, ys = [], []
        for number, page in enumerate(story_pages, 1):
            analysis = prefix.analyze_page(book, number, page.direction)
            x, y = labelled_pairs(page, analysis, book.load_page_array(number - 1))
            xs.append(x)
            ys.append(y)
        data[story] = (np.concatenate(xs), np.concatenate(ys))

    def pair_model_without(story: str) -> PairModel:
        x = np.concatenate([v[0] for s, v in data.items() if s != story])
        y = np.concatenate([v[1] for s, v in data.items() if s != story])
        return fit(x, y)

    # the link model's data: each story's page persons under the pair model that never saw it
    pair_models = {story: pair_model_without(story) for story in everything}
    person_data = {
        story: story_person_pairs(story, story_pages, FoldAnalyzer(prefix, pair_models[story]))
        for story, story_pages in everything.items()
    }

    def person_model_without(story: str, bias: float) -> PersonModel:
        x = np.concatenate([v[0] for s, v in person_data.items() if s != story])
        y = np.concatenate([v[1] for s, v in person_data.items() if s != story])
        return fit_persons(x, y, bias)

    held = [(person_model_without(s, 0.0).log_odds(person_data[s][0]), person_data[s][1]) for s, _ in stories]
    held = [(x, y) for x, y in held if len(y)]
    link_auc = (
        _auc(np.concatenate([x for x, _ in held]), np.concatenate([y for _, y in held]))
        if held
        else float("nan")
    )
    by_bias: dict[float, tuple[dict[str, float], dict[str, float] | None, str]] = {}
    for bias in args.biases:
        results, extra_results = [], []
        for story, story_pages in stories:
            person_model = person_model_without(story, bias)
            analyzer = FoldAnalyzer(prefix, pair_models[story])
            held_out = Dataset("cib", dataset.root, tuple(story_pages))
            results.append(
                run_eval(
                    held_out,
                    EvalStage.SCRIPT,
                    stages=default_stages(),
                    analyzer=analyzer,
                    person_model=person_model,
                )
            )
            if extra_of.get(story):
                held_extra = Dataset("cib-extra", dataset.root, tuple(extra_of[story]))
                extra_results.append(
                    run_eval(
                        held_extra,
                        EvalStage.SCRIPT,
                        stages=default_stages(),
                        analyzer=analyzer,
                        person_model=person_model,
                    )
                )
        scores = [r.script for res in results for r in res.records if r.script is not None]
        totals = aggregate_scores(scores)
        cv = {k: round(float(totals[k]), 3) for k in _REPORTED} | {"person_link_auc": round(link_auc, 3)}
        extra_cv = None
        if extra_results:
            extra_totals = aggregate_scores(
                [r.script for res in extra_results for r in res.records if r.script]
            )
            extra_cv = {k: round(float(extra_totals[k]), 3) for k in _REPORTED}
        by_bias[bias] = (cv, extra_cv, format_script_report(scores))
        print(f"book merge bias {bias:+.2f}, held-out stories, cib's pages:", json.dumps(cv))
        if extra_cv is not None:
            print(f"book merge bias {bias:+.2f}, held-out stories, cib-extra's pages:", json.dumps(extra_cv))

    def held_out_story(bias: float) -> float:
        """Story attribution held out, cib's pages and the extra ones (each story once)."""
        cv, extra_cv, _report = by_bias[bias]
        return cv["story_attribution"] + (extra_cv["story_attribution"] if extra_cv is not None else 0.0)

    best = max(by_bias, key=lambda b: (held_out_story(b), -b))
    cv, extra_cv, report = by_bias[best]
    print(report)
    print(f"chosen book merge bias {best:+.2f}:", json.dumps(cv))
    if args.write:
        trained_on = (
            f"cib golden scripts{' and cib-extra' if extra else ''}: "
            f"{sum(len(g) for g in everything.values())} pages, {len(everything)} stories"
        )
        x = np.concatenate([v[0] for v in data.values()])
        y = np.concatenate([v[1] for v in data.values()])
        model = fit(x, y)
        _write(MODEL, model.to_json(trained_on=f"{trained_on}, {len(y)} pairs", cross_validated=cv))
        px = np.concatenate([v[0] for v in person_data.values()])
        py = np.concatenate([v[1] for v in person_data.values()])
        persons = fit_persons(px, py, best)
        command = "scripts/train_speaker_model.py --write" + (
            " --extra ../shared/data/cib-extra" if extra else ""
        )
        _write(
            PERSON_MODEL,
            persons.to_json(
                trained_on=f"{trained_on}, {len(py)} page-person pairs",
                command=command,
                cross_validated=cv,
                cross_validated_extra=extra_cv,
                merge_bias_by_cv={f"{b:+.2f}": by_bias[b][0]["story_attribution"] for b in by_bias},
            ),
        )
    return 0


def _write(path: Path, data: dict[str, object]) -> None:
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
