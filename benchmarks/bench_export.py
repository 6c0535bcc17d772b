#!/usr/bin/env python3
"""Export benchmark: pages per minute for `panelvox export` of a book, each format, without
and with audio, with an empty analysis cache (what a first export costs) and with the pages
already analysed (a second format, or a book read before). Each run is the real command in
its own process, so start-up counts as a user sees it. Prints the numbers and writes the
"## Export (issue 19)" section of docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_export.py [--book assets/sample.cbz] [--repeat 2] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from doc_marks import replace_section

REPO = Path(__file__).resolve().parent.parent
SECTION = "## Export (issue 19)"
#: (label, format, extra arguments, output name)
RUNS = (
    ("HTML", "html", [], "book.html"),
    ("EPUB 3", "epub", [], "book.epub"),
    ("DiViNa, no audio", "divina", [], "book.divina"),
    ("DiViNa with audio (a file per page, audioref per block)", "divina", ["--audio"], "audio.divina"),
    ("Audiobook (OGG, a chapter per page)", "audiobook", [], "book.ogg"),
)


def export(book: Path, fmt: str, extra: list[str], out: Path, home: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO / "app")}
    for var in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        env[var] = str(home / var.lower())
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "panelvox.cli",
            "export",
            str(book),
            "--format",
            fmt,
            "--out",
            str(out),
            *extra,
        ],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - t0


def page_count(book: Path) -> int:
    sys.path.insert(0, str(REPO / "app"))
    from panelvox.books import open_book

    with open_book(book) as b:
        return b.page_count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--book", type=Path, default=REPO / "assets" / "sample.cbz")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    pages = page_count(args.book)
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="panelvox-bench-") as tmp:
        root = Path(tmp)
        cold = {}
        for label, fmt, extra, name in RUNS[:1] + RUNS[3:4]:  # without and with audio, empty cache
            cold[label] = export(
                args.book, fmt, extra, root / f"cold-{name}", root / f"home-{fmt}{len(extra)}"
            )
            print(f"{label}, empty cache: {cold[label]:.1f} s")
        warm_home = root / "home-html0"  # analysed above
        for label, fmt, extra, name in RUNS:
            times = [export(args.book, fmt, extra, root / name, warm_home) for _ in range(args.repeat)]
            med = statistics.median(times)
            rows.append((label, med, cold.get(label, float("nan"))))
            print(f"{label}, pages analysed: {med:.1f} s ({pages / med * 60:.1f} pages/min)")
    if not args.no_write:
        write_section(args.book, pages, rows, args.repeat)
    return 0


def write_section(book: Path, pages: int, rows: list[tuple[str, float, float]], repeat: int) -> None:
    try:
        name = book.resolve().relative_to(REPO)
    except ValueError:
        name = book
    lines = []
    for label, warm, cold in rows:
        cold_cell = f"{cold:.0f} s, {pages / cold * 60:.1f}" if cold == cold else "—"
        lines.append(f"| {label} | {cold_cell} | {warm:.1f} s, {pages / warm * 60:.1f} |")
    text = f"""{SECTION}

Measured {time.strftime("%Y-%m-%d")} with `benchmarks/bench_export.py` on `{name}` ({pages} pages) on the
2-core Debian 12 CPU, shared with four other jobs while it ran (so every time is inflated;
compare the rows with each other). Each figure is the real `panelvox export` command in its
own process, start-up included; "pages analysed" is the median of {repeat} runs once the
analysis cache holds the book (a second format, or a book already read); the voice is
espeak-ng through pyttsx3.

| Export | empty cache: time, pages per minute | pages analysed: time, pages per minute |
| --- | --- | --- |
{chr(10).join(lines)}

- Without audio, an export of a book not read before is its analysis (about 9 s a page
  here). Once the pages are analysed, a format takes seconds for the book: the program's
  start-up, re-encoding the page pictures and, with audio, the speech (espeak-ng is fast;
  Piper would cost more). The spread between the formats without audio is mostly the load.
"""
    replace_section(SECTION, text)


if __name__ == "__main__":
    sys.exit(main())
