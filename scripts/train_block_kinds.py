#!/usr/bin/env python3
"""Train the block kind model (what a block of lettering is: speech, thought, caption, title,
sound, sign or not lettering; :mod:`panelvox.analysis.block_kinds`) and compare it, held out
by story, with the hand rules that decide it now (issue 30).

Data: the cib golden scripts in ../shared/data (measure and train only; nothing of it is
copied into the project), and with ``--extra`` the cib-extra pages of the same stories as
more training data. Each page is read once by the panels and text stages (cached under
$XDG_CACHE_HOME/panelvox/train-blocks, keyed by those stages' fingerprint); the balloons
stage then groups its lines into blocks and traces their outlines, and the blocks it hands
to its kind rules (``block_roles.tell_roles``) are the candidates. A candidate's label is
the kind of the golden line its text matches as the script eval matches a block to a line
(``partial_ratio`` of the shorter against the longer >= 0.8), else "junk" (a block the eval
counts as junk).

Cross-validation holds out one story at a time: a model trained on the other stories decides
the held-out story's candidates, the order stage orders them, and the page is scored by the
script eval's own code (found / in order / exact / kind right / junk). The rules' figures
are measured on the same pages with the same scoring (in sample for them: they were tuned on
these pages).

    .venv/bin/python scripts/train_block_kinds.py --extra ../shared/data/cib-extra
    .venv/bin/python scripts/train_block_kinds.py --stories 2      # a smoke run (CI)
    .venv/bin/python scripts/train_block_kinds.py --extra ../shared/data/cib-extra --write model.json

``--variant`` (see :data:`VARIANTS`) tries the model alone, the hybrids (the rules that passed
the evidence bar decide where they fire, or are four features of the model) and the same with
the rules that failed the bar deleted from the stage; ``--rest-only`` trains a hybrid's model
on the blocks the rules leave to it.

No variant is shipped: held out by story none reaches the rules' figures (docs/benchmarks.md,
"Block kinds, learned (issue 30)"); ``--write`` writes the model fitted on every story, with
its held-out figures and the command, where it is told to (a features variant's model has
four columns more than :data:`FEATURES`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from sklearn.linear_model import LogisticRegression

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from block_kind_features import CLASSES, FEATURES, BlockKindModel, PageFacts, block_features  # noqa: E402

from panelvox import paths  # noqa: E402
from panelvox.analysis import balloons_stage  # noqa: E402
from panelvox.analysis.block_pieces import rejoin_balloons  # noqa: E402
from panelvox.analysis.block_roles import (  # noqa: E402
    TITLE_SIZE,
    _display_initial,
    _foreign_languages,
    _kept_apart,
    _lone_question,
    _sound_or_cry,
    crossed_readings,
    is_not_lettering,
    merge_titles,
)
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.line_groups import thickness  # noqa: E402
from panelvox.analysis.order_stage import OrderStage  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import GTPage  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.script_metrics import FUZZY, aggregate_scores, normalize_text, score_script_page  # noqa: E402
from panelvox.model import Balloon, BalloonKind, Image, PageAnalysis, Panel, TextLine  # noqa: E402

#: where the shipped model will live; left out of the cached stages' fingerprint
MODEL = REPO / "app" / "panelvox" / "analysis" / "data" / "block_kinds.json"
#: the logistic regression's inverse regularisation and the junk class's bias (log-odds)
#: tried; the pair with the best held-out kind right, junk under the target, is reported
CS = (0.03, 0.1, 0.3, 1.0)
JUNK_BIASES = (-0.5, 0.0, 0.5, 1.0)
_KIND = {
    "speech": BalloonKind.SPEECH,
    "thought": BalloonKind.THOUGHT,
    "caption": BalloonKind.CAPTION,
    "title": BalloonKind.CAPTION,
    "sfx": BalloonKind.SFX,
    "sign": BalloonKind.OTHER,
}
#: what is tried (issue 30): the model alone; the hybrid, where the rules that passed the
#: evidence bar (marks dropped, narration openings, sounds and cries: docs/benchmarks.md)
#: decide the blocks they fire on and the model the rest; the same rules as four features of
#: the model instead; and "folded": the hybrid with the rules that failed the bar deleted (the
#: sign board's outline, the board kind, pieces given back, the lone "2"; the traced caption
#: box and the title's rival are the model's already), their geometry left to the features
VARIANTS = ("learned", "hybrid", "hybrid-features", "folded", "folded-features")
#: the rule outcomes a hybrid-features model sees (one-hot; none when no rule fires)
RULE_OUTCOMES = ("junk", "sfx", "speech", "caption")
REPORTED = ("found_rate", "in_order_rate", "exact_rate", "kind_right_rate", "junk_rate")


@dataclass(frozen=True)
class RolesCall:
    """What the balloons stage hands its kind rules for one page."""

    blocks: tuple[Balloon, ...]
    lines: tuple[TextLine, ...]
    page_height: float
    words: Any
    lexicon: Any
    language: str | None
    panels: tuple[Panel, ...]


@dataclass
class PageData:
    story: str
    page: GTPage
    number: int
    book: DatasetBook
    after_balloons: PageAnalysis  # with the rules' blocks
    call: RolesCall
    candidates: list[Balloon]
    x: np.ndarray
    y: np.ndarray  # class index per candidate, -1 where its text is empty (the eval skips it)
    rules_say: list[str | None]  # what the passing rules decide per candidate (None: silent)


def candidates_of(call: RolesCall, rejoin: bool = True) -> list[Balloon]:
    """The blocks the decision is made on: pieces of a traced balloon given back to it
    (``rejoin``; off where that rule is deleted)."""
    if not rejoin:
        return list(call.blocks)
    by_id = {ln.id: ln for ln in call.lines}
    return rejoin_balloons(call.blocks, by_id, call.words, _kept_apart)


def rules_say(call: RolesCall, blocks: Sequence[Balloon], facts: PageFacts) -> list[str | None]:
    """What the rules that passed the evidence bar decide for each block, as ``tell_roles``
    applies them: a mark that is not lettering is junk; untraced lettering opening with a
    word that moves the story on is a caption, lettering all of sounds a sound effect, a
    display cry speech (``_sound_or_cry``); None where they are silent."""
    by_id = {ln.id: ln for ln in call.lines}
    out: list[str | None] = []
    for b in blocks:
        members = [by_id[i] for i in b.lines if i in by_id]
        confs = [ln.confidence for ln in members]
        read = sum(confs) / len(confs) if confs else b.confidence
        if is_not_lettering(b, read, call.lexicon, set(facts.foreign)):
            out.append("junk")
            continue
        height = statistics.median(thickness(ln) for ln in members) if members else 0.0
        large = bool(facts.typical) and height >= TITLE_SIZE * facts.typical
        told = _sound_or_cry(b, call.lexicon, large)
        out.append(
            {BalloonKind.SFX: "sfx", BalloonKind.SPEECH: "speech", BalloonKind.CAPTION: "caption"}.get(
                told.kind
            )
            if told.kind is not b.kind
            else None
        )
    return out


def with_rule_features(x: np.ndarray, said: Sequence[str | None]) -> np.ndarray:
    """``x`` with the passing rules' outcomes as one-hot columns (:data:`RULE_OUTCOMES`)."""
    extra = np.asarray([[float(s == o) for o in RULE_OUTCOMES] for s in said], np.float64)
    return np.concatenate([x, extra.reshape(len(said), len(RULE_OUTCOMES))], axis=1)


def page_facts(call: RolesCall, blocks: Sequence[Balloon], width: float) -> PageFacts:
    main = [ln for ln in call.lines if not ln.ruby]
    by_id = {ln.id: ln for ln in main}
    typical = statistics.median(thickness(ln) for ln in main) if main else 1.0
    sizes = [
        statistics.median(thickness(by_id[i]) for i in b.lines if i in by_id)
        for b in blocks
        if any(i in by_id for i in b.lines)
    ]
    return PageFacts(
        typical=typical,
        width=width,
        height=call.page_height,
        largest=max(sizes, default=typical),
        blocks=len(blocks),
        foreign=frozenset(_foreign_languages(main, call.language)),
        crossed=frozenset(crossed_readings(main)),
    )


def features(call: RolesCall, blocks: Sequence[Balloon], width: float, facts: PageFacts) -> np.ndarray:
    by_id = {ln.id: ln for ln in call.lines}
    panels = {p.id: p for p in call.panels}
    rows = [block_features(b, by_id, facts, panels, call.words, call.lexicon) for b in blocks]
    return np.asarray(rows, np.float64).reshape(len(rows), len(FEATURES))


def labels(page: GTPage, blocks: Sequence[Balloon]) -> np.ndarray:
    """Each block's class: the kind of the golden line its text matches best, else junk."""
    assert page.script is not None
    lines = [(ln.kind.value, t) for ln in page.script.lines if (t := normalize_text(ln.text))]
    out = []
    for b in blocks:
        t = normalize_text(b.text)
        if not t:
            out.append(-1)
            continue
        best: tuple[float, float, str] | None = None
        for kind, lt in lines:
            shorter, longer = sorted((t, lt), key=len)
            score = fuzz.partial_ratio(shorter, longer) / 100
            if score >= FUZZY:
                key = (score, fuzz.ratio(t, lt) / 100, kind)
                best = key if best is None or key[:2] > best[:2] else best
        out.append(CLASSES.index(best[2] if best is not None else "junk"))
    return np.asarray(out, np.int64)


def decide(
    call: RolesCall, blocks: Sequence[Balloon], classes: Sequence[str], lone_question: bool = True
) -> list[Balloon]:
    """The blocks as the model classed them: junk dropped, kinds set, the title's blocks one
    caption (as ``tell_roles`` makes them), narration's display initial put back, a lone "2"
    read as "?" (``lone_question``; off where that rule is deleted)."""
    kept: list[Balloon] = []
    titles: list[Balloon] = []
    for b, c in zip(blocks, classes, strict=True):
        if c == "junk":
            continue
        b = replace(b, kind=_KIND[c])
        b = _lone_question(b) if lone_question else b
        if c in ("caption", "title"):
            b = replace(b, text=_display_initial(b.text, call.lexicon))
        if c == "title":
            titles.append(b)
        kept.append(b)
    if not titles:
        return kept
    return merge_titles(kept, titles)[0]


class Capture:
    """The balloons stage with its kind rules' inputs recorded (the rules still decide)."""

    def __init__(self) -> None:
        self.rules = balloons_stage.tell_roles
        self.last: RolesCall | None = None

    def __call__(
        self,
        blocks: Sequence[Balloon],
        lines: Sequence[TextLine],
        page_height: float,
        words: Any,
        lexicon: Any,
        language: str | None = None,
        panels: Sequence[Panel] = (),
    ) -> list[Balloon]:
        self.last = RolesCall(
            tuple(blocks), tuple(lines), page_height, words, lexicon, language, tuple(panels)
        )
        return self.rules(blocks, lines, page_height, words, lexicon, language, panels)


def collect(
    datasets: Sequence[tuple[str, Sequence[GTPage]]],
    prefix: PageAnalyzer,
    balloons: Any,
    capture: Capture,
    rejoin: bool = True,
) -> dict[str, list[PageData]]:
    """Every page's candidates, features and labels, and the rules' blocks, by story."""
    out: dict[str, list[PageData]] = {}
    for _name, pages in datasets:
        for story, group in books_of(list(pages)):
            book = DatasetBook(story, group)
            start = time.perf_counter()
            for number, page in enumerate(group, 1):
                analysis = prefix.analyze_page(book, number, page.direction)
                image = book.load_page_array(number - 1)
                capture.last = None
                after = balloons(image, analysis)
                call = capture.last or RolesCall((), (), float(analysis.height), None, None, None, ())
                blocks = candidates_of(call, rejoin) if call.blocks else []
                facts = page_facts(call, blocks, float(analysis.width))
                x = features(call, blocks, float(analysis.width), facts)
                said = rules_say(call, blocks, facts) if blocks else []
                out.setdefault(story, []).append(
                    PageData(story, page, number, book, after, call, blocks, x, labels(page, blocks), said)
                )
            print(f"  {story}: {len(group)} pages, {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return out


def score(data: PageData, blocks: Sequence[Balloon] | None, order: OrderStage) -> Any:
    """The script eval's score of the page with ``blocks`` (None: the rules')."""
    analysis = data.after_balloons if blocks is None else replace(data.after_balloons, blocks=tuple(blocks))
    image: Image = data.book.load_page_array(data.number - 1)
    ordered = order(image, analysis)
    assert data.page.script is not None
    return score_script_page(data.page.script, heard_blocks(ordered))


def fit(x: np.ndarray, y: np.ndarray, c: float) -> BlockKindModel:
    """A multinomial logistic regression on standardised ``x`` (rows labelled -1 left out).
    With two classes scikit-learn gives one row of weights ``w``: the softmax of ``-w/2,
    w/2`` is the same sigmoid."""
    keep = y >= 0
    x, y = x[keep], y[keep]
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    lr = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    coef = np.zeros((len(CLASSES), x.shape[1]))
    intercept = np.full(len(CLASSES), -30.0)  # a class never seen in training is never said
    for k, cls in enumerate(lr.classes_):
        coef[cls] = lr.coef_[k] if len(lr.classes_) > 2 else (lr.coef_[0] if k else -lr.coef_[0]) / 2
        intercept[cls] = (
            lr.intercept_[k] if len(lr.classes_) > 2 else (lr.intercept_[0] if k else -lr.intercept_[0]) / 2
        )
    return BlockKindModel(CLASSES, mean, scale, coef, intercept)


def classes_of(
    model: BlockKindModel, x: np.ndarray, junk_bias: float, said: Sequence[str | None] | None = None
) -> list[str]:
    """The model's class per row; where ``said`` names a class (the passing rules fired) that
    class decides (the hybrid)."""
    if len(x) == 0:
        return []
    logp = np.log(model.probabilities(x) + 1e-12)
    logp[:, CLASSES.index("junk")] += junk_bias
    out = [CLASSES[i] for i in logp.argmax(axis=1)]
    if said is not None:
        out = [r if r is not None else c for c, r in zip(out, said, strict=True)]
    return out


def _figures(scores: Sequence[Any]) -> dict[str, float]:
    totals = aggregate_scores(scores)
    return {k: round(float(totals[k]), 3) for k in REPORTED} | {
        "lines": int(totals["lines"]),
        "blocks": int(totals["blocks"]),
    }


def _stack(pages: Sequence[PageData], rest_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The pages' rows and labels; ``rest_only``: the blocks the passing rules are silent on
    labelled as they are, the others -1 (left out of training)."""
    width = pages[0].x.shape[1] if pages else len(FEATURES)
    x = np.concatenate([p.x for p in pages]) if pages else np.zeros((0, width))
    y = np.concatenate([p.y for p in pages]) if pages else np.zeros(0, np.int64)
    if rest_only and pages:
        said = np.asarray([r is not None for p in pages for r in p.rules_say], bool)
        y = np.where(said, -1, y)
    return x, y


Data = dict[str, list[PageData]]


def read_pages(
    variant: str, cib: Sequence[GTPage], extra: Sequence[GTPage], prefix: PageAnalyzer, balloons: Any
) -> tuple[Data, Data, Data, Data]:
    """The candidates of cib and cib-extra as ``variant`` sees them, and the pages as the
    rules read them (the same unless the variant deletes rules from the stage)."""
    capture = Capture()
    balloons_stage.tell_roles = capture
    print("reading pages (panels and text cached)", file=sys.stderr)
    try:
        cib_data = collect([("cib", cib)], prefix, balloons, capture)
        extra_data = collect([("cib-extra", extra)], prefix, balloons, capture) if extra else {}
        rules_cib, rules_extra = cib_data, extra_data
        if variant.startswith("folded"):
            # the rules that failed the evidence bar deleted from the stage: the candidates
            # are read again without them (the rules' figures stay the stage's as it is)
            saved = (balloons_stage.board_outline, balloons_stage.board_kind)
            balloons_stage.board_outline = lambda *_a, **_k: False
            balloons_stage.board_kind = lambda kind, *_a, **_k: kind
            try:
                cib_data = collect([("cib", cib)], prefix, balloons, capture, rejoin=False)
                extra_data = (
                    collect([("cib-extra", extra)], prefix, balloons, capture, rejoin=False) if extra else {}
                )
            finally:
                balloons_stage.board_outline, balloons_stage.board_kind = saved
    finally:
        balloons_stage.tell_roles = capture.rules
    if variant.endswith("features"):
        for p in [p for d in (cib_data, extra_data) for ps in d.values() for p in ps]:
            p.x = with_rule_features(p.x, p.rules_say)
    return cib_data, extra_data, rules_cib, rules_extra


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--extra", type=Path, help="cib-extra: more pages of the same stories to train on")
    parser.add_argument("--stories", type=int, help="only the first N stories (a smoke run)")
    parser.add_argument("--cs", type=float, nargs="+", default=CS)
    parser.add_argument("--junk-biases", type=float, nargs="+", default=JUNK_BIASES)
    parser.add_argument("--variant", choices=VARIANTS, default="learned", help="see VARIANTS")
    parser.add_argument(
        "--rest-only", action="store_true", help="hybrids: train on the blocks the rules leave to the model"
    )
    parser.add_argument("--write", type=Path, help="write the model fitted on every story here (JSON)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()

    cib_books = books_of([p for p in load_dataset("cib").pages if p.script is not None])[: args.stories]
    stories = [name for name, _ in cib_books]
    cib = [p for _name, group in cib_books for p in group]
    extra_pages = [p for p in load_dataset(args.extra).pages if p.script is not None] if args.extra else []
    extra = [p for name, group in books_of(extra_pages) if name in stories for p in group]
    stages = default_stages()
    prefix_stages = tuple(s for s in stages if s.name in ("panels", "text"))
    cache = AnalysisCache(
        paths.cache_dir() / "train-blocks", pipeline_fingerprint(prefix_stages, ignore=(MODEL,))
    )
    prefix = PageAnalyzer(prefix_stages, cache)
    balloons = next(s for s in stages if s.name == "balloons")
    order = next(s for s in stages if s.name == "order")
    assert isinstance(order, OrderStage)
    folded = args.variant.startswith("folded")
    cib_data, extra_data, rules_cib, rules_extra_data = read_pages(args.variant, cib, extra, prefix, balloons)
    hybrid = args.variant in ("hybrid", "folded")

    everything = {s: cib_data.get(s, []) + extra_data.get(s, []) for s in stories}
    x_all, y_all = _stack([p for ps in everything.values() for p in ps], args.rest_only)
    counts = Counter(CLASSES[i] for i in y_all if i >= 0)
    print("candidates by label:", dict(counts))

    # the rules, on the same pages and scoring ("now"; in sample for them)
    rules = {s: [score(p, None, order) for p in rules_cib[s]] for s in stories}
    rules_extra = {s: [score(p, None, order) for p in rules_extra_data.get(s, [])] for s in stories}

    results: dict[tuple[float, float], dict[str, Any]] = {}
    for c in args.cs:
        models = {}
        for s in stories:
            x, y = _stack([p for t, ps in everything.items() if t != s for p in ps], args.rest_only)
            models[s] = fit(x, y, c)
        for bias in args.junk_biases:
            held: dict[str, list[Any]] = {}
            held_extra: dict[str, list[Any]] = {}
            right = total = 0
            for s in stories:
                for group, into in ((cib_data.get(s, []), held), (extra_data.get(s, []), held_extra)):
                    for p in group:
                        classes = classes_of(models[s], p.x, bias, p.rules_say if hybrid else None)
                        if group is cib_data.get(s):
                            right += sum(CLASSES[t] == k for t, k in zip(p.y, classes, strict=True) if t >= 0)
                            total += int((p.y >= 0).sum())
                        blocks = decide(p.call, p.candidates, classes, lone_question=not folded)
                        into.setdefault(s, []).append(score(p, blocks, order))
            results[(c, bias)] = {
                "cib": _figures([sc for ps in held.values() for sc in ps]),
                "extra": _figures([sc for ps in held_extra.values() for sc in ps]) if held_extra else None,
                "by_story": {s: _figures(held[s]) for s in stories if held.get(s)},
                "block_accuracy": round(right / max(1, total), 3),
            }
            r = results[(c, bias)]
            print(
                f"C {c} junk bias {bias:+.1f}: held out cib {json.dumps(r['cib'])} blocks {r['block_accuracy']}"
            )
            if r["extra"]:
                print(f"   cib-extra {json.dumps(r['extra'])}")

    now = _figures([sc for ps in rules.values() for sc in ps])
    now_extra = _figures([sc for ps in rules_extra.values() for sc in ps]) if extra_data else None

    def goodness(key: tuple[float, float]) -> tuple[bool, float]:
        r = results[key]["cib"]
        return (r["junk_rate"] <= 0.015, r["kind_right_rate"] + r["found_rate"])

    best = max(results, key=goodness)
    chosen = results[best]
    print(f"\nrules (now, in sample) on cib: {json.dumps(now)}")
    if now_extra:
        print(f"rules (now) on cib-extra: {json.dumps(now_extra)}")
    print(
        f"chosen C {best[0]} junk bias {best[1]:+.1f}, held out by story on cib: {json.dumps(chosen['cib'])}"
    )
    print("\nstory | rules found / kind / junk | learned found / kind / junk (held out)")
    for s in stories:
        a = _figures(rules[s])
        b = chosen["by_story"].get(s)
        if b:
            print(
                f"{s} | {a['found_rate']:.3f} / {a['kind_right_rate']:.3f} / {a['junk_rate']:.3f} | "
                f"{b['found_rate']:.3f} / {b['kind_right_rate']:.3f} / {b['junk_rate']:.3f}"
            )
    report = {
        "rules": now,
        "rules_extra": now_extra,
        "rules_by_story": {s: _figures(rules[s]) for s in stories},
        "learned": {f"C={c} junk_bias={b:+.1f}": r for (c, b), r in results.items()},
        "variant": args.variant + (" (trained on the rest only)" if args.rest_only else ""),
        "chosen": {"C": best[0], "junk_bias": best[1]},
        "labels": dict(counts),
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.write:
        model = fit(x_all, y_all, best[0])
        data = model.to_json(
            junk_bias=best[1],
            trained_on=f"cib golden scripts{' and cib-extra' if extra else ''}: "
            f"{sum(len(v) for v in everything.values())} pages, {len(stories)} stories, {int((y_all >= 0).sum())} blocks",
            command="scripts/train_block_kinds.py --write PATH"
            + (" --extra ../shared/data/cib-extra" if extra else ""),
            cross_validated=chosen["cib"],
            cross_validated_extra=chosen["extra"],
        )
        text = json.dumps(data, indent=1) + "\n"
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write} sha256 {hashlib.sha256(text.encode()).hexdigest()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
