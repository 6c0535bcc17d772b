"""Measure characters, speakers and names on ../shared/data; print the numbers.

    .venv/bin/python benchmarks/bench_speakers.py [--write]

- iabc (2 pages): character detection P/R/F1 at IoU 0.5, speaker Recall@#text and
  identity AMI/NMI with the full default pipeline (``panelvox eval iabc --stage speakers``
  definitions), and the same speaker recall with the ground-truth character boxes given to
  the speakers stage (attribution alone, as CoMix reports its closest-character heuristic);
- cib: name accuracy on the hand-checked set tests/golden/speakers_cib.json;
- speed: seconds per page of the characters + speakers stages (the rest of the pipeline
  is timed by the other benchmarks).

``--write`` replaces the "## Characters and speakers (issue 5)" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from panelvox.analysis.pipeline import analyze_page, default_stages  # noqa: E402
from panelvox.analysis.speakers_stage import SpeakersStage  # noqa: E402
from panelvox.eval.aggregate import aggregate  # noqa: E402
from panelvox.eval.dataset_book import load_page_image  # noqa: E402
from panelvox.eval.ground_truth import GTPage  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.metrics import match_boxes  # noqa: E402
from panelvox.eval.page_scoring import Group, score_page  # noqa: E402
from panelvox.model import Balloon, Character, PageAnalysis  # noqa: E402
from panelvox.names.book_names import BookNames  # noqa: E402
from panelvox.names.stores import NameStore  # noqa: E402
from panelvox.narration.script import speaker_label  # noqa: E402

GOLDEN = REPO / "tests" / "golden" / "speakers_cib.json"
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "## Characters and speakers (issue 5)"
GROUPS = frozenset({Group.CHARACTERS, Group.SPEAKERS, Group.IDENTITY})


def _norm(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", " ", text.upper().replace("’", "'")).strip()


def _golden_blocks(page: dict[str, object], analysis: PageAnalysis) -> list[Balloon | None]:
    """The block that holds each golden line's text, or None where it was not found."""
    blocks = analysis.blocks_in_order()
    out: list[Balloon | None] = []
    for line in page["lines"]:  # type: ignore[attr-defined]
        text = _norm(line["text"])
        best = max(
            blocks, key=lambda b: difflib.SequenceMatcher(None, text, _norm(b.text)).ratio(), default=None
        )
        ok = best is not None and difflib.SequenceMatcher(None, text, _norm(best.text)).ratio() >= 0.6
        out.append(best if ok else None)
    return out


def golden_scores(page: dict[str, object], analysis: PageAnalysis) -> list[tuple[str | None, str | None]]:
    """(true speaker, predicted label) per golden line; predicted None: the text was not found."""
    return [
        (line["speaker"], speaker_label(analysis, analysis.speaker_of(b.id)) if b is not None else None)
        for line, b in zip(page["lines"], _golden_blocks(page, analysis), strict=True)  # type: ignore[call-overload]
    ]


def guessed_names(page: dict[str, object], analysis: PageAnalysis) -> list[bool]:
    """Per golden line: is its speaker's name only a guess (said "probably")?"""
    out = []
    for b in _golden_blocks(page, analysis):
        link = analysis.speaker_of(b.id) if b is not None else None
        char = next((c for c in analysis.characters if link and c.id == link.character), None)
        out.append(bool(char and char.name and char.name_confidence < 0.5))
    return out


def label_correct(true: str | None, label: str | None, names: list[str]) -> bool:
    if label is None:
        return False
    known = {n.casefold() for n in names}
    if true is None:  # an unnamed character: any label that is not a name, narrator or nobody
        return label.casefold() not in known and label != "narrator"
    return label.casefold().split()[0] == true.casefold().split()[0] if label else False


def per_balloon(page: GTPage, pred: PageAnalysis) -> list[str]:
    """One line per speaking ground-truth balloon: found or not, and why attribution failed."""
    bodies = [c for c in pred.characters if c.kind != "face"]
    chars = dict(match_boxes([c.bbox for c in bodies], [c.bbox for c in page.characters]))
    truth_of = {bodies[i].id: page.characters[j] for i, j in chars.items()}
    blocks = {j: i for i, j in match_boxes([b.bbox for b in pred.blocks], [b.bbox for b in page.balloons])}
    out = []
    for k, gb in enumerate(page.balloons):
        if not gb.speaker:
            continue
        head = f"{page.page_id.split('/')[0]} {(gb.text or '')[:34]!r:38} true={gb.speaker.split(':')[-1]}"
        if k not in blocks:
            out.append(f"{head}  MISS  no block matches the balloon at IoU 0.5 (balloons stage)")
            continue
        block = pred.blocks[blocks[k]]
        link = pred.speaker_of(block.id)
        who = link.character if link else None
        got = truth_of.get(who) if who else None
        tail = "tail" if block.tail is not None else "no tail"
        if got is not None and got.identity == gb.speaker:
            out.append(f"{head}  ok    {link.reason.value if link else ''} ({tail})")
        elif who is None:
            out.append(f"{head}  FAIL  no character chosen ({tail})")
        elif got is None:
            out.append(
                f"{head}  FAIL  {who} ({link.reason.value if link else ''}, {tail}) matches no true figure"
            )
        else:
            reason = link.reason.value if link else ""
            out.append(f"{head}  FAIL  {who} ({reason}, {tail}) is {(got.identity or '').split(':')[-1]}")
    return out


def _oracle(page: GTPage, analysis: PageAnalysis) -> PageAnalysis:
    """``analysis`` with the ground-truth character boxes in place of the detected ones."""
    chars = []
    for k, c in enumerate(page.characters, start=1):
        best = max(analysis.panels, key=lambda p: c.bbox.coverage_by(p.bbox), default=None)
        chars.append(Character(f"g{k}", c.bbox, 1.0, "oracle", panel=best.id if best else None))
    return replace(analysis, characters=tuple(chars), speakers=())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument("--per-balloon", action="store_true", help="print each iabc balloon's outcome")
    args = parser.parse_args()
    stages = default_stages()
    upto_order = tuple(s for s in stages if s.name not in ("characters", "speakers"))
    mine = tuple(s for s in stages if s.name in ("characters", "speakers"))
    speakers_only = SpeakersStage()
    timings: list[float] = []
    cpu_timings: list[float] = []  # CPU seconds: what the page costs, whatever else runs

    def run(image, page_no, direction):  # type: ignore[no-untyped-def]
        base = analyze_page(image, page=page_no, direction=direction, stages=upto_order)
        start, cpu = time.perf_counter(), time.process_time()
        out = base
        for stage in mine:
            out = stage(image, out)
        timings.append(time.perf_counter() - start)
        cpu_timings.append(time.process_time() - cpu)
        return base, out

    iabc = load_dataset("iabc")
    records, oracle_records = [], []
    for k, page in enumerate(iabc.pages, start=1):
        image = load_page_image(page)
        base, pred = run(image, k, page.direction)
        records.append(score_page(page, pred, GROUPS, seconds=0.0))
        if args.per_balloon:
            print("\n".join(per_balloon(page, pred)))
        oracle = speakers_only(image, _oracle(page, base))
        oracle_records.append(score_page(page, oracle, frozenset({Group.SPEAKERS}), seconds=0.0))
    metrics = {}
    for g in GROUPS:
        metrics.update(aggregate(g, [r for r in records if g in r.groups]))
    oracle_metrics = aggregate(Group.SPEAKERS, oracle_records)

    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    cib = {p.page_id: p for p in load_dataset("cib").pages}
    pairs: list[tuple[str | None, str | None, list[str]]] = []
    carried: list[tuple[str | None, str | None, list[str]]] = []  # with the story's other pages seen
    guessed: list[bool] = []  # per carried line: its name was said "probably"
    for gp in golden["pages"]:
        page = cib[gp["page"]]
        story, _, number = gp["page"].rpartition("_")
        image = load_page_image(page)
        _, pred = run(image, int(number), page.direction)
        with tempfile.TemporaryDirectory() as tmp:  # the page alone, as the names pass reads it
            pred = BookNames(story, (), NameStore(Path(tmp) / "names.json")).apply(pred)
        pairs += [(t, label, gp["names"]) for t, label in golden_scores(gp, pred)]
        # the story's other pages first: names their text gives are carried here by look
        with tempfile.TemporaryDirectory() as tmp:
            book = BookNames(story, (), NameStore(Path(tmp) / "names.json"))
            for other in sorted(p for p in cib if p.startswith(story + "_") and p != gp["page"]):
                o_image = load_page_image(cib[other])
                _, o_pred = run(o_image, int(other.rpartition("_")[2]), cib[other].direction)
                book.apply(o_pred, lambda im=o_image: im)
            named_pred = book.apply(pred, lambda im=image: im)
        carried += [(t, label, gp["names"]) for t, label in golden_scores(gp, named_pred)]
        guessed += guessed_names(gp, named_pred)

    def acc(sel: list[tuple[str | None, str | None, list[str]]]) -> str:
        good = sum(label_correct(t, lab, n) for t, lab, n in sel)
        return f"{good / len(sel):.3f} ({good}/{len(sel)})" if sel else "n/a"

    named = [p for p in pairs if p[0] not in (None, "narrator")]
    found = sum(1 for p in pairs if p[1] is not None)
    rows = {
        "iabc character P / R / F1 @ IoU 0.5": " / ".join(
            f"{float(metrics[f'characters.{m}']):.3f}" for m in ("P", "R", "F1")
        ),
        "iabc speaker Recall@#text (full pipeline)": f"{float(metrics['speakers.recall@text']):.3f}",
        "iabc speaker Recall@#text (ground-truth character boxes)": f"{float(oracle_metrics['speakers.recall@text']):.3f}",
        "iabc identity AMI / NMI": f"{float(metrics['characters.AMI']):.3f} / {float(metrics['characters.NMI']):.3f}",
        "cib golden: quoted strings found as blocks": f"{found}/{len(pairs)}",
        "cib golden: speaker label accuracy, all lines": acc(pairs),
        "cib golden: name accuracy, lines said by a named character": acc(named),
        "cib golden: name accuracy, named lines, story's other pages seen first (names carried)": acc(
            [p for p in carried if p[0] not in (None, "narrator")]
        ),
        "cib golden: speaker label accuracy, all lines, story's other pages seen first": acc(carried),
        'cib golden: names said as a guess ("probably"), story\'s other pages seen first: wrong / right': (
            _guess_split(carried, guessed)
        ),
        "cib golden: captions given to the narrator": acc([p for p in pairs if p[0] == "narrator"]),
        "characters + speakers, wall s/page on the shared CPU (mean / max)": (
            f"{statistics.mean(timings):.3f} / {max(timings):.3f}"
        ),
        "characters + speakers, CPU s/page (mean / max)": (
            f"{statistics.mean(cpu_timings):.3f} / {max(cpu_timings):.3f}"
        ),
    }
    table = "\n".join(["| Measure | Value |", "| --- | --- |", *(f"| {k} | {v} |" for k, v in rows.items())])
    print(table)
    if args.write:
        _write(table, len(timings))
    return 0


def _guess_split(lines: list[tuple[str | None, str | None, list[str]]], guessed: list[bool]) -> str:
    """Of the lines given a name, how many wrong and how many right names were marked as guesses."""
    named = [
        (label_correct(t, lab, n), g)
        for (t, lab, n), g in zip(lines, guessed, strict=True)
        if lab and lab.casefold() in {x.casefold() for x in n}
    ]
    wrong = [g for ok, g in named if not ok]
    right = [g for ok, g in named if ok]
    return f"{sum(wrong)} of {len(wrong)} / {sum(right)} of {len(right)}"


def _write(table: str, pages: int) -> None:
    text = DOCS.read_text(encoding="utf-8") if DOCS.is_file() else "# Benchmarks\n"
    notes = (REPO / "benchmarks" / "speakers_notes.md").read_text(encoding="utf-8")
    body = (
        f"{SECTION}\n\nMeasured {datetime.date.today().isoformat()} on a 2-core Debian 12 CPU (shared with other jobs) with "
        f"`benchmarks/bench_speakers.py --write` ({pages} pages timed), classical character "
        f"detector (`characters:classical`) and the heuristic speakers stage.\n\n{table}\n\n{notes.strip()}\n"
    )
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + body
    else:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + body + ("\n" + text[end + 1 :] if end >= 0 else "")
    DOCS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
