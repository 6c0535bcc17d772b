#!/usr/bin/env python3
"""Benchmark of the Latin recognition head (issue 18, "Less work per page").

Interleaved page by page in one process, on cib pages (English): the whole page analysed by
``default_stages()`` as a book with no known language (the full recognition model, 18,710
classes), then as a book whose ComicInfo says ``en`` (the Latin head, 344 classes), the
order alternating from page to page. Reports the median recognition seconds per page (the
text stage's recognition step, :class:`~panelvox.models.ocr.StepTimes`), the median whole
page, and how many of the page's lines read differently. Prints; with ``--write`` replaces
the lines between the markers in docs/benchmarks.md.

    PYTHONPATH=app .venv/bin/python benchmarks/bench_latin_head.py [--limit 12] [--write]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
DATA = next((d / "shared" / "data" for d in REPO.parents if (d / "shared" / "data").is_dir()), REPO.parent)
sys.path.insert(0, str(REPO / "app"))

from doc_marks import write_between_marks  # noqa: E402

from panelvox.analysis.pipeline import analyze_page, default_stages  # noqa: E402
from panelvox.model import ReadingDirection  # noqa: E402
from panelvox.models.ocr import StepTimes  # noqa: E402

MARK = "<!-- bench_latin_head -->"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=12, help="cib pages, spread over the set")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = ap.parse_args()
    cib = sorted((DATA / "cib" / "images").glob("*.jp*g"))
    paths = cib[:: max(1, len(cib) // args.limit)][: args.limit]
    if not paths:
        print("no cib pages in ../shared/data")
        return 1
    stages = default_stages()
    text = stages[1]
    load = os.getloadavg()[0]

    def run(image: np.ndarray, language: str | None) -> tuple[float, float, list[str]]:
        text.times = StepTimes()  # type: ignore[attr-defined]
        t = time.perf_counter()
        a = analyze_page(image, page=1, direction=ReadingDirection.LTR, stages=stages, language=language)
        return time.perf_counter() - t, text.times.rec, [ln.text for ln in a.lines]  # type: ignore[attr-defined]

    first = np.asarray(Image.open(paths[0]).convert("RGB"))
    run(first, None), run(first, "en")  # warm-up: both heads made and loaded
    rows = {None: ([], []), "en": ([], [])}  # type: ignore[var-annotated]
    changed = total = 0
    for i, path in enumerate(paths):
        image = np.asarray(Image.open(path).convert("RGB"))
        order = (None, "en") if i % 2 == 0 else ("en", None)
        texts = {}
        for lang in order:
            whole, rec, lines = run(image, lang)
            rows[lang][0].append(whole)
            rows[lang][1].append(rec)
            texts[lang] = lines
        total += len(texts[None])
        changed += len(set(texts[None]) ^ set(texts["en"])) // 2
        print(
            f"{i + 1}/{len(paths)} {path.name}: recognition {rows[None][1][-1]:.2f} -> {rows['en'][1][-1]:.2f} s, "
            f"page {rows[None][0][-1]:.2f} -> {rows['en'][0][-1]:.2f} s",
            flush=True,
        )
    med = statistics.median
    ratio_rec = med(b / a for a, b in zip(rows[None][1], rows["en"][1], strict=True))
    ratio_page = med(b / a for a, b in zip(rows[None][0], rows["en"][0], strict=True))
    line = (
        f"{datetime.date.today().isoformat()}, {len(paths)} cib pages, interleaved, load average {load:.1f} "
        f"on {os.cpu_count()} cores: recognition median {med(rows[None][1]):.2f} s (full) -> "
        f"{med(rows['en'][1]):.2f} s (Latin head), per-page ratio {ratio_rec:.2f}; whole page "
        f"{med(rows[None][0]):.2f} -> {med(rows['en'][0]):.2f} s, ratio {ratio_page:.2f}; "
        f"about {changed} of {total} lines read differently"
    )
    print(line)
    if args.write:
        write_between_marks(MARK, line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
