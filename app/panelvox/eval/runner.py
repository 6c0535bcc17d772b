"""``panelvox eval``: run the pipeline over a dataset and measure it.

The pipeline is built once (``default_stages()``, or the ``stages`` a caller injects,
which is how tests run the runner with an oracle stage); each book of the dataset is read
through the page service, page by page in order (:mod:`panelvox.eval.dataset_book`), so what
is scored is what the listener gets, the book's names included
(:mod:`panelvox.eval.page_scoring`).
A metric whose pipeline stage does not exist is reported as ``"not implemented"``; one
the dataset has no annotation for as ``"n/a"``; never as zero.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from panelvox.analysis.cache import PageAnalyzer, PageImages
from panelvox.analysis.lettering_direction import LetteringDirection
from panelvox.analysis.pipeline import Stage, default_stages, empty_analysis
from panelvox.analysis.text_stage import TextStage
from panelvox.eval.aggregate import NOT_ANNOTATED, NOT_IMPLEMENTED, MetricValue, aggregate, group_metric_names
from panelvox.eval.dataset_book import books_of, dataset_pages
from panelvox.eval.ground_truth import Dataset, GTPage
from panelvox.eval.page_scoring import (
    GROUP_FACTS,
    Group,
    PageRecord,
    oracle_order,
    required_stages,
    score_page,
)
from panelvox.model import Image, PageAnalysis, ReadingDirection
from panelvox.names.book_persons import PersonModel
from panelvox.pages import PageSource

log = logging.getLogger(__name__)


class EvalStage(Enum):
    """What ``panelvox eval --stage`` measures."""

    PANELS = "panels"
    TEXT = "text"
    ORDER = "order"
    SPEAKERS = "speakers"
    SCRIPT = "script"  # what the listener hears, against the golden scripts
    ALL = "all"


STAGE_GROUPS: Mapping[EvalStage, frozenset[Group]] = {
    EvalStage.PANELS: frozenset({Group.PANELS}),
    EvalStage.TEXT: frozenset({Group.TEXT, Group.DIALOGUE}),
    EvalStage.ORDER: frozenset(
        {Group.PANEL_ORDER, Group.PANEL_ORDER_ORACLE, Group.TEXT_ORDER, Group.TEXT_ORDER_ORACLE}
    ),
    EvalStage.SPEAKERS: frozenset({Group.CHARACTERS, Group.FACES, Group.SPEAKERS, Group.IDENTITY}),
    EvalStage.SCRIPT: frozenset({Group.SCRIPT}),
    EvalStage.ALL: frozenset(Group),
}

#: pipeline stages worth running for each choice (None: all of them)
PIPELINE_NEEDS: Mapping[EvalStage, frozenset[str] | None] = {
    EvalStage.PANELS: frozenset({"panels"}),
    EvalStage.TEXT: frozenset({"panels", "text", "balloons"}),
    EvalStage.ORDER: frozenset({"panels", "text", "balloons", "order"}),
    EvalStage.SPEAKERS: None,
    EvalStage.SCRIPT: None,
    EvalStage.ALL: None,
}

#: groups computed without running the pipeline on the page
_NO_PREDICTION = frozenset({Group.PANEL_ORDER_ORACLE, Group.TEXT_ORDER_ORACLE, Group.NARRATION})

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class DatasetResult:
    dataset: str
    stage: EvalStage
    pages: int
    seconds: float  # wall time of decoding + analysing the pages
    stages_available: tuple[str, ...]
    metrics: Mapping[str, MetricValue]
    records: tuple[PageRecord, ...]

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else float("nan")


def select_stages(stages: Sequence[Stage], stage: EvalStage) -> tuple[Stage, ...]:
    needs = PIPELINE_NEEDS[stage]
    return tuple(s for s in stages if needs is None or s.name in needs)


def _narration_for(narrations: Path | None, page: GTPage) -> str | None:
    if narrations is None:
        return None
    path = narrations / f"{page.page_id}.txt"
    return path.read_text(encoding="utf-8") if path.is_file() else None


class _Memo:
    """One book's page analyses, each made once."""

    def __init__(self, analyzer: PageSource) -> None:
        self.analyzer = analyzer
        self.pages: dict[tuple[int, ReadingDirection], PageAnalysis] = {}

    def analyze_page(self, book: PageImages, page: int, direction: ReadingDirection) -> PageAnalysis:
        key = (page, direction)
        if key not in self.pages:
            self.pages[key] = self.analyzer.analyze_page(book, page, direction)
        return self.pages[key]


def run_eval(  # noqa: C901 (over the budget before it existed: split when next changed)
    dataset: Dataset,
    stage: EvalStage = EvalStage.ALL,
    *,
    stages: Sequence[Stage] | None = None,
    limit: int | None = None,
    narrations: Path | None = None,
    progress: Progress | None = None,
    on_page: Callable[[GTPage, Image, PageAnalysis], None] | None = None,
    analyzer: PageSource | None = None,
    person_model: PersonModel | None = None,
) -> DatasetResult:
    """Measure ``dataset``; ``stages`` replaces ``default_stages()`` (built once).

    ``analyzer`` analyses the pages instead of the stages themselves (the stages still say
    which metrics can be scored): how the speaker model's training measures each held-out
    story with a model that never saw it, on cached earlier stages; ``person_model`` groups
    a story's persons instead of the shipped one.
    """
    pipeline = select_stages(default_stages() if stages is None else stages, stage)
    available = frozenset(s.name for s in pipeline)
    order_stage = next((s for s in pipeline if s.name == "order"), None)
    wanted = STAGE_GROUPS[stage]
    if narrations is None:
        wanted = wanted - {Group.NARRATION}

    def annotated_groups(page: GTPage) -> frozenset[Group]:
        found = frozenset(g for g in wanted if page.has(*GROUP_FACTS[g]))
        if Group.NARRATION in wanted and _narration_for(narrations, page) is not None:
            found |= {Group.NARRATION}
        return found

    def scored_groups(groups: frozenset[Group], page: GTPage) -> frozenset[Group]:
        scored = frozenset(g for g in groups if all(s in available for s in required_stages(g, page)))
        return scored | {Group.NARRATION} if Group.NARRATION in groups else scored

    selected = [(p, annotated_groups(p)) for p in dataset.pages]
    selected = [(p, g) for p, g in selected if g]
    if limit is not None:
        selected = selected[:limit]
    annotated_any: set[Group] = set()
    scored_any: set[Group] = set()
    records = []
    total = 0.0
    groups_of = {p.page_id: g for p, g in selected}
    done = 0
    if analyzer is None:
        analyzer = PageAnalyzer(pipeline, None)  # never the user's cache: every run measures the code
    # a book that does not tell its direction is sampled as a user's would be (never cached)
    text = next((s for s in pipeline if isinstance(s, TextStage)), None)
    lettering = LetteringDirection(None if text is None else lambda: text.engine)
    for name, book_pages in books_of([p for p, _ in selected]):
        memo = _Memo(analyzer)  # each page analysed once, for learning and for reading
        with dataset_pages(name, book_pages, memo, persons=person_model, lettering=lettering) as service:
            if any(scored_groups(groups_of[p.page_id], p) - _NO_PREDICTION for p in book_pages):
                # the listener's reading of a story: its persons and names are those of the whole
                # story (the reader learns the book's pages as it analyses them)
                for number in range(1, len(book_pages) + 1):
                    service.learn(number)
            for number, page in enumerate(book_pages, start=1):
                if progress is not None:
                    progress(done, len(selected), page.page_id)
                done += 1
                groups = groups_of[page.page_id]
                annotated_any |= groups
                scored = scored_groups(groups, page)
                start = time.perf_counter()
                image = service.image(number)
                if scored - _NO_PREDICTION:
                    pred = service.read(number)  # as the listener gets it: the book's names too
                else:  # only oracle metrics here: no need to run the pipeline
                    pred = empty_analysis(image, number, page.direction)
                if on_page is not None:
                    on_page(page, image, pred)
                oracle = None
                if order_stage is not None and scored & {Group.PANEL_ORDER_ORACLE, Group.TEXT_ORDER_ORACLE}:
                    oracle = oracle_order(page, image, order_stage)
                seconds = time.perf_counter() - start
                total += seconds
                scored_any |= scored
                records.append(
                    score_page(
                        page,
                        pred,
                        scored,
                        seconds=seconds,
                        oracle=oracle,
                        narration=_narration_for(narrations, page),
                    )
                )
    if progress is not None:
        progress(len(selected), len(selected), "")
    metrics: dict[str, MetricValue] = {}
    for group in sorted(wanted, key=lambda g: list(Group).index(g)):
        names = group_metric_names(group)
        if group not in annotated_any:
            metrics.update(dict.fromkeys(names, NOT_ANNOTATED))
        elif group not in scored_any:
            metrics.update(dict.fromkeys(names, NOT_IMPLEMENTED))
        else:
            metrics.update(aggregate(group, [r for r in records if group in r.groups]))
    return DatasetResult(
        dataset=dataset.name,
        stage=stage,
        pages=len(records),
        seconds=total,
        stages_available=tuple(s.name for s in pipeline),
        metrics=metrics,
        records=tuple(records),
    )
