"""The hand-checked cib speaker set: its form always, the pipeline's names when the data is here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from panelvox.analysis.cache import PageAnalyzer
from panelvox.eval.dataset_book import dataset_pages
from panelvox.eval.loaders import load_dataset

GOLDEN = Path(__file__).with_name("speakers_cib.json")
REPO = Path(__file__).resolve().parents[2]


def _golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_golden_set_is_well_formed() -> None:
    data = _golden()
    assert data["format"] == "panelvox.golden.speakers/1"
    assert "never the benchmark's narration prose" in data["source"]
    for page in data["pages"]:
        names = set(page["names"])
        assert page["lines"]
        for line in page["lines"]:
            assert line["text"].strip() and line["text"] == line["text"].upper()
            assert line["speaker"] is None or line["speaker"] == "narrator" or line["speaker"] in names


@pytest.mark.slow
def test_dome_of_death_speaker_labels(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch, golden_analyzer: PageAnalyzer
) -> None:
    """Regression floor for the measured numbers in docs/benchmarks.md (not a goal)."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    from bench_speakers import golden_scores, label_correct

    gp = _golden()["pages"][0]
    page = next(p for p in load_dataset("cib").pages if p.page_id == gp["page"])
    with dataset_pages(page.page_id, [page], golden_analyzer) as pages:
        analysis = pages.read(1)
    scores = golden_scores(gp, analysis)
    assert sum(label is not None for _, label in scores) >= 14  # the quoted strings are found as blocks
    correct = sum(label_correct(t, label, gp["names"]) for t, label in scores)
    assert correct >= 4, scores
