#!/usr/bin/env python3
"""The evidence for each hand rule that decides what a block is (issue 30, item 5): the rule
switched off alone, every golden page is analysed again (panels and text cached as by
scripts/train_block_kinds.py) and scored by the script eval's code; a page where the rule
is on scores better (more lines found, read exactly or of the right kind, fewer junk
blocks) is one where it fires rightly, one where it scores worse is one where it fires
wrongly. cib's pages are those the rules were tuned on; cib-extra's (other pages of the
same stories) are the nearest to "held out" the rules have.

    .venv/bin/python scripts/kind_rules_evidence.py --extra ../shared/data/cib-extra [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from panelvox import paths  # noqa: E402
from panelvox.analysis import balloons_stage, block_roles, free_lettering  # noqa: E402
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import GTPage  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.script_metrics import score_script_page  # noqa: E402

MODEL = REPO / "app" / "panelvox" / "analysis" / "data" / "block_kinds.json"


@dataclass(frozen=True)
class Switch:
    """A rule and how to switch it off: (module, name, what replaces it)."""

    name: str
    where: str
    off: tuple[tuple[Any, str, Any], ...]


def _false(*_a: Any, **_k: Any) -> bool:
    return False


SWITCHES: tuple[Switch, ...] = (
    Switch(
        "not lettering: marks dropped",
        "block_roles.is_not_lettering",
        ((block_roles, "is_not_lettering", _false),),
    ),
    Switch(
        "crossed unsure readings dropped",
        "block_roles.crossed_readings",
        ((block_roles, "crossed_readings", lambda _lines: set()),),
    ),
    Switch(
        "foreign script dropped",
        "block_roles._foreign_languages",
        ((block_roles, "_foreign_languages", lambda *_a, **_k: set()),),
    ),
    Switch(
        "traced caption box (panel's width, past tense)",
        "block_roles._caption_box",
        ((block_roles, "_caption_box", _false),),
    ),
    Switch("title", "block_roles._title_like", ((block_roles, "_title_like", _false),)),
    Switch("title's rival is a sign", "block_roles._outshone", ((block_roles, "_outshone", _false),)),
    Switch(
        "opens narration -> caption",
        "block_roles._opens_narration",
        ((block_roles, "_opens_narration", _false),),
    ),
    Switch(
        "sounds -> sfx, cries -> speech (and a caption's display initial)",
        "block_roles._sound_or_cry",
        ((block_roles, "_sound_or_cry", lambda b, _lexicon, _large=False: b),),
    ),
    Switch(
        "lone '2' in a balloon is '?'",
        "block_roles._lone_question",
        ((block_roles, "_lone_question", lambda b: b),),
    ),
    Switch(
        "pieces given back to their balloon",
        "block_pieces.rejoin_balloons",
        ((block_roles, "rejoin_balloons", lambda blocks, *_a, **_k: list(blocks)),),
    ),
    Switch("slanted lettering is a sign", "free_lettering.slanted", ((free_lettering, "slanted", _false),)),
    Switch(
        "board or slanted outline -> sign",
        "free_lettering.board_kind",
        ((balloons_stage, "board_kind", lambda kind, *_a, **_k: kind),),
    ),
    Switch("sign board's outline", "sign_boards.board_outline", ((balloons_stage, "board_outline", _false),)),
    Switch(
        "untraced speech where captions sit -> caption",
        "balloons_stage._narration",
        ((balloons_stage, "_narration", lambda kind, _lines: kind),),
    ),
    Switch(
        "untraced lettering at a panel's top or bottom",
        "balloons_stage._on_panel_edge",
        ((balloons_stage, "_on_panel_edge", _false),),
    ),
    Switch(
        "lettering on the paper round the panels",
        "balloons_stage._spans_page",
        ((balloons_stage, "_spans_page", _false),),
    ),
)


@contextmanager
def switched_off(switch: Switch | None) -> Iterator[None]:
    saved = [(m, n, getattr(m, n)) for m, n, _f in (switch.off if switch else ())]
    try:
        for m, n, f in switch.off if switch else ():
            setattr(m, n, f)
        yield
    finally:
        for m, n, f in saved:
            setattr(m, n, f)


Scores = dict[str, tuple[int, int, int, int, int, int]]  # page -> found, exact, kind, junk, in order, blocks


def score_all(
    pages: Sequence[tuple[str, DatasetBook, int, GTPage]], prefix: PageAnalyzer, tail: Sequence[Any]
) -> Scores:
    out: Scores = {}
    for _story, book, number, page in pages:
        analysis = prefix.analyze_page(book, number, page.direction)
        image = book.load_page_array(number - 1)
        for stage in tail:
            analysis = stage(image, analysis)
        assert page.script is not None
        s = score_script_page(page.script, heard_blocks(analysis))
        out[page.page_id] = (s.found, s.exact, s.kind_right, s.junk, s.in_order, s.blocks)
    return out


def evidence(base: Scores, off: Scores, story_of: Callable[[str], str]) -> dict[str, Any]:
    """Pages (and their stories) where the rule helps (on beats off) and where it hurts."""

    def merit(s: tuple[int, ...]) -> int:
        found, exact, kind, junk, order, _blocks = s
        return found + exact + kind + order - 2 * junk

    helped = [p for p in base if merit(base[p]) > merit(off[p])]
    hurt = [p for p in base if merit(base[p]) < merit(off[p])]
    total = [sum(v[k] for v in base.values()) - sum(v[k] for v in off.values()) for k in range(5)]
    return {
        "pages_helped": len(helped),
        "stories_helped": len({story_of(p) for p in helped}),
        "pages_hurt": len(hurt),
        "gain": dict(zip(("found", "exact", "kind_right", "junk", "in_order"), total, strict=True)),
        "helped": helped,
        "hurt": hurt,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--extra", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    stages = default_stages()
    prefix_stages = tuple(s for s in stages if s.name in ("panels", "text"))
    cache = AnalysisCache(
        paths.cache_dir() / "train-blocks", pipeline_fingerprint(prefix_stages, ignore=(MODEL,))
    )
    prefix = PageAnalyzer(prefix_stages, cache)
    tail = [s for s in stages if s.name in ("balloons", "order")]
    sets = {"cib": [p for p in load_dataset("cib").pages if p.script is not None]}
    if args.extra:
        sets["cib-extra"] = [p for p in load_dataset(args.extra).pages if p.script is not None]
    pages = {
        name: [
            (story, book, n, p)
            for story, group in books_of(ps)
            for book in [DatasetBook(story, group)]
            for n, p in enumerate(group, 1)
        ]
        for name, ps in sets.items()
    }
    story = {p.page_id: s for ps in pages.values() for s, _b, _n, p in ps}
    base = {name: score_all(ps, prefix, tail) for name, ps in pages.items()}
    report: dict[str, Any] = {}
    print(
        "rule | where | cib: pages helped (stories) / hurt, gain found exact kind junk order | cib-extra: the same"
    )
    for switch in SWITCHES:
        with switched_off(switch):
            off = {name: score_all(ps, prefix, tail) for name, ps in pages.items()}
        row = {name: evidence(base[name], off[name], story.__getitem__) for name in pages}
        report[switch.name] = {"where": switch.where, **row}
        cells = []
        for name in pages:
            e = row[name]
            g = e["gain"]
            cells.append(
                f"{e['pages_helped']} ({e['stories_helped']}) / {e['pages_hurt']}, "
                f"{g['found']:+d} {g['exact']:+d} {g['kind_right']:+d} {g['junk']:+d} {g['in_order']:+d}"
            )
        print(f"{switch.name} | {switch.where} | " + " | ".join(cells), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
