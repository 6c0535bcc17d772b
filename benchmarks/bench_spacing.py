#!/usr/bin/env python3
"""What choosing word boundaries by frequency costs: load time, memory, time per line.

Times :func:`panelvox.analysis.lettering.restore_spaces` over lettered lines: the cib golden
scripts' lines in ../shared/data where present (else the sample lines below), each as
written and with all its spaces removed (the worst case: one long run of letters to cut).
Loading is timed in a fresh state (the word list and the frequencies, each read once per
process); memory is the Python heap the frequencies take (tracemalloc). `--write` puts the
line in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_spacing.py [--write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from doc_marks import write_between_marks  # noqa: E402

from panelvox.analysis import spacing  # noqa: E402
from panelvox.analysis.lettering import WordList, restore_spaces  # noqa: E402
from panelvox.errors import PanelvoxError  # noqa: E402

MARK = "<!-- bench_spacing -->"
SAMPLE = [
    "GOOD LUCK RICH WE'VE DONE EVERY THING HUMANLY POSSIBLE TO ASSURE A SAFE FLIGHT",
    "YOUR BARRACKS DIDN'T PASS IN SPEC TION GO BACK AND HIT THAT DUST",
    "THIS IS GONNA BE HER LAST ESCORT ROUND ANY POST AND IT AIN'T A HERIT'S A HIM",
    "I NEVER EXPECTED TO BE RUNNINGACUT RATE DOG STORE",
]


def _lines() -> list[str]:
    try:
        from panelvox.eval.loaders import load_dataset

        pages = load_dataset("cib").pages
    except PanelvoxError:
        return SAMPLE
    return [ln.text.upper() for p in pages for ln in p.script.lines if ln.text.strip()] or SAMPLE


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    tracemalloc.start()
    t0 = time.perf_counter()
    freqs = spacing.WordFrequencies.load()
    load_ms = 1000 * (time.perf_counter() - t0)
    heap_mb = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    words = WordList.load()
    lines = _lines()
    runs = ["".join(c for c in ln if c.isalpha()) for ln in lines]

    def per_line(texts: list[str]) -> list[float]:
        out = []
        for text in texts:
            t = time.process_time()
            restore_spaces(text, words, freqs)
            out.append(1000 * (time.process_time() - t))
        return out

    plain, joined = per_line(lines), per_line(runs)
    line = (
        f"Word boundaries by frequency ({len(freqs.cost)} words): load {load_ms:.0f} ms once per process, "
        f"{heap_mb:.1f} MiB; {len(lines)} lines: median {statistics.median(plain):.2f} ms per line "
        f"(max {max(plain):.1f}); with every space removed median {statistics.median(joined):.2f} ms "
        f"(max {max(joined):.1f}); CPU process time"
    )
    print(line)
    if args.write:
        write_between_marks(MARK, line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
