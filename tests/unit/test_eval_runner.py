"""The runner end to end with injected test stages: oracle predictions score 1, perturbed ones less.

The stages below are test doubles that read the ground truth; they check the runner and the
metrics wiring, not any detector.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from PIL import Image

from panelvox.eval.aggregate import NOT_ANNOTATED, NOT_IMPLEMENTED
from panelvox.eval.command import run_command
from panelvox.eval.ground_truth import Dataset
from panelvox.eval.loaders import load_dataset
from panelvox.eval.report import format_table
from panelvox.eval.runner import EvalStage, run_eval
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    SpeakerLink,
    SpeakerReason,
    TextLine,
)
from panelvox.model import Image as PageImage


def _dataset(tmp_path: Path) -> Dataset:
    pages = []
    for k in range(3):
        name = f"img/p{k}.png"
        (tmp_path / "img").mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (200, 300), "white").save(tmp_path / name)
        pages.append(
            {
                "id": f"p{k}",
                "image": name,
                "direction": "ltr",
                "panels": [
                    {"id": "a", "bbox": [0, 0, 100, 150]},
                    {"id": "b", "bbox": [100, 0, 200, 150]},
                    {"id": "c", "bbox": [0, 150, 200, 300]},
                ],
                "balloons": [
                    {
                        "id": "b1",
                        "bbox": [10, 10, 60, 40],
                        "kind": "speech",
                        "text": "HELLO THERE",
                        "speaker": "ann",
                    },
                    {
                        "id": "b2",
                        "bbox": [110, 10, 170, 40],
                        "kind": "speech",
                        "text": "WHO ARE YOU",
                        "speaker": "bob",
                    },
                    {"id": "b3", "bbox": [10, 160, 120, 190], "kind": "caption", "text": "LATER THAT DAY"},
                ],
                "characters": [
                    {"id": "c1", "bbox": [20, 60, 80, 150], "identity": "ann", "name": "Ann"},
                    {"id": "c2", "bbox": [120, 60, 180, 150], "identity": "bob", "name": "Bob"},
                ],
                "dialogue": ["HELLO THERE", "WHO ARE YOU", "LATER THAT DAY"],
            }
        )
    path = tmp_path / "gt.json"
    path.write_text(json.dumps({"schema": "panelvox.gt/1", "name": "tiny", "pages": pages}), encoding="utf-8")
    return load_dataset(path)


@dataclass(frozen=True)
class OracleStage:
    """Returns the ground truth of page N (the runner numbers pages from 1), optionally spoiled."""

    name: str
    dataset: Dataset
    shift: float = 0.0  # moves every box right by this many pixels
    reverse: bool = False  # reverses the reading order
    garble: bool = False  # breaks every text

    def __call__(self, image: PageImage, analysis: PageAnalysis) -> PageAnalysis:
        gt = self.dataset.pages[analysis.page - 1]

        def box(b: BBox) -> BBox:
            return BBox(b.x0 + self.shift, b.y0, b.x1 + self.shift, b.y1)

        def order(k: int, n: int) -> int:
            return n - k if self.reverse else k + 1

        def text(t: str | None) -> str:
            return "XQZ" if self.garble else (t or "")

        stage = f"{self.name}:oracle"
        if self.name == "panels":
            return replace(
                analysis,
                panels=tuple(
                    Panel(id=p.id, bbox=box(p.bbox), confidence=1.0, stage=stage) for p in gt.panels
                ),
                stages=(*analysis.stages, stage),
            )
        if self.name == "text":
            lines = tuple(
                TextLine(id=f"l{k}", bbox=box(b.bbox), text=text(b.text), confidence=0.9, stage=stage)
                for k, b in enumerate(gt.balloons)
            )
            return replace(analysis, lines=lines, stages=(*analysis.stages, stage))
        if self.name == "balloons":
            blocks = tuple(
                Balloon(
                    id=f"k{k}",
                    kind=b.kind or BalloonKind.SPEECH,
                    bbox=box(b.bbox),
                    text=text(b.text),
                    confidence=0.9,
                    stage=stage,
                    lines=(f"l{k}",),
                )
                for k, b in enumerate(gt.balloons)
            )
            return replace(analysis, blocks=blocks, stages=(*analysis.stages, stage))
        if self.name == "order":
            # sorts whatever it is given by the true order of the item it overlaps most
            def rank(items: list[BBox], b: BBox) -> int:
                return max(range(len(items)), key=lambda k: items[k].iou(b))

            panels = [p.bbox for p in gt.panels]
            units = [t.bbox for t in gt.text_units()]
            n_p, n_b = len(analysis.panels), len(analysis.blocks)
            return replace(
                analysis,
                panels=tuple(replace(p, order=order(rank(panels, p.bbox), n_p)) for p in analysis.panels),
                blocks=tuple(replace(b, order=order(rank(units, b.bbox), n_b)) for b in analysis.blocks),
                stages=(*analysis.stages, stage),
            )
        if self.name == "characters":
            chars = tuple(
                Character(
                    id=c.id, bbox=box(c.bbox), confidence=0.8, stage=stage, name=c.name, cluster=c.identity
                )
                for c in gt.characters
            )
            return replace(analysis, characters=chars, stages=(*analysis.stages, stage))
        if self.name == "speakers":
            by_identity = {c.identity: c.id for c in gt.characters}
            links = tuple(
                SpeakerLink(
                    balloon=f"k{k}",
                    character=None if self.reverse else by_identity.get(b.speaker),
                    confidence=1.0,
                    reason=SpeakerReason.PROXIMITY,
                    stage=stage,
                )
                for k, b in enumerate(gt.balloons)
            )
            return replace(analysis, speakers=links, stages=(*analysis.stages, stage))
        raise AssertionError(self.name)


NAMES = ("panels", "text", "balloons", "order", "characters", "speakers")


def _stages(ds: Dataset, **spoil: object) -> tuple[OracleStage, ...]:
    return tuple(OracleStage(n, ds, **spoil) for n in NAMES)  # type: ignore[arg-type]


def test_oracle_predictions_score_perfectly(tmp_path: Path) -> None:
    ds = _dataset(tmp_path)
    r = run_eval(ds, EvalStage.ALL, stages=_stages(ds))
    m = r.metrics
    assert r.pages == 3
    for name in (
        "panels.P",
        "panels.R",
        "panels.F1",
        "panels.AP50",
        "text.det_Hmean",
        "text.e2e_Hmean",
        "text.1-NED",
        "dialogue.recall",
        "dialogue.ordered_recall",
        "characters.F1",
        "speakers.recall@text",
        "speakers.HDS",
        "characters.AMI",
        "characters.NMI",
        "panels.oracle_order_tau",
        "text.order_tau",
    ):
        assert m[name] == pytest.approx(1.0), name
    for name in ("panels.order_NED", "text.order_NED", "panels.oracle_order_NED", "text.oracle_order_NED"):
        assert m[name] == pytest.approx(0.0), name
    assert m["faces.P"] == NOT_ANNOTATED  # the dataset has no faces


def test_perturbed_predictions_score_lower(tmp_path: Path) -> None:
    ds = _dataset(tmp_path)
    shifted = run_eval(ds, EvalStage.PANELS, stages=_stages(ds, shift=60.0)).metrics
    assert shifted["panels.F1"] < 1.0
    reversed_ = run_eval(ds, EvalStage.ORDER, stages=_stages(ds, reverse=True)).metrics
    assert reversed_["panels.order_NED"] > 0.5 and reversed_["panels.order_tau"] == pytest.approx(-1.0)
    assert reversed_["text.oracle_order_tau"] == pytest.approx(-1.0)
    garbled = run_eval(ds, EvalStage.TEXT, stages=_stages(ds, garble=True)).metrics
    assert garbled["text.det_Hmean"] == pytest.approx(1.0)  # boxes still right
    assert garbled["text.e2e_Hmean"] == 0.0 and garbled["dialogue.recall"] == 0.0
    nobody = run_eval(ds, EvalStage.SPEAKERS, stages=_stages(ds, reverse=True)).metrics
    assert nobody["speakers.recall@text"] == 0.0 and nobody["speakers.HDS"] < 1.0


def test_missing_stages_are_not_implemented_never_zero(tmp_path: Path) -> None:
    ds = _dataset(tmp_path)
    only_panels = tuple(s for s in _stages(ds) if s.name == "panels")
    m = run_eval(ds, EvalStage.ALL, stages=only_panels, limit=2).metrics
    assert m["panels.F1"] == pytest.approx(1.0)
    for name in (
        "text.det_Hmean",
        "panels.order_NED",
        "text.oracle_order_NED",
        "speakers.HDS",
        "dialogue.recall",
    ):
        assert m[name] == NOT_IMPLEMENTED, name
    assert "not implemented" in format_table([run_eval(ds, EvalStage.TEXT, stages=())])


def test_command_writes_metrics_report_and_overlays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = _dataset(tmp_path / "data")
    out = tmp_path / "out"
    assert (
        run_command(str(tmp_path / "data" / "gt.json"), "all", out=out, overlays=True, stages=_stages(ds))
        == 0
    )
    printed = capsys.readouterr().out
    assert "panels.F1" in printed and "pages/second" in printed
    data = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert data["metrics"]["panels.F1"] == 1.0 and len(data["per_page"]) == 3
    assert "| metric | tiny |" in (out / "report.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in (out / "overlays").iterdir()) == ["p0.png", "p1.png", "p2.png"]
