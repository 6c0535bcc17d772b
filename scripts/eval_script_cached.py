#!/usr/bin/env python3
"""The cib golden-script eval (``panelvox eval cib --stage script``) with the text models'
output cached on disk, for developers changing what comes after text reading.

Text detection and recognition are most of a page's time; a change to grouping, kinds,
order, speakers or names does not alter them. This runs the same eval with
``TextStage.read_lines`` remembered per page image (and recognition head) in a folder, so a
second run takes a minute, and writes what a change won or broke line by line::

    .venv/bin/python scripts/eval_script_cached.py OUT [--cache DIR] [--speakers] [--dataset DIR]

OUT/summary.json holds the script metrics (with ``--speakers`` also the characters and
speakers stages and their metrics); OUT/misses.tsv one row per GT line not found (MISS),
not read exactly (INEXACT), of the wrong kind (KIND) or found off the longest chain in
reading order (ORDER, with its block's position), and per block matching no line (JUNK). A change to text reading makes the cache wrong: give a fresh ``--cache``. The
numbers that are reported are the uncached eval's. Needs ../shared/data (or
PANELVOX_EVAL_DATA).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from panelvox.analysis import text_stage
from panelvox.analysis.pipeline import default_stages
from panelvox.eval.cue_calibration import cue_metrics, format_cue_report
from panelvox.eval.loaders import load_dataset
from panelvox.eval.page_scoring import heard_blocks
from panelvox.eval.runner import EvalStage, run_eval
from panelvox.eval.script_metrics import (
    _GT_GROUP,
    _HEARD_GROUP,
    _best_match,
    _is_junk,
    aggregate_scores,
    normalize_text,
)

_read_lines = text_stage.TextStage.read_lines


def cache_text_reading(folder: Path) -> None:
    """Make ``TextStage.read_lines`` remember its lines per image and head in ``folder``
    (read with no confidence floor, filtered on the way out as the stage does)."""
    folder.mkdir(parents=True, exist_ok=True)

    def cached(self: Any, image: Any, *, dense: Any = None, head: str = text_stage.FULL) -> Any:
        key = f"{hashlib.sha1(image.tobytes()).hexdigest()[:20]}_{self.read_dense}_{head}"
        path = folder / f"{key}.pkl"
        if path.exists():
            lines, found = pickle.loads(path.read_bytes())
        else:
            floor, self.min_confidence = self.min_confidence, 0.0
            found = []
            try:
                lines = _read_lines(self, image, dense=found, head=head)
            finally:
                self.min_confidence = floor
            path.write_bytes(pickle.dumps((lines, found)))
        if dense is not None:
            dense.extend(found)
        return [(d, r, v) for d, r, v in lines if r.score >= self.min_confidence]

    text_stage.TextStage.read_lines = cached  # type: ignore[method-assign]


def off_chain(positions: list[int]) -> set[int]:
    """Indices of ``positions`` off one longest strictly increasing chain (the lines that
    ``in_order`` does not count)."""
    best = [1] * len(positions)
    prev = [-1] * len(positions)
    for i, p in enumerate(positions):
        for j in range(i):
            if positions[j] < p and best[j] + 1 > best[i]:
                best[i], prev[i] = best[j] + 1, j
    k = max(range(len(positions)), key=best.__getitem__, default=-1)
    chain = set()
    while k != -1:
        chain.add(k)
        k = prev[k]
    return set(range(len(positions))) - chain


def misses(page: Any, pred: Any) -> list[str]:
    """One row per line missed, read inexactly, of the wrong kind or out of order, and per
    junk block."""
    heard = heard_blocks(pred)
    pid = page.page_id
    rows = []
    lines = [(ln, t) for ln in page.script.lines if (t := normalize_text(ln.text))]
    blocks = [(i, t) for i, b in enumerate(heard) if (t := normalize_text(b.text))]
    found = []
    for ln, t in lines:
        m = _best_match(t, blocks)
        if m is not None:
            found.append((ln, t, m.first_block))
        if m is None:
            best = max(((fuzz.partial_ratio(t, b) / 100, b) for _i, b in blocks), default=(0.0, ""))
            rows.append(f"{pid}\tMISS\t{ln.kind}\t{t}\t|best {best[0]:.2f}: {best[1][:120]}")
            continue
        b = heard[m.first_block]
        if m.score < 1.0:
            rows.append(f"{pid}\tINEXACT {m.score:.2f}\t{ln.kind}\t{t}\t|{normalize_text(b.text)[:150]}")
        if _GT_GROUP[ln.kind] != _HEARD_GROUP[b.kind]:
            rows.append(f"{pid}\tKIND {ln.kind}->{b.kind}\t{t[:80]}")
    for k in sorted(off_chain([pos for _ln, _t, pos in found])):
        ln, t, pos = found[k]
        rows.append(f"{pid}\tORDER block {pos}\t{ln.kind} (panel {ln.panel})\t{t[:80]}")
    for i, t in blocks:
        if _is_junk(t, [lt for _ln, lt in lines]):
            rows.append(f"{pid}\tJUNK\t{heard[i].kind}\t{t}\t(conf {heard[i].confidence:.2f})")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "panelvox-dev" / "read_lines")
    ap.add_argument("--speakers", action="store_true", help="run the characters and speakers stages too")
    ap.add_argument(
        "--dataset", default="cib", help="the golden scripts: cib, or a folder such as cib-extra's"
    )
    args = ap.parse_args()
    os.environ.setdefault("PANELVOX_EVAL_DATA", str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    cache_text_reading(args.cache)
    stages = tuple(s for s in default_stages() if args.speakers or s.name not in ("characters", "speakers"))
    rows: list[str] = []

    def on_page(page: Any, _image: Any, pred: Any) -> None:
        rows.extend(misses(page, pred))

    result = run_eval(load_dataset(args.dataset), EvalStage.SCRIPT, stages=stages, on_page=on_page)
    agg = aggregate_scores(r.script for r in result.records if r.script is not None)
    summary = {k: v for k, v in agg.items() if not k.startswith("baseline.")}
    cues = [r.cues for r in result.records if r.cues is not None]
    summary |= cue_metrics(cues)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    (args.out / "misses.tsv").write_text("\n".join(rows) + "\n")
    keys = ("found_rate", "in_order_rate", "exact_rate", "kind_right_rate", "junk_rate")
    print(" ".join(f"{k[:-5]} {summary[k]:.3f}" for k in keys))
    print(format_cue_report(cues))
    if args.speakers:
        said, right = summary["names_said"], summary["names_right"]
        print(
            f"attribution {summary['attribution']:.3f} turns {summary['turns']:.3f} names said {said} right {right}"
        )


if __name__ == "__main__":
    main()
