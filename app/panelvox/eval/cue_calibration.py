"""Does the uncertainty cue tell the listener which lines may be wrong? Pure.

Every heard block with a letter or digit is one line the listener hears, said either with a
cue (its words with the uncertainty cue, or its speaker as a guess: "probably Kala") or
plainly. A line is *wrong* when

- its words are wrong: its normalised text (:func:`normalize_text`) is not a run of whole
  words of one golden line or of 2–3 consecutive lines joined (so a balloon split in two
  blocks is right, a misread letter or a block that matches no line is wrong); or
- its speaker is wrong: it is the first block of a golden speech or thought line with a
  sure speaker, and the listener hears a name that does not fit that speaker, or a
  speaker id that the page's one-to-one mapping (the one speaker attribution uses) gives
  to another speaker or to none. "Someone" and no speaker assert nobody: never wrong.

Reported: how often a cued line is wrong (the cue's precision), how often a plain line is
wrong, how many wrong lines carry the cue (its recall), each for the words, the speaker and
both; and the share of lines wrong by recognition confidence, the reliability table from
which the text threshold is chosen.

The order cues are counted the same way, per panel and per page. A panel's *order is
wrong* when the golden lines heard in it (each at its first matched block) are not heard
in the script's order; a panel is checkable when two or more of its blocks are heard and
two or more golden lines are found in it, and it is *cued* when "Order unclear." is said
before its first block. A page's *panel order is wrong* when the golden lines, in the
script's order, go back to a panel heard before (each panel ranked where it is first
heard); checkable with two or more panels holding found lines; cued when "The order of
these panels is unclear." is said.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from panelvox.eval.ground_truth import GoldenScript, ScriptLine
from panelvox.eval.script_metrics import (
    DIALOGUE_KINDS,
    HeardBlock,
    ScriptPageScore,
    name_fits,
    names_by_id,
    normalize_text,
    speaker_mapping,
)

MAX_JOINED = 3
#: upper edges of the confidence bins of the reliability table
BIN_EDGES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.01)


@dataclass(frozen=True, slots=True)
class CueCounts:
    """Lines heard, by cue and by what is wrong with them (a page, or a sum of pages)."""

    lines: int = 0
    text_cued: int = 0
    text_cued_wrong: int = 0
    text_plain_wrong: int = 0
    #: lines said with a speaker the eval can check (first block of a sure GT dialogue line)
    speaker_checked: int = 0
    speaker_cued: int = 0
    speaker_cued_wrong: int = 0
    speaker_plain_wrong: int = 0
    cued: int = 0
    cued_wrong: int = 0
    plain_wrong: int = 0
    #: times "Order unclear." is said on the page, checkable or not
    order_said: int = 0
    #: checkable panels (see the module's docstring), said with "Order unclear." or not
    order_panels: int = 0
    order_cued: int = 0
    order_cued_wrong: int = 0
    order_plain_wrong: int = 0
    #: checkable pages, said with "The order of these panels is unclear." or not
    order_pages: int = 0
    order_pages_cued: int = 0
    order_pages_cued_wrong: int = 0
    order_pages_plain_wrong: int = 0
    #: per bin of :data:`BIN_EDGES`: lines, and lines with wrong words
    bin_lines: tuple[int, ...] = (0,) * len(BIN_EDGES)
    bin_wrong: tuple[int, ...] = (0,) * len(BIN_EDGES)

    def __add__(self, other: CueCounts) -> CueCounts:
        out: dict[str, Any] = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            out[f.name] = tuple(x + y for x, y in zip(a, b, strict=True)) if isinstance(a, tuple) else a + b
        return CueCounts(**out)


def _ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


def _words_right(block: str, lines: Sequence[str]) -> bool:
    padded = f" {block} "
    for k in range(len(lines)):
        for size in range(1, MAX_JOINED + 1):
            if k + size <= len(lines) and padded in f" {' '.join(lines[k : k + size])} ":
                return True
    return False


def _bin(confidence: float) -> int:
    return next((i for i, edge in enumerate(BIN_EDGES) if confidence < edge), len(BIN_EDGES) - 1)


def panel_order_wrong(
    script: GoldenScript, heard: Sequence[HeardBlock], score: ScriptPageScore
) -> dict[str, bool]:
    """Panel id -> whether its golden lines are heard out of the script's order, for each
    checkable panel (two or more heard blocks, two or more golden lines found in it)."""
    heard_in: dict[str, int] = {}
    for block in heard:
        if block.panel is not None and normalize_text(block.text):
            heard_in[block.panel] = heard_in.get(block.panel, 0) + 1
    seen: dict[str, list[int]] = {}
    for pos in score.positions:
        if pos is not None and (panel := heard[pos].panel) is not None:
            seen.setdefault(panel, []).append(pos)
    return {
        panel: any(b < a for a, b in itertools.pairwise(found))
        for panel, found in seen.items()
        if len(found) > 1 and heard_in.get(panel, 0) > 1
    }


def page_order_wrong(heard: Sequence[HeardBlock], score: ScriptPageScore) -> bool | None:
    """Whether the golden lines go back to a panel heard before; None when fewer than two
    panels hold found lines (nothing to check)."""
    rank: dict[str, int] = {}
    for block in heard:
        if block.panel is not None:
            rank.setdefault(block.panel, len(rank))
    ranks = [rank[p] for pos in score.positions if pos is not None and (p := heard[pos].panel) is not None]
    if len(set(ranks)) < 2:
        return None
    return any(b < a for a, b in itertools.pairwise(ranks))


def score_cues(
    script: GoldenScript,
    heard: Sequence[HeardBlock],
    score: ScriptPageScore,
    *,
    panels_cued: bool = False,
) -> CueCounts:
    """Cue counts of one page; ``score`` is the page's :func:`score_script_page` result;
    ``panels_cued``: the page is said with "The order of these panels is unclear."."""
    lines = [line for line in script.lines if normalize_text(line.text)]
    texts = [normalize_text(line.text) for line in lines]
    first_line: dict[int, ScriptLine] = {}
    for line, pos in zip(lines, score.positions, strict=True):
        if pos is not None:
            first_line.setdefault(pos, line)
    dialogue = [
        (line.speaker, heard[pos].speaker)
        for line, pos in zip(lines, score.positions, strict=True)
        if pos is not None and line.kind in DIALOGUE_KINDS and line.speaker_sure and line.speaker is not None
    ]
    mapping = speaker_mapping(script, dialogue, names_by_id(heard))
    counts: dict[str, int] = {f.name: 0 for f in fields(CueCounts) if f.type == "int"}
    bin_lines, bin_wrong = [0] * len(BIN_EDGES), [0] * len(BIN_EDGES)
    for i, block in enumerate(heard):
        text = normalize_text(block.text)
        if not text:
            continue
        counts["lines"] += 1
        words_wrong = not _words_right(text, texts)
        b = _bin(block.confidence)
        bin_lines[b] += 1
        bin_wrong[b] += words_wrong
        counts["text_cued"] += block.unsure
        counts["text_cued_wrong"] += block.unsure and words_wrong
        counts["text_plain_wrong"] += not block.unsure and words_wrong
        said = first_line.get(i)
        speaker_wrong = False
        if (
            said is not None
            and said.kind in DIALOGUE_KINDS
            and said.speaker_sure
            and said.speaker is not None
            and (block.speaker is not None or block.name is not None)
        ):
            named_wrong = block.name is not None and not name_fits(script, block.name, said.speaker)
            id_wrong = block.speaker is not None and mapping.get(block.speaker) != said.speaker
            speaker_wrong = named_wrong or id_wrong
            counts["speaker_checked"] += 1
            counts["speaker_cued"] += block.guess
            counts["speaker_cued_wrong"] += block.guess and speaker_wrong
            counts["speaker_plain_wrong"] += not block.guess and speaker_wrong
        cued = block.unsure or block.guess
        wrong = words_wrong or speaker_wrong
        counts["cued"] += cued
        counts["cued_wrong"] += cued and wrong
        counts["plain_wrong"] += not cued and wrong
    counts["order_said"] = sum(b.order_cued for b in heard)
    cued_panels = {b.panel for b in heard if b.order_cued and b.panel is not None}
    for panel, wrong in panel_order_wrong(script, heard, score).items():
        cued = panel in cued_panels
        counts["order_panels"] += 1
        counts["order_cued"] += cued
        counts["order_cued_wrong"] += cued and wrong
        counts["order_plain_wrong"] += not cued and wrong
    page_wrong = page_order_wrong(heard, score)
    if page_wrong is not None:
        counts["order_pages"] += 1
        counts["order_pages_cued"] += panels_cued
        counts["order_pages_cued_wrong"] += panels_cued and page_wrong
        counts["order_pages_plain_wrong"] += not panels_cued and page_wrong
    return CueCounts(**counts, bin_lines=tuple(bin_lines), bin_wrong=tuple(bin_wrong))


def cue_metrics(counts: Iterable[CueCounts]) -> dict[str, float | int]:
    """The dataset's cue rates (ratios of sums; NaN where nothing was counted)."""
    t = sum(counts, CueCounts())
    return {
        "cue.lines": t.lines,
        "cue.cued_share": _ratio(t.cued, t.lines),
        "cue.cued_wrong": _ratio(t.cued_wrong, t.cued),
        "cue.plain_wrong": _ratio(t.plain_wrong, t.lines - t.cued),
        "cue.wrong_cued": _ratio(t.cued_wrong, t.cued_wrong + t.plain_wrong),
        "cue.text_cued_share": _ratio(t.text_cued, t.lines),
        "cue.text_cued_wrong": _ratio(t.text_cued_wrong, t.text_cued),
        "cue.text_plain_wrong": _ratio(t.text_plain_wrong, t.lines - t.text_cued),
        "cue.speaker_cued_wrong": _ratio(t.speaker_cued_wrong, t.speaker_cued),
        "cue.speaker_plain_wrong": _ratio(t.speaker_plain_wrong, t.speaker_checked - t.speaker_cued),
        "cue.order_said": t.order_said,
        "cue.order_panels": t.order_panels,
        "cue.order_cued": t.order_cued,
        "cue.order_cued_wrong": _ratio(t.order_cued_wrong, t.order_cued),
        "cue.order_plain_wrong": _ratio(t.order_plain_wrong, t.order_panels - t.order_cued),
        "cue.order_pages": t.order_pages,
        "cue.order_pages_cued": t.order_pages_cued,
        "cue.order_pages_cued_wrong": _ratio(t.order_pages_cued_wrong, t.order_pages_cued),
        "cue.order_pages_plain_wrong": _ratio(t.order_pages_plain_wrong, t.order_pages - t.order_pages_cued),
    }


def _rate(num: int, den: int) -> str:
    return f"{num / den:.3f} ({num} of {den})" if den else "–"


def format_cue_report(counts: Iterable[CueCounts]) -> str:
    """Markdown: the cue's precision and what plain lines hide; then the reliability table."""
    t = sum(counts, CueCounts())
    wrong = t.cued_wrong + t.plain_wrong
    rows = [
        "| lines heard | said with a cue | cued and wrong | plain and wrong | wrong lines that had the cue |",
        "|---|---:|---:|---:|---:|",
        f"| all ({t.lines}) | {_rate(t.cued, t.lines)} | {_rate(t.cued_wrong, t.cued)} "
        f"| {_rate(t.plain_wrong, t.lines - t.cued)} | {_rate(t.cued_wrong, wrong)} |",
        f"| words | {_rate(t.text_cued, t.lines)} | {_rate(t.text_cued_wrong, t.text_cued)} "
        f"| {_rate(t.text_plain_wrong, t.lines - t.text_cued)} "
        f"| {_rate(t.text_cued_wrong, t.text_cued_wrong + t.text_plain_wrong)} |",
        f"| speaker ({t.speaker_checked} checkable) | {_rate(t.speaker_cued, t.speaker_checked)} "
        f"| {_rate(t.speaker_cued_wrong, t.speaker_cued)} "
        f"| {_rate(t.speaker_plain_wrong, t.speaker_checked - t.speaker_cued)} "
        f"| {_rate(t.speaker_cued_wrong, t.speaker_cued_wrong + t.speaker_plain_wrong)} |",
        "",
        "| order (checkable) | said with a cue | cued and wrong | plain and wrong | wrong ones that had the cue |",
        "|---|---:|---:|---:|---:|",
        f'| a panel\'s balloons, "Order unclear." ({t.order_panels}) | {_rate(t.order_cued, t.order_panels)} '
        f"| {_rate(t.order_cued_wrong, t.order_cued)} "
        f"| {_rate(t.order_plain_wrong, t.order_panels - t.order_cued)} "
        f"| {_rate(t.order_cued_wrong, t.order_cued_wrong + t.order_plain_wrong)} |",
        f'| a page\'s panels, "The order of these panels is unclear." ({t.order_pages}) '
        f"| {_rate(t.order_pages_cued, t.order_pages)} "
        f"| {_rate(t.order_pages_cued_wrong, t.order_pages_cued)} "
        f"| {_rate(t.order_pages_plain_wrong, t.order_pages - t.order_pages_cued)} "
        f"| {_rate(t.order_pages_cued_wrong, t.order_pages_cued_wrong + t.order_pages_plain_wrong)} |",
        "",
        f'"Order unclear." said {t.order_said} times in all (checkable panels or not).',
        "",
        "| recognition confidence (least sure line) | lines | words wrong |",
        "|---|---:|---:|",
    ]
    low = 0.0
    for edge, n, w in zip(BIN_EDGES, t.bin_lines, t.bin_wrong, strict=True):
        rows.append(f"| {low:.2f}–{min(edge, 1.0):.2f} | {n} | {_rate(w, n)} |")
        low = edge
    return "\n".join(rows) + "\n"
