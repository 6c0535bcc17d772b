"""Speed and peak memory of panels + order per page, over cib and openmantra in ../shared/data.

    .venv/bin/python benchmarks/bench_panels.py [--limit N] [--write]

Prints the numbers; with --write, replaces the speed lines of the "Panels and reading order
(issue 3)" section of docs/benchmarks.md. Page decoding is not timed.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc
from pathlib import Path

import numpy as np
from PIL import Image

from panelvox.analysis.order_stage import OrderStage
from panelvox.analysis.panels_stage import PanelStage
from panelvox.analysis.pipeline import analyze_page
from panelvox.model import ReadingDirection

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
DOC = REPO / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench_panels:begin -->", "<!-- bench_panels:end -->"


def pages(limit: int | None) -> list[tuple[Path, ReadingDirection]]:
    cib = sorted((DATA / "cib" / "images").glob("*.jpeg"))
    om = sorted((DATA / "openmantra" / "images").glob("*/ja/*.jpg"))
    if limit:
        cib, om = cib[:limit], om[:limit]
    return [(p, ReadingDirection.LTR) for p in cib] + [(p, ReadingDirection.RTL) for p in om]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, help="pages per dataset")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = ap.parse_args()
    todo = pages(args.limit)
    if not todo:
        print(f"no pages under {DATA}")
        return 1
    stages = (PanelStage(), OrderStage())
    times: list[float] = []
    peak = 0
    for path, direction in todo:
        image = np.asarray(Image.open(path).convert("RGB"))
        tracemalloc.start()
        t = time.perf_counter()
        analyze_page(image, page=1, direction=direction, stages=stages)
        times.append(time.perf_counter() - t)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    med, p90 = statistics.median(times), float(np.percentile(times, 90))
    lines = [
        f"- Pages: {len(todo)} (cib {sum(d is ReadingDirection.LTR for _, d in todo)}, "
        f"openmantra {sum(d is ReadingDirection.RTL for _, d in todo)}); panels + order, decoding not timed.",
        f"- Time per page: median {med:.3f} s, p90 {p90:.3f} s, max {max(times):.3f} s.",
        f"- Peak memory: {peak / 2**20:.1f} MiB allocated by the stages (numpy, tracemalloc); "
        f"process max RSS {rss:.0f} MiB.",
    ]
    print("\n".join(lines))
    if args.write:
        text = DOC.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
            DOC.write_text(text[:a] + "\n" + "\n".join(lines) + "\n" + text[b:], encoding="utf-8")
            print(f"updated {DOC}")
        else:
            print(f"{DOC} has no {BEGIN} block; nothing written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
