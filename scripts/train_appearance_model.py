#!/usr/bin/env python3
"""Train the figure-appearance model (app/panelvox/analysis/data/appearance.npz) and report
its figures cross-validated by story.

Data: the golden scripts of cib and cib-extra in ../shared/data (measured and trained on here
only; nothing of them is copied into the project but the model's numbers). Each page is
analysed once by the default stages up to "characters" (cached under
$XDG_CACHE_HOME/panelvox/train, shared with scripts/train_speaker_model.py); each detected
dialogue balloon gets its golden speaker by the eval's own matching of script lines to
blocks (``score_script_page`` over ``heard_blocks``), when the script says the speaker is sure.
A story is the page name without its last two ``_NN`` parts.

Every story is held out once: the model is fitted on the other stories, and its cosine
similarities on the held-out story's pairs of dialogue balloons in different panels (same
page, and different pages of the story, reported apart) are pooled into the AUCs reported,
next to the AUC of the colour descriptor the speakers stage uses (identity.describe and
identity.distance) on the same pairs. The calibration (a 1-D logistic fit of "same person"
on those held-out cosines) and the shipped projection (fitted on every story) are written
with ``--write``.

    .trainvenv/bin/python scripts/train_appearance_model.py              # CV report only
    .trainvenv/bin/python scripts/train_appearance_model.py --write      # also write the model
    .trainvenv/bin/python scripts/train_appearance_model.py --pages 2    # a smoke run
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))
sys.path.insert(0, str(REPO / "scripts"))

from panelvox import paths  # noqa: E402
from panelvox.analysis.appearance import (  # noqa: E402
    SIDECAR_FILE,
    WEIGHTS_FILE,
    AppearanceModel,
    FeatureSpec,
    Region,
    centre,
    figure_features,
    speaker_box,
)
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.identity import describe, distance  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.analysis.speakers_stage import attribute  # noqa: E402
from panelvox.checksum import sha256_of  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import GTPage  # noqa: E402
from panelvox.eval.loaders import data_root, load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.script_metrics import score_script_page  # noqa: E402
from panelvox.model import BalloonKind, BBox, Image, PageAnalysis  # noqa: E402

DATA = REPO / "app" / "panelvox" / "analysis"
DATASETS = ("cib", "cib-extra")
#: the region of the old speaker-pair feature "anchor_look" (speaker_identity.balloon_facts):
#: the colour descriptor's baseline box
CROP_SIZE = (36, 72)  # width, height: a CNN trains on random 32 x 64 windows of it
ANCHOR_LOOK = Region(push=0.02, width=0.18, above=0.027, below=0.153, clip_panel=False, per_panel=False)
PAGE = Region(push=0.02, width=0.18, above=0.06, below=0.30, per_panel=False)


def story_of(page_id: str) -> str:
    """The issue's definition: the page name without its last two ``_NN`` parts."""
    return page_id.rsplit("_", 2)[0]


@dataclass(frozen=True)
class Item:
    """One detected dialogue balloon whose golden speaker is sure."""

    story: str
    page: str
    panel: str | None
    speaker: str
    features: dict[str, npt.NDArray[np.float32]]  # by variant name
    colour: npt.NDArray[np.float32]  # identity.describe of the same box as the chosen variant
    anchor_colour: npt.NDArray[np.float32]  # identity.describe of the old anchor box
    tailed: bool
    crop: npt.NDArray[np.uint8]  # the region at CROP_SIZE, text painted paper-white (for the CNN)


def block_speakers(page: GTPage, analysis: PageAnalysis) -> dict[str, str]:
    """Block id -> golden speaker, for the detected dialogue blocks the eval matches to a
    dialogue line whose speaker is sure (the first line matched to a block wins)."""
    assert page.script is not None
    plain = replace(analysis, speakers=())
    score = score_script_page(page.script, heard_blocks(plain))
    blocks = analysis.blocks_in_order()
    lines = [ln for ln in page.script.lines if any(ch.isalnum() for ch in ln.text)]
    out: dict[str, str] = {}
    for line, pos in zip(lines, score.positions, strict=True):
        if pos is None or line.kind.value not in ("speech", "thought") or not line.speaker:
            continue
        if line.speaker_sure and blocks[pos].kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            out.setdefault(blocks[pos].id, line.speaker)
    return out


# The variants tried (region x descriptors); the report shows every one held out, and the
# shipped model uses --variant (default: the best held out when this was last run).
VARIANTS: dict[str, tuple[Region | str, FeatureSpec]] = {
    "anchor-small": (ANCHOR_LOOK, FeatureSpec(hog_cell=8)),
    "region": (PAGE, FeatureSpec(hog_cell=8)),
    "region-wide": (replace(PAGE, width=0.26, above=0.08, below=0.40), FeatureSpec(hog_cell=8)),
    "region-nopaint": (PAGE, FeatureSpec(hog_cell=8, paint_text=False)),
    "region-colour": (PAGE, FeatureSpec()),
    "region-hog": (PAGE, FeatureSpec(hue_bins=12, bands=0, grid_x=0, grid_y=0, hog_cell=8)),
    "figure": ("figure", FeatureSpec(hog_cell=8)),
    "panel": (Region(push=0.04, width=0.45, above=0.12, below=0.75, per_panel=True), FeatureSpec(hog_cell=8)),
    "panel-colour": (Region(push=0.04, width=0.45, above=0.12, below=0.75, per_panel=True), FeatureSpec()),
    "panel-small": (Region(), FeatureSpec()),
    "panel-head": (Region(push=0.04, width=0.22, above=0.08, below=0.25, per_panel=True), FeatureSpec()),
    "panel-tiny": (Region(push=0.03, width=0.15, above=0.05, below=0.15, per_panel=True), FeatureSpec()),
    "panel-small-hog": (Region(), FeatureSpec(hog_cell=8)),
    "panel-small-nopaint": (
        Region(),
        FeatureSpec(paint_text=False),
    ),
}


def variant_box(analysis: PageAnalysis, block_id: str, kind: Region | str, figures: dict[str, BBox]) -> BBox:
    block = next(b for b in analysis.blocks if b.id == block_id)
    if isinstance(kind, Region):
        return speaker_box(analysis, block, kind)
    # the figure the speakers stage's attribution links the balloon to, else the region
    return figures.get(block_id) or speaker_box(analysis, block, PAGE)


@dataclass(frozen=True)
class Unlabelled:
    """A figure crop no golden speaker names (for self-supervised pretraining)."""

    story: str
    crop: npt.NDArray[np.uint8]


def collect(
    pages: Sequence[tuple[str, list[GTPage]]], prefix: PageAnalyzer, main_variant: str
) -> tuple[list[Item], list[Unlabelled]]:
    items: list[Item] = []
    unlabelled: list[Unlabelled] = []
    for k, (book_name, book_pages) in enumerate(pages, 1):
        print(f"[{k}/{len(pages)}] {book_name}", file=sys.stderr)
        book = DatasetBook(book_name, book_pages)
        for number, page in enumerate(book_pages, 1):
            analysis = prefix.analyze_page(book, number, page.direction)
            image = book.load_page_array(number - 1)
            items.extend(page_items(page, analysis, image, main_variant))
            unlabelled.extend(page_unlabelled(page, analysis, image, main_variant))
    return items, unlabelled


def page_unlabelled(
    page: GTPage, analysis: PageAnalysis, image: Image, main_variant: str
) -> list[Unlabelled]:
    """Every dialogue balloon's speaker region and every figure the characters stage found."""
    region = VARIANTS[main_variant][0]
    region = region if isinstance(region, Region) else PAGE
    text = [b.bbox for b in analysis.blocks]
    boxes = [
        speaker_box(analysis, b, region)
        for b in analysis.blocks
        if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)
    ]
    boxes += [c.bbox for c in analysis.characters if c.kind == "body"]
    story = story_of(page.page_id)
    return [Unlabelled(story, paper_crop(image, box, text)) for box in boxes]


def page_items(page: GTPage, analysis: PageAnalysis, image: Image, main_variant: str) -> list[Item]:
    speakers = block_speakers(page, analysis)
    chars = {c.id: c for c in analysis.characters}
    figures = {
        link.balloon: chars[link.character].bbox
        for link in attribute(analysis)
        if link.character is not None and link.character in chars
    }
    text = [b.bbox for b in analysis.blocks]
    out = []
    for b in analysis.blocks_in_order():
        if b.id not in speakers:
            continue
        feats = {}
        for name, (kind, spec) in VARIANTS.items():
            feats[name] = figure_features(image, variant_box(analysis, b.id, kind, figures), text, spec)
        main_box = variant_box(analysis, b.id, VARIANTS[main_variant][0], figures)
        out.append(
            Item(
                story=story_of(page.page_id),
                page=page.page_id,
                panel=b.panel,
                speaker=speakers[b.id],
                features=feats,
                colour=describe(image, main_box, text),
                anchor_colour=describe(image, speaker_box(analysis, b, ANCHOR_LOOK), text),
                tailed=b.tail is not None and b.tail.confidence >= 0.4,
                crop=paper_crop(image, main_box, text),
            )
        )
    return out


def paper_crop(image: Image, box: BBox, text: Sequence[BBox]) -> npt.NDArray[np.uint8]:
    """``box`` of ``image`` at CROP_SIZE with the text blocks painted paper-white."""
    x0, y0 = max(0, int(box.x0)), max(0, int(box.y0))
    x1, y1 = min(image.shape[1], math.ceil(box.x1)), min(image.shape[0], math.ceil(box.y1))
    crop = np.array(image[y0:y1, x0:x1], np.uint8)
    for t in text:
        crop[
            max(0, int(t.y0) - y0) : max(0, math.ceil(t.y1) - y0),
            max(0, int(t.x0) - x0) : max(0, math.ceil(t.x1) - x0),
        ] = 250
    if crop.shape[0] < 2 or crop.shape[1] < 2:
        return np.full((CROP_SIZE[1], CROP_SIZE[0], 3), 250, np.uint8)
    return np.asarray(cv2.resize(crop, CROP_SIZE, interpolation=cv2.INTER_AREA), np.uint8)


# ---------------------------------------------------------------- pairs and AUC


@dataclass(frozen=True)
class Pairs:
    i: npt.NDArray[np.int64]
    j: npt.NDArray[np.int64]
    same: npt.NDArray[np.int64]
    same_page: npt.NDArray[np.bool_]


def cross_panel_pairs(items: Sequence[Item]) -> Pairs:
    """Pairs of one story's balloons in different panels (of one page, or different pages)."""
    ii, jj, same, same_page = [], [], [], []
    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            u, v = items[a], items[b]
            if u.story != v.story:
                continue
            if u.page == v.page and (u.panel is None or v.panel is None or u.panel == v.panel):
                continue  # same panel (or unknown): the conversation decides those, not looks
            ii.append(a)
            jj.append(b)
            same.append(int(u.speaker == v.speaker))
            same_page.append(u.page == v.page)
    return Pairs(
        np.array(ii, np.int64), np.array(jj, np.int64), np.array(same, np.int64), np.array(same_page, bool)
    )


def auc(score: npt.NDArray[np.float64], label: npt.NDArray[np.int64]) -> float:
    """Area under the ROC curve (Mann-Whitney, ties counted half); NaN without both classes."""
    pos, neg = int(label.sum()), int(len(label) - label.sum())
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(len(score), np.float64)
    sorted_score = score[order]
    # average ranks of ties
    _, start, counts = np.unique(sorted_score, return_index=True, return_counts=True)
    avg = start + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    return float((ranks[label == 1].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


# ---------------------------------------------------------------- learned metrics


@dataclass(frozen=True)
class Projection:
    mean: npt.NDArray[np.float32]
    scale: npt.NDArray[np.float32]
    projection: npt.NDArray[np.float32]

    def embed(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        z = ((x - self.mean) / self.scale) @ self.projection
        return np.asarray(z / np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-9), np.float32)


def fit_identity(x: npt.NDArray[np.float32], _labels: Sequence[str], _dim: int, _reg: float) -> Projection:
    """No learning: cosine of the standardised descriptors (the reference for the metric)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)
    return Projection(mean.astype(np.float32), scale.astype(np.float32), np.eye(x.shape[1], dtype=np.float32))


def fit_lda(x: npt.NDArray[np.float32], labels: Sequence[str], dim: int, reg: float) -> Projection:
    """Regularised linear discriminant analysis on persons (story + speaker): the directions
    along which persons differ most against how much one person's appearances vary."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)
    z = ((x - mean) / scale).astype(np.float64)
    classes = sorted(set(labels))
    lab = np.array([classes.index(s) for s in labels])
    sw = np.zeros((z.shape[1], z.shape[1]))
    sb = np.zeros_like(sw)
    for c in range(len(classes)):
        zc = z[lab == c]
        mu = zc.mean(axis=0)
        d = zc - mu
        sw += d.T @ d
        sb += len(zc) * np.outer(mu, mu)
    sw /= len(z)
    sb /= len(z)
    # shrink the within-person scatter toward its mean variance (few appearances a person)
    sw = (1 - reg) * sw + reg * np.trace(sw) / len(sw) * np.eye(len(sw))
    # whiten by sw, then the between-person directions
    evals, evecs = np.linalg.eigh(sw)
    white = evecs / np.sqrt(np.maximum(evals, 1e-9))
    b = white.T @ sb @ white
    bvals, bvecs = np.linalg.eigh(b)
    top = np.argsort(bvals)[::-1][: min(dim, len(classes) - 1)]
    proj = white @ bvecs[:, top]
    return Projection(mean.astype(np.float32), scale.astype(np.float32), proj.astype(np.float32))


Fitter = Callable[[npt.NDArray[np.float32], Sequence[str], int, float], Projection]
METRICS: dict[str, Fitter] = {"none": fit_identity, "lda": fit_lda}


def person_labels(items: Sequence[Item]) -> list[str]:
    return [f"{it.story}\t{it.speaker}" for it in items]


def story_folds(items: Sequence[Item], k: int) -> list[set[str]]:
    """The stories split into ``k`` folds of about equal balloon counts (0: one story a fold)."""
    sizes: dict[str, int] = {}
    for it in items:
        sizes[it.story] = sizes.get(it.story, 0) + 1
    if k <= 0 or k >= len(sizes):
        return [{s} for s in sorted(sizes)]
    folds: list[set[str]] = [set() for _ in range(k)]
    load = [0] * k
    for story in sorted(sizes, key=lambda s: (-sizes[s], s)):
        f = load.index(min(load))
        folds[f].add(story)
        load[f] += sizes[story]
    return folds


def by_story_centred(items: Sequence[Item], emb: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each story's embeddings through :func:`centre` (as the book pass does with a book's)."""
    out = emb.copy()
    stories = np.array([it.story for it in items])
    for story in set(stories):
        out[stories == story] = centre(emb[stories == story])
    return out


def story_centred(items: Sequence[Item], x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    out = x.copy()
    stories = np.array([it.story for it in items])
    for story in set(stories):
        out[stories == story] -= x[stories == story].mean(axis=0)
    return out


def cross_validate(
    items: Sequence[Item],
    pairs: Pairs,
    folds: Sequence[set[str]],
    embedder: Callable[..., npt.NDArray[np.float32]],
    centred: bool,
) -> tuple[npt.NDArray[np.float64], dict[str, dict[str, float]]]:
    """Held-out cosines for every pair (each story's by a model fitted without its fold), and
    each story's own AUCs. ``embedder(train_items, held_items)`` fits and embeds; ``centred``:
    the held-out story's embeddings are centred on their own mean (:func:`centre`)."""
    stories = np.array([it.story for it in items])
    cos = np.full(len(pairs.i), np.nan)
    pair_story = stories[pairs.i]
    for fold in folds:
        held_mask = np.isin(stories, sorted(fold))
        held = np.flatnonzero(held_mask)
        train = np.flatnonzero(~held_mask)
        emb_held = embedder([items[t] for t in train], [items[h] for h in held])
        if centred:
            emb_held = by_story_centred([items[h] for h in held], emb_held)
        emb = np.zeros((len(items), emb_held.shape[1]), np.float32)
        emb[held] = emb_held
        sel = np.isin(pair_story, sorted(fold))
        cos[sel] = np.sum(emb[pairs.i[sel]] * emb[pairs.j[sel]], axis=1)
    per_story: dict[str, dict[str, float]] = {}
    for story in sorted(set(stories)):
        sel = pair_story == story
        per_story[story] = {
            "same_page": auc(cos[sel & pairs.same_page], pairs.same[sel & pairs.same_page]),
            "cross_page": auc(cos[sel & ~pairs.same_page], pairs.same[sel & ~pairs.same_page]),
        }
    return cos, per_story


def linear_embedder(
    variant: str, metric: str, dim: int, reg: float, centred: bool
) -> Callable[..., npt.NDArray[np.float32]]:
    def run(train: Sequence[Item], held: Sequence[Item]) -> npt.NDArray[np.float32]:
        x = np.stack([it.features[variant] for it in train])
        if centred:  # fitted on what tells a story's people apart, as centre() leaves it
            x = story_centred(train, x)
        model = METRICS[metric](x, person_labels(train), dim, reg)
        return model.embed(np.stack([it.features[variant] for it in held]))

    return run


def report_aucs(score: npt.NDArray[np.float64], pairs: Pairs) -> dict[str, float | None]:
    """The AUCs of ``score`` on the pairs of one page, of different pages, and all (None: no
    pair of one of the two answers)."""
    out = {
        "same_page": auc(score[pairs.same_page], pairs.same[pairs.same_page]),
        "cross_page": auc(score[~pairs.same_page], pairs.same[~pairs.same_page]),
        "all": auc(score, pairs.same),
    }
    return {k: None if math.isnan(v) else round(v, 3) for k, v in out.items()}


def colour_score(items: Sequence[Item], pairs: Pairs, anchor: bool) -> npt.NDArray[np.float64]:
    """Minus the colour descriptor's Bhattacharyya distance (higher: more alike)."""
    look = [it.anchor_colour if anchor else it.colour for it in items]
    return -np.array([distance(look[a], look[b]) for a, b in zip(pairs.i, pairs.j, strict=True)])


def fit_calibration(cos: npt.NDArray[np.float64], same: npt.NDArray[np.int64]) -> tuple[float, float]:
    """1-D logistic regression of "same person" on the cosine (Newton's method, no penalty)."""
    w = np.zeros(2)
    xx = np.stack([cos, np.ones_like(cos)], axis=1)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(xx @ w)))
        grad = xx.T @ (same - p)
        hess = (xx * (p * (1 - p))[:, None]).T @ xx + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-10:
            break
    return float(w[0]), float(w[1])


def summary(values: Sequence[float]) -> str:
    v = [x for x in values if not math.isnan(x)]
    if not v:
        return "n/a"
    return f"median {np.median(v):.3f}, min {min(v):.3f}, max {max(v):.3f} over {len(v)} stories"


def time_pages(
    books: Sequence[tuple[str, list[GTPage]]], prefix: PageAnalyzer, model: AppearanceModel
) -> str:
    """CPU time of the speaker boxes and embeddings of every dialogue balloon of each page."""
    spent, counts = [], []
    for book_name, book_pages in books:
        book = DatasetBook(book_name, book_pages)
        for number, page in enumerate(book_pages, 1):
            analysis = prefix.analyze_page(book, number, page.direction)
            image = book.load_page_array(number - 1)
            start = time.process_time()
            dialogue = [b for b in analysis.blocks if b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT)]
            model.embed_balloons(image, analysis, dialogue)
            spent.append(time.process_time() - start)
            counts.append(len(dialogue))
    return (
        f"CPU per page (all its dialogue balloons, {np.mean(counts):.1f} on average): "
        f"mean {1000 * np.mean(spent):.1f} ms, max {1000 * max(spent):.1f} ms over {len(spent)} pages"
    )


def main() -> int:  # noqa: C901 (one flag per training variant; split when next changed)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write", action="store_true", help="write the model fitted on every story")
    parser.add_argument(
        "--pages", type=int, default=0, help="only the first N pages of each dataset (smoke run)"
    )
    parser.add_argument(
        "--variant", default="panel-small", choices=sorted(VARIANTS), help="region and descriptors shipped"
    )
    parser.add_argument("--metric", default="lda", choices=[*sorted(METRICS), "cnn"])
    parser.add_argument("--dim", type=int, default=32, help="embedding size (at most 64)")
    parser.add_argument("--reg", type=float, default=0.7, help="LDA shrinkage of the within-person scatter")
    parser.add_argument("--folds", type=int, default=0, help="folds by story (0: leave one story out)")
    parser.add_argument("--epochs", type=int, default=40, help="CNN training epochs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pretrain", type=int, default=0, help="self-supervised epochs before the CNN's pairs"
    )
    parser.add_argument("--reuse", action="store_true", help="reuse the balloons collected by the last run")
    parser.add_argument("--no-centre", action="store_true", help="no centring of a story's embeddings")
    parser.add_argument("--timing", action="store_true", help="time the shipped model on every page")
    parser.add_argument("--all-variants", action="store_true", help="report every variant and metric")
    parser.add_argument("--out", type=Path, default=DATA, help="where --write puts the model")
    args = parser.parse_args()
    if args.dim > 64:
        parser.error("--dim is at most 64")

    root = data_root()
    if root is None:
        print("no evaluation data (../shared/data or $PANELVOX_EVAL_DATA)", file=sys.stderr)
        return 2
    prefix_stages = tuple(s for s in default_stages() if s.name != "speakers")
    cache = AnalysisCache(paths.cache_dir() / "train", pipeline_fingerprint(prefix_stages))
    prefix = PageAnalyzer(prefix_stages, cache)
    books: list[tuple[str, list[GTPage]]] = []
    described = []
    for name in DATASETS:
        if not (root / name).is_dir():
            continue
        pages = [p for p in load_dataset(root / name).pages if p.script is not None]
        if args.pages:
            pages = pages[: args.pages]
        books.extend(books_of(pages))
        described.append(f"{name}: {len(pages)} pages")
    if args.timing:
        print(time_pages(books, prefix, AppearanceModel.shipped()))
        return 0
    store = paths.cache_dir() / "train" / f"appearance-items-{args.pages}-{args.variant}.pkl"
    if args.reuse and store.is_file():
        items, unlabelled = pickle.loads(store.read_bytes())
    else:
        items, unlabelled = collect(books, prefix, args.variant)
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_bytes(pickle.dumps((items, unlabelled)))
    pairs = cross_panel_pairs(items)
    n_stories = len({it.story for it in items})
    print(
        f"{len(items)} dialogue balloons with a sure golden speaker, {n_stories} stories; "
        f"pairs in different panels: {int(pairs.same_page.sum())} same page "
        f"({int(pairs.same[pairs.same_page].sum())} same speaker), {int((~pairs.same_page).sum())} "
        f"across pages ({int(pairs.same[~pairs.same_page].sum())} same speaker)"
    )
    if n_stories < 2 or len(pairs.i) == 0:
        print("too little data to cross-validate", file=sys.stderr)
        return 0 if args.pages else 1
    results: dict[str, object] = {
        "colour descriptor (same box)": report_aucs(colour_score(items, pairs, anchor=False), pairs),
        "colour descriptor (anchor_look box)": report_aucs(colour_score(items, pairs, anchor=True), pairs),
    }
    for k, v in results.items():
        print(f"{k:45s} {json.dumps(v)}")
    tried = (
        [(v, m) for v in VARIANTS for m in METRICS] if args.all_variants else [(args.variant, args.metric)]
    )
    chosen: tuple[npt.NDArray[np.float64], dict[str, dict[str, float]]] | None = None
    folds = story_folds(items, args.folds)
    print(f"{len(folds)} folds by story")
    for variant, metric in tried:
        if metric == "cnn":
            from appearance_cnn import cnn_embedder  # training only: torch

            embedder = cnn_embedder(args.dim, args.epochs, args.seed, unlabelled, args.pretrain)
        else:
            embedder = linear_embedder(variant, metric, args.dim, args.reg, not args.no_centre)
        cos, per_story = cross_validate(items, pairs, folds, embedder, not args.no_centre)
        figures = report_aucs(cos, pairs)
        print(f"{variant + ' / ' + metric:45s} {json.dumps(figures)}")
        if (variant, metric) == (args.variant, args.metric):
            chosen = (cos, per_story)
            results["model"] = figures
    assert chosen is not None
    cos, per_story = chosen
    for key in ("same_page", "cross_page"):
        line = summary([s[key] for s in per_story.values()])
        print(f"per held-out story, {key}: {line}")
    slope, intercept = fit_calibration(cos, pairs.same)
    prior = float(np.log(pairs.same.mean() / (1 - pairs.same.mean())))
    print(
        f"calibration on held-out cosines: log-odds = {slope:.3f} * cos + {intercept:.3f} (prior {prior:.3f})"
    )
    if not args.write:
        return 0

    region, spec = VARIANTS[args.variant]
    if not isinstance(region, Region):
        print("--write needs a region variant (the figure variant is measured only)", file=sys.stderr)
        return 2
    x = np.stack([it.features[args.variant] for it in items])
    if not args.no_centre:
        x = story_centred(items, x)
    proj = METRICS[args.metric](x, person_labels(items), args.dim, args.reg)
    model = AppearanceModel(
        spec=spec,
        region=region,
        mean=proj.mean,
        scale=proj.scale,
        projection=proj.projection,
        slope=slope,
        intercept=intercept,
        prior_log_odds=prior,
    )
    weights = args.out / WEIGHTS_FILE
    weights.parent.mkdir(parents=True, exist_ok=True)
    model.save(weights)
    command = "scripts/train_appearance_model.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    sidecar = {
        "format": "panelvox.appearance-sidecar/1",
        "weights": Path(WEIGHTS_FILE).name,
        "sha256": sha256_of(weights),
        "bytes": weights.stat().st_size,
        "command": command,
        "trained_on": (
            "golden scripts (speaker_sure dialogue lines matched to detected blocks by the eval): "
            + ", ".join(described)
            + f"; {len(items)} balloons, {n_stories} stories, persons = story + golden speaker"
        ),
        "variant": args.variant,
        "metric": args.metric,
        "dim": model.dim,
        "region": asdict(region),
        "spec": asdict(spec),
        "held_out": {
            "how": "leave one story out; AUC of same speaker over pooled held-out cosines, "
            "pairs of dialogue balloons in different panels",
            "pairs": {
                "same_page": int(pairs.same_page.sum()),
                "cross_page": int((~pairs.same_page).sum()),
            },
            **{k: v for k, v in results.items()},
            # None: the story has no such pair with both answers (one page, or one speaker)
            "per_story": {
                k: {kk: None if math.isnan(vv) else round(vv, 3) for kk, vv in v.items()}
                for k, v in per_story.items()
            },
        },
        "calibration": {"slope": slope, "intercept": intercept, "prior_log_odds": prior},
        "made": time.strftime("%Y-%m-%d", time.gmtime()),
        "python": sys.version.split()[0],
    }
    (args.out / SIDECAR_FILE).write_text(
        json.dumps(sidecar, indent=1, allow_nan=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {weights} ({sidecar['bytes']} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
