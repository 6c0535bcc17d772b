#!/usr/bin/env python3
"""Benchmark of issue 4: text (detection + OCR) and balloons on ../shared/data.

Prints and writes the "## Text, balloons and captions (issue 4)" section of
docs/benchmarks.md: quality per dataset (cib dialogue recall, comic-ocr and openmantra OCR,
iabc balloons and tails), the worst pages, median seconds per page split into detection,
recognition and grouping, and peak memory (RSS).

    .venv/bin/python benchmarks/bench_text.py [--limit N] [--no-write]

cib blocks are put in reading order with the ground-truth panels (panel, then rows), so
the numbers measure this issue's stages, not the order stage.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from pathlib import Path

import numpy as np
from PIL import Image

from panelvox.analysis.balloons_stage import BalloonsStage
from panelvox.analysis.lettering import WordList
from panelvox.analysis.pipeline import empty_analysis
from panelvox.analysis.text_stage import TextStage
from panelvox.eval.dialogue_metrics import transcript_recall
from panelvox.eval.loaders import load_dataset
from panelvox.eval.metrics import Counts, detection_counts, match_boxes, ocr_counts
from panelvox.eval.page_scoring import predicted_text_units
from panelvox.model import BBox, PageAnalysis, ReadingDirection
from panelvox.models.ocr import StepTimes

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
SECTION = "## Text, balloons and captions (issue 4)"
COMPASS = ("E", "SE", "S", "SW", "W", "NW", "N", "NE")
#: what the numbers do not show; the openmantra table comes from ``--titles`` (all pages)
NOTES = """\
Balloons and tails: a tail's wedge is followed past the end of the flood fill (whose
barrier thickens strokes by a pixel and so stops where the wedge's inside is about two
pixels wide): first along the light channel between the wedge's edges on the unthickened
stroke mask, then along the dark spike where the two edges merge, until it ends or widens
into the artwork; the tip and the channel join the balloon's outline and box. Balloons
are told from ragged background by the solidity of their body without the tail (a long
tail no longer makes a balloon fail the test), and the direction is the tail's own (base
to tip). All 31 iabc balloons are now found; what remains weak on tails:
- direction labels lean diagonal where the tail leans only slightly (iabc says SE for
  tails at 72-78°, our S); one label contradicts the drawing (RLS_T41 balloon 16, SW for a
  tail leaning right); the 70 % is 16 of 23 and moves by one balloon either way;
- tips can still stop short where the spike is faint or overshoot where it runs into the
  artwork's lines (RLS_T41 balloon 14: 74 px past the tip);
- thought-bubble trails (separate small circles) are never followed (FOX_T17 balloon 10:
  tip 150 px short, box IoU 0.53); a balloon drawn over another still cuts the lower one.

Captions (Western lettering; Japanese keeps the round-2 rules, which these broke: 33
manga balloons became captions when tried): three conventions of Golden Age pages.
A box whose convex hull is a rectangle (hull over its minimum rotated rectangle ≥ 0.96)
is a caption even where its letters bite into the fill (the sample book's tilted
"CHAD BILLOW, YOUNG ADVENTURER…" box, read as a balloon with a tail to a barrel);
lettering whose fill spans the page (the margin and gutters round the panels, or a box
open to them) is a caption, or a title when its letters are large, where it used to
take the whole page's rectangle as its outline and box; and lettering whose outline was
not traced, against a panel's top or bottom border, is a caption. A short cry ("HOW
WONDERFUL! TERRIFIC!", under 8 words with "!" or "?") stays dialogue under the last
two. Measured on the same text-stage output, before and after (cached, our panels):
iabc balloons, tails and kinds unchanged (F1 1.000, tails 0.70); cib dialogue recall
0.812 / 0.784 and comic-ocr 0.886 unchanged; openmantra block Hmean 0.802 unchanged.
Of the 67 cib pages, 20 changed: 33 blocks read as someone's speech are now captions,
29 of them narration ("SEVERAL HOURS BEFORE DAWN…", "LATER THAT NIGHT…", "MEANWHILE…
THE GUESTS", checked against the pages' narrations); wrong: "A WIG! JUST AS I
THOUGHT! YOU'RE NOT MY LULU…" and
"HELLO MR. HAVCASH" (dialogue lettered on the margin / against the border) and two
sound effects ("BANG", "WHAM", read as speech before, as captions now). The cib
golden caption goes to the narrator now (was 0 of 1; docs section of issue 5). This
script runs the text stage without panels, so the panel-border rule does not show in
its numbers.

openmantra over all 214 pages, per title (`bench_text.py --titles`, text stage as in this
round, balloons stage as in this section):

| title | pages | Hmean (lines' box, round 1's rule) | Hmean (block's box, as `panelvox eval`) |
|---|---|---|---|
| balloon_dream | 38 | 0.754 | 0.812 |
| boureisougi | 36 | 0.593 | 0.822 |
| rasetugari | 54 | 0.573 | 0.808 |
| tencho_isoro | 40 | 0.618 | 0.776 |
| tojime_no_siora | 46 | 0.796 | 0.796 |
| all | 214 | 0.667 | 0.802 |

Why the later titles lose: not the grouping. Classifying every unmatched true box over the
214 pages: 381 of ~520 misses have exactly one predicted block on them that is too small
(IoU < 0.5 because the box is smaller), 35 are merged with a neighbour, 9 split, 38 are
"…"-only balloons the text stage drops as noise, 18 have no detected line. These titles
annotate a text box as (nearly) the balloon's inside, e.g. boureisougi's small lettering
in large balloons (true box 1.56 × as wide as the lines' union): round 1's `panelvox eval`
scored a block by the union of its lines' boxes, while the block's own box (its traced
balloon, else its text) matches these annotations (on every third page of the three weakest
titles, IoU ≥ 0.5 for 0.90-0.99 of the balloons with an outline, against 0.64-0.73 for the
lines' union). `panelvox eval` now scores the block's own box, which is also what the
reader reports and highlights: 0.802 over the 214 pages. Also weak: 103 false blocks cover no
true box, mostly sound effects and scene text (signs, a grave's inscription) that the
dataset does not annotate, and single characters read off the artwork ("一", "0").

comic-ocr's end-to-end Hmean reads 0.886 here as in the Evaluation table; the 0.686 of
the previous run of this script predates the evaluation's final text normalisation (round
1); detection and the text stage are unchanged.
"""


def _lines_union(a: PageAnalysis) -> list[BBox]:
    """Each block scored by the union of its lines' boxes (how `panelvox eval` did in round 1)."""
    by_id = {ln.id: ln for ln in a.lines}
    out = []
    for b in a.blocks:
        box = b.bbox
        member = [by_id[i].bbox for i in b.lines if i in by_id]
        if member:
            box = member[0]
            for m in member[1:]:
                box = box.union(m)
        out.append(box)
    return out


class Runner:
    def __init__(self) -> None:
        words = WordList.load()
        self.times = StepTimes()
        self.text = TextStage(words=words, times=self.times)
        self.balloons = BalloonsStage(words=words)
        self.page_s: list[float] = []
        self.group_s = 0.0

    def __call__(self, path: Path, direction: ReadingDirection) -> PageAnalysis:
        image = np.asarray(Image.open(path).convert("RGB"))
        t0 = time.perf_counter()
        a = self.text(image, empty_analysis(image, 1, direction))
        t1 = time.perf_counter()
        a = self.balloons(image, a)
        t2 = time.perf_counter()
        self.group_s += t2 - t1
        self.page_s.append(t2 - t0)
        return a


def _f(c: Counts) -> tuple[float, float, float]:
    p = c.tp / c.n_pred if c.n_pred else 0.0
    r = c.tp / c.n_true if c.n_true else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def bench_cib(run: Runner, limit: int) -> tuple[str, list[str]]:
    rec, ordr, worst = [], [], []
    for f in sorted((DATA / "cib" / "panels").glob("*.json"))[:limit]:
        gt = json.loads(f.read_text(encoding="utf-8"))
        a = run(DATA / "cib" / "images" / gt["image"], ReadingDirection.LTR)
        panels = [BBox.from_list(p["bbox"]) for p in gt["panels"]]

        def key(box: BBox, panels: list[BBox] = panels) -> tuple[int, float, float]:
            cover = [box.coverage_by(p) for p in panels]
            return (int(np.argmax(cover)) if max(cover) > 0 else len(panels), box.y0 // 40, box.x0)

        units = [b.text for b in sorted(a.blocks, key=lambda b: key(b.bbox)) if b.kind.essential]
        s = transcript_recall(gt["dialogue"], units)
        rec.append(s.recall)
        ordr.append(s.ordered_recall)
        worst.append((s.recall, f.stem))
    worst.sort()
    line = f"| cib ({len(rec)} pages) | dialogue recall **{np.mean(rec):.3f}** (target ≥ 0.80), in order **{np.mean(ordr):.3f}** (≥ 0.70) |"
    return line, [f"cib `{n}`: recall {r:.2f}" for r, n in worst[:3]]


def bench_ocr(run: Runner, name: str, limit: int) -> tuple[str, list[str], tuple[float, float]]:
    ds = load_dataset(name, DATA)
    total = None
    worst = []
    for page in ds.pages[:limit]:
        a = run(page.image_path, page.direction)
        units = predicted_text_units(page, a)
        c = ocr_counts([(b, s) for b, s, _, _ in units], [(t.bbox, t.text) for t in page.text_units()])
        total = c if total is None else total + c
        worst.append((_f(c.detection)[2], page.page_id))
    assert total is not None
    d, e = _f(total.detection), _f(total.end_to_end)
    worst.sort()
    line = (
        f"| {name} ({min(limit, len(ds.pages))} pages) | detection P/R/Hmean {d[0]:.3f}/{d[1]:.3f}/**{d[2]:.3f}**, "
        f"end-to-end Hmean **{e[2]:.3f}**, mean 1−NED on matched **{total.mean_similarity:.3f}** |"
    )
    return line, [f"{name} `{n}`: detection Hmean {h:.2f}" for h, n in worst[:3]], (d[2], e[2])


def bench_iabc(run: Runner) -> tuple[str, list[str]]:
    ds = load_dataset("iabc", DATA)
    total = Counts(0, 0, 0)
    right = with_tail = 0
    for page in ds.pages:
        a = run(page.image_path, page.direction)
        pred, true = list(a.blocks), list(page.balloons)
        total = total + detection_counts([b.bbox for b in pred], [b.bbox for b in true])
        for i, j in match_boxes([b.bbox for b in pred], [b.bbox for b in true], threshold=0.5):
            gd = true[j].tail_direction
            if gd and gd != "none":
                with_tail += 1
                tail = pred[i].tail
                right += int(
                    tail is not None and COMPASS[int(((tail.direction_deg + 22.5) % 360) // 45)] == gd
                )
    p, r, f = _f(total)
    tails = right / with_tail if with_tail else float("nan")
    line = (
        f"| iabc ({len(ds.pages)} pages) | balloon P/R/F1 {p:.3f}/{r:.3f}/**{f:.3f}** (target ≥ 0.85), "
        f"tail direction right on **{tails:.2f}** of {with_tail} matched balloons with tails (≥ 0.70) |"
    )
    return line, []


def bench_openmantra_titles(run: Runner) -> list[str]:
    """Block detection Hmean per openmantra title over all pages, scored as ``panelvox
    eval`` does (the union of a block's lines) and with the block's own box (its balloon)."""
    ds = load_dataset("openmantra", DATA)
    lines_c: dict[str, Counts] = {}
    block_c: dict[str, Counts] = {}
    for page in ds.pages:
        a = run(page.image_path, page.direction)
        true = [t.bbox for t in page.text_units()]
        title = page.page_id.split("/")[0]
        for store, boxes in (
            (lines_c, _lines_union(a)),
            (block_c, [u[0] for u in predicted_text_units(page, a)]),
        ):
            c = detection_counts(boxes, true)
            for key in (title, "all"):
                store[key] = store[key] + c if key in store else c
    rows = [
        "| title | pages | Hmean (lines' box, round 1's rule) | Hmean (block's box, as `panelvox eval`) |",
        "|---|---|---|---|",
    ]
    for key in [*sorted(k for k in lines_c if k != "all"), "all"]:
        n = sum(1 for p in ds.pages if key == "all" or p.page_id.startswith(key + "/"))
        rows.append(f"| {key} | {n} | {_f(lines_c[key])[2]:.3f} | {_f(block_c[key])[2]:.3f} |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=40, help="pages per dataset (openmantra has 214)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--titles", action="store_true", help="only: openmantra per title, all pages")
    args = ap.parse_args()
    run = Runner()
    if args.titles:  # a table to paste into the notes below
        print("\n".join(bench_openmantra_titles(run)))
        return 0
    rows, worst = [], []
    for fn in (
        lambda: bench_cib(run, args.limit),
        lambda: bench_ocr(run, "comic-ocr", args.limit)[:2],
        lambda: bench_ocr(run, "openmantra", args.limit)[:2],
        lambda: bench_iabc(run),
    ):
        line, w = fn()
        print(line, flush=True)
        rows.append(line)
        worst.extend(w)
    n = len(run.page_s)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    speed = (
        f"Median **{statistics.median(run.page_s):.2f} s/page** over {n} pages (target ≤ 1.5); mean per page: "
        f"detection {run.times.det / n:.2f} s, recognition {run.times.rec / n:.2f} s, "
        f"grouping/balloons {run.group_s / n:.2f} s. Peak RSS **{peak_mb:.0f} MB** (target ≤ 1536)."
    )
    print(speed)
    section = "\n".join(
        [
            SECTION,
            "",
            "Measured 2026-11-22 on the 2-core Debian 12 CPU (shared with other jobs, so times are",
            f"pessimistic) by `benchmarks/bench_text.py --limit {args.limit}`; PP-OCRv6 small det/rec from",
            "the rapidocr wheel on onnxruntime CPU; text + balloons stages only. Detection reads the",
            "probability map strictly (threshold 0.5, no dilation; boxes still holding several lines",
            "re-cut at 0.65/0.8) so closely set comic lines come apart, and reports each line with",
            "the outline of the detector's usual pass (0.3, dilated) where that pass found it too.",
            "",
            "| data | result |",
            "|---|---|",
            *rows,
            "",
            speed,
            f"Load average at the end of the run: {os.getloadavg()[0]:.1f} on 2 cores (other jobs ran too).",
            "",
            "Worst pages: " + "; ".join(worst) + ".",
            "",
            NOTES.rstrip("\n"),
            "",
            "Earlier rounds (same script): before this round's tail work, cib recall 0.801 / in",
            "order 0.777, iabc balloon F1 0.839 and tails 0.61 of 18; the round before (before the",
            "strict detection pass and the grouping fixes): cib recall 0.698 / in order 0.674;",
            "comic-ocr detection Hmean 0.784, end-to-end 0.729; openmantra detection Hmean 0.755;",
            "iabc balloon F1 0.758, tails 0.59 of 17.",
            "",
        ]
    )
    if not args.no_write:
        _write(section)
    return 0


def _write(section: str) -> None:
    path = REPO / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = text.find(SECTION)
    if start >= 0:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section.rstrip("\n") + "\n" + (f"\n{text[end + 1 :]}" if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
