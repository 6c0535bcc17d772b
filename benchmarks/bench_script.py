#!/usr/bin/env python3
"""CPU time of "who says it" per page: the characters and speakers stages and the names pass.

On the 67 cib pages of ../shared/data (the earlier stages are cached under
$XDG_CACHE_HOME/panelvox/train by scripts/train_speaker_model.py's own cache and not timed),
each story read in page order as `panelvox eval --stage script` reads it. Prints the
median, p90 and mean CPU seconds per page (process time, so other jobs on the machine do not
count); `--write` puts them in docs/benchmarks.md's section for issue 16.

    .venv/bin/python benchmarks/bench_script.py [--write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from doc_marks import write_between_marks  # noqa: E402

from panelvox import paths  # noqa: E402
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.characters_stage import CharactersStage  # noqa: E402
from panelvox.analysis.lettering import WordList  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.analysis.speakers_stage import SpeakersStage  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.names.book_names import BookNames  # noqa: E402
from panelvox.names.stores import NameStore  # noqa: E402

MARK = "<!-- bench_script -->"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    pages = [p for p in load_dataset("cib").pages if p.script is not None]
    before = tuple(s for s in default_stages() if s.name not in ("characters", "speakers"))
    prefix = PageAnalyzer(before, AnalysisCache(paths.cache_dir() / "train", pipeline_fingerprint(before)))
    characters, speakers, words = CharactersStage(), SpeakersStage(), WordList.load()
    seconds: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for story, story_pages in books_of(pages):
            book = DatasetBook(story, story_pages)
            names = BookNames(
                book.content_hash, (), NameStore(Path(tmp) / f"{len(seconds)}.json"), words=words
            )
            for number, page in enumerate(story_pages, 1):
                analysis = prefix.analyze_page(book, number, page.direction)
                image = book.load_page_array(number - 1)
                start = time.process_time()
                named = names.apply(speakers(image, characters(image, analysis)), lambda image=image: image)
                seconds.append(time.process_time() - start)
                assert named.page == number
    seconds.sort()
    p90 = seconds[int(0.9 * (len(seconds) - 1))]
    line = (
        f"characters + speakers + names, CPU seconds per page over {len(seconds)} cib pages: "
        f"median {statistics.median(seconds):.3f}, p90 {p90:.3f}, mean {statistics.mean(seconds):.3f} "
        "(goal ≤ 0.5)"
    )
    print(line)
    if args.write:
        write_between_marks(MARK, line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
