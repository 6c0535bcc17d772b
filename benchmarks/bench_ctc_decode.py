#!/usr/bin/env python3
"""What the word-aware CTC decoding costs per page, against the greedy reading.

Runs the text stage on the sample book's pages and on up to ``--limit`` cib pages of
../shared/data (where present) and times, per page, the decoder's work (process time): the
greedy best path of every line, and the full decoding (greedy, the word test, and the beam
search for the lines with a token that is no word). Prints the medians and the share of lines
searched; `--write` puts them in docs/benchmarks.md's section for issue 17.

    .venv/bin/python benchmarks/bench_ctc_decode.py [--limit N] [--write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from doc_marks import write_between_marks  # noqa: E402

from panelvox.analysis.pipeline import empty_analysis  # noqa: E402
from panelvox.analysis.text_stage import TextStage  # noqa: E402
from panelvox.books.opener import open_book  # noqa: E402
from panelvox.errors import PanelvoxError  # noqa: E402
from panelvox.model import Image, ReadingDirection  # noqa: E402
from panelvox.models.ctc_beam import CtcDecoder, Lexicon, Probs  # noqa: E402

MARK = "<!-- bench_ctc_decode -->"


class TimedDecoder(CtcDecoder):
    """The engine's decoder, timing each line's full and greedy decoding."""

    def __init__(self, inner: CtcDecoder) -> None:
        super().__init__(inner.charset, inner.params)
        self.full = 0.0
        self.greedy_only = 0.0
        self.lines = 0
        self.searched = 0

    def decode(self, probs: Probs, lexicon: Lexicon | None) -> tuple[str, float]:
        t0 = time.process_time()
        self.greedy(probs)
        t1 = time.process_time()
        text, conf = super().decode(probs, lexicon)
        t2 = time.process_time()
        self.greedy_only += t1 - t0
        self.full += t2 - t1
        self.lines += 1
        greedy_text, _ = self.greedy(probs)
        self.searched += bool(lexicon) and self._non_words(greedy_text, lexicon) > 0
        return text, conf


def _images(limit: int) -> list[Image]:
    book = open_book(REPO / "assets" / "sample.cbz")
    out = [book.load_page_array(i) for i in range(book.page_count)]
    try:
        from panelvox.eval.loaders import load_dataset

        pages = load_dataset("cib").pages[:limit]
    except PanelvoxError:
        pages = []
    for p in pages:
        from PIL import Image as PILImage

        out.append(np.asarray(PILImage.open(p.image_path).convert("RGB")))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=20, help="cib pages (besides the sample book)")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    stage = TextStage()
    full_head = stage.engine.head()  # the pages are analysed with no language: the full model
    decoder = TimedDecoder(full_head.decoder)
    stage.engine._heads["full"] = replace(full_head, decoder=decoder)
    full, greedy = [], []
    for image in _images(args.limit):
        f0, g0 = decoder.full, decoder.greedy_only
        stage(image, empty_analysis(image, 1, ReadingDirection.LTR))
        full.append(1000 * (decoder.full - f0))
        greedy.append(1000 * (decoder.greedy_only - g0))
    line = (
        f"CTC decoding over {len(full)} pages ({decoder.lines} lines, {decoder.searched} searched "
        f"with the beam): median {statistics.median(full):.1f} ms per page (max {max(full):.1f}), "
        f"greedy alone {statistics.median(greedy):.1f} ms; CPU process time"
    )
    print(line)
    if args.write:
        write_between_marks(MARK, line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
