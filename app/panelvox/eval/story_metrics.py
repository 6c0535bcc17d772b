"""Who says it across a story: the golden-script speaker metrics a listener meets, per story.

A listener does not hear pages one at a time, so the labels are scored with one mapping per
story (issue "Who says it, across the book"; these are its definitions, so anyone gets the
same numbers). A *story* is the page name without its last two ``_NN`` parts. Over a story's
found dialogue lines with a sure speaker, each line has a predicted *label*: its speaker
character's book ``person``, else the name said, else a per-page id (the page's speaker id).

Story attribution
    Labels are matched one-to-one to golden speakers (Hungarian, maximising agreeing lines);
    a line is right when its label maps to its speaker.
A person's lines under their most common label
    Per story and golden speaker, the lines carrying that speaker's most frequent label,
    summed, over all such lines.
Labels per person on a page
    Distinct predicted labels over distinct golden speakers among a page's found, sure
    dialogue lines, summed over pages (an unlabelled line counts as one label, "someone").

The constant answer (one label for everyone) is scored by the same code.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

#: what a line with no label counts as on its page ("someone")
UNLABELLED = "?"

#: (golden speaker, predicted label) of one found, sure dialogue line
LabelledLine = tuple[str, str | None]


def story_of(page_id: str) -> str:
    """The story of a page: its name without the last two ``_NN`` parts."""
    parts = page_id.split("_")
    return "_".join(parts[:-2]) if len(parts) > 2 else page_id


@dataclass(frozen=True, slots=True)
class StoryCounts:
    """Raw counts of the story metrics over a set of pages."""

    attribution_right: int = 0
    common_label_right: int = 0
    lines: int = 0
    labels_on_pages: int = 0
    persons_on_pages: int = 0

    @property
    def attribution(self) -> float:
        return _ratio(self.attribution_right, self.lines)

    @property
    def common_label(self) -> float:
        return _ratio(self.common_label_right, self.lines)

    @property
    def labels_per_person(self) -> float:
        return _ratio(self.labels_on_pages, self.persons_on_pages)


def _ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


def mapped_right(lines: Sequence[LabelledLine]) -> int:
    """Lines whose label maps to their golden speaker under the best one-to-one mapping."""
    labels = list(dict.fromkeys(p for _g, p in lines if p is not None))
    golds = list(dict.fromkeys(g for g, _p in lines))
    if not labels:
        return 0
    agree = np.zeros((len(labels), len(golds)), np.int64)
    row, col = {p: i for i, p in enumerate(labels)}, {g: j for j, g in enumerate(golds)}
    for g, p in lines:
        if p is not None:
            agree[row[p], col[g]] += 1
    rows, cols = linear_sum_assignment(agree, maximize=True)
    return int(agree[rows, cols].sum())


def common_label_right(lines: Sequence[LabelledLine]) -> int:
    """Per golden speaker, the lines carrying their most frequent label (no label counts as
    a label of its own line: it never gathers a person)."""
    by_speaker: dict[str, Counter[str]] = defaultdict(Counter)
    for g, p in lines:
        if p is not None:
            by_speaker[g][p] += 1
    return sum(max(c.values()) for c in by_speaker.values())


def page_label_counts(lines: Sequence[LabelledLine]) -> tuple[int, int]:
    """(distinct labels, distinct golden speakers) among one page's lines."""
    labels = {p if p is not None else UNLABELLED for _g, p in lines}
    return (len(labels), len({g for g, _p in lines})) if lines else (0, 0)


def story_counts(pages: Iterable[tuple[str, Sequence[LabelledLine]]]) -> StoryCounts:
    """The story metrics' counts of ``(page id, lines)`` pairs (stories told by page id)."""
    stories: dict[str, list[LabelledLine]] = defaultdict(list)
    labels_on = persons_on = 0
    for page_id, lines in pages:
        stories[story_of(page_id)].extend(lines)
        n_labels, n_persons = page_label_counts(lines)
        labels_on += n_labels
        persons_on += n_persons
    return StoryCounts(
        attribution_right=sum(mapped_right(ls) for ls in stories.values()),
        common_label_right=sum(common_label_right(ls) for ls in stories.values()),
        lines=sum(len(ls) for ls in stories.values()),
        labels_on_pages=labels_on,
        persons_on_pages=persons_on,
    )


def constant_lines(lines: Sequence[LabelledLine]) -> list[LabelledLine]:
    """The constant answer's lines: one label for everyone."""
    return [(g, "everyone") for g, _p in lines]


def line_label(page_id: str, person: str | None, name: str | None, speaker: str | None) -> str | None:
    """A line's label across its story: its speaker's person, else the name said, else a
    per-page id (the page's speaker id); None when nobody is said to speak it."""
    if person is not None:
        return person
    if name is not None:
        return f"name:{name}"
    return f"{page_id}:{speaker}" if speaker is not None else None


def story_metrics(pages: Sequence[tuple[str, Sequence[LabelledLine]]]) -> dict[str, float | int]:
    """The story metrics of ``pages`` and of the constant answer (``baseline.``)."""
    out: dict[str, float | int] = {}
    ours = story_counts(pages)
    constant = story_counts((page, constant_lines(lines)) for page, lines in pages)
    for prefix, c in (("", ours), ("baseline.", constant)):
        out |= {
            f"{prefix}story_attribution": c.attribution,
            f"{prefix}common_label": c.common_label,
            f"{prefix}labels_per_person": c.labels_per_person,
            f"{prefix}story_lines": c.lines,
        }
    return out


def story_rows(pages: Sequence[tuple[str, Sequence[LabelledLine]]]) -> list[str]:
    """The story metrics as rows of the script report's summary table."""
    m = story_metrics(pages)

    def rate(v: float) -> str:
        return "–" if v != v else f"{v:.3f}"

    return [
        f"| story attribution | {rate(m['story_attribution'])} | {rate(m['baseline.story_attribution'])} |",
        f"| a person's lines under their most common label | {rate(m['common_label'])} | – |",
        f"| labels per person on a page | {rate(m['labels_per_person'])} | {rate(m['baseline.labels_per_person'])} |",
    ]
