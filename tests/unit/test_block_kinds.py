"""The block kind model's facts and its numpy side (scripts/block_kind_features.py, issue 30)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.model import Balloon, BalloonKind, BBox, Panel, Point, Tail, TextLine

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "block_kind_features.py"
_spec = importlib.util.spec_from_file_location("block_kind_features", SCRIPT)
assert _spec is not None and _spec.loader is not None
kinds = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = kinds  # dataclasses look their module up
_spec.loader.exec_module(kinds)
CLASSES, FEATURES, BlockKindModel, PageFacts = (
    kinds.CLASSES,
    kinds.FEATURES,
    kinds.BlockKindModel,
    kinds.PageFacts,
)

WORDS = WordList.load()
LEXICON = LetteringLexicon(WORDS)
PAGE = PageFacts(
    typical=20.0,
    width=1000.0,
    height=1400.0,
    largest=80.0,
    blocks=3,
    foreign=frozenset(),
    crossed=frozenset(),
)
PANELS = {"p1": Panel("p1", BBox(0, 0, 1000, 700), 1.0, "test")}


def facts(block: Balloon, lines: list[TextLine]) -> dict[str, float]:
    row = kinds.block_features(block, {ln.id: ln for ln in lines}, PAGE, PANELS, WORDS, LEXICON)
    assert len(row) == len(FEATURES)
    return dict(zip(FEATURES, row, strict=True))


def test_a_large_free_sound_and_a_traced_balloon_are_told_apart_by_their_facts() -> None:
    bang = TextLine("t1", BBox(100, 300, 420, 380), "BANGG!", 0.93, "test")
    sound = facts(
        Balloon("b1", BalloonKind.SFX, bang.bbox, "BANGG!", 0.9, "test", lines=("t1",), panel="p1"), [bang]
    )
    rows = [
        TextLine(f"t{k}", BBox(500, 100 + 25 * k, 800, 120 + 25 * k), "WHERE DID YOU GO?", 0.97, "test")
        for k in (2, 3)
    ]
    balloon = Balloon(
        "b2",
        BalloonKind.SPEECH,
        BBox(480, 80, 820, 200),
        "WHERE DID YOU GO? WHERE DID YOU GO?",
        0.9,
        "test",
        lines=("t2", "t3"),
        polygon=(Point(480, 80), Point(820, 80), Point(650, 200)),
        tail=Tail(Point(600, 260), 90.0, 0.8),
        panel="p1",
    )
    speech = facts(balloon, rows)
    assert sound["sounds"] == 1.0 and sound["cry"] == 1.0 and sound["traced"] == 0.0
    assert sound["size_of_largest"] == 1.0 and sound["largest"] == 1.0
    assert speech["traced"] == speech["tail"] == 1.0 and speech["question"] == 1.0
    assert speech["address"] == 1.0 and speech["words_known"] == 1.0
    assert sound["size_log"] > 1.0 > abs(speech["size_log"])


def test_narration_is_seen_in_its_words() -> None:
    ln = TextLine("t1", BBox(20, 10, 600, 30), "LATER THAT NIGHT, THE BOYS RETURNED.", 0.95, "test")
    f = facts(
        Balloon("b1", BalloonKind.CAPTION, ln.bbox, ln.text, 0.9, "test", lines=("t1",), panel="p1"), [ln]
    )
    assert f["opens_narration"] == 1.0 and f["past_tense"] == 1.0 and f["full_stop"] == 1.0
    assert f["panel_edge_gap"] == pytest.approx(0.5)


def test_the_model_gives_probabilities_and_keeps_its_features_in_its_data() -> None:
    rng = np.random.default_rng(0)
    k, n = len(CLASSES), len(FEATURES)
    model = BlockKindModel(
        CLASSES, rng.normal(size=n), np.ones(n), rng.normal(size=(k, n)), rng.normal(size=k)
    )
    x = rng.normal(size=(5, n))
    p = model.probabilities(x)
    assert p.shape == (5, k) and np.allclose(p.sum(axis=1), 1.0)
    again = BlockKindModel.from_json(model.to_json())
    assert np.allclose(again.probabilities(x), p, atol=1e-4)
    data = model.to_json()
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError):
        BlockKindModel.from_json(data)


def _training_script():  # type: ignore[no-untyped-def]
    """scripts/train_block_kinds.py (it needs scikit-learn, a development dependency)."""
    pytest.importorskip("sklearn")
    path = SCRIPT.parent / "train_block_kinds.py"
    spec = importlib.util.spec_from_file_location("train_block_kinds", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_hybrid_lets_the_passing_rules_decide_where_they_fire() -> None:
    train = _training_script()
    lines = [
        TextLine("t1", BBox(100, 300, 420, 340), "BANG! CRASH!", 0.95, "test"),
        TextLine("t2", BBox(20, 10, 600, 30), "LATER THAT NIGHT, THE BOYS RETURNED.", 0.95, "test"),
        TextLine("t3", BBox(500, 100, 800, 120), "WHERE DID YOU GO?", 0.97, "test"),
        TextLine("t4", BBox(480, 1380, 500, 1395), "12", 0.95, "test"),
    ]
    free = [
        Balloon(f"b{i}", BalloonKind.SPEECH, ln.bbox, ln.text, 0.9, "test", lines=(ln.id,), panel="p1")
        for i, ln in enumerate(lines[:2], 1)
    ]
    traced = Balloon(
        "b3",
        BalloonKind.SPEECH,
        BBox(480, 80, 820, 200),
        lines[2].text,
        0.9,
        "test",
        lines=("t3",),
        polygon=(Point(480, 80), Point(820, 80), Point(650, 200)),
        panel="p1",
    )
    number = Balloon("b4", BalloonKind.OTHER, lines[3].bbox, "12", 0.9, "test", lines=("t4",))
    blocks = [*free, traced, number]
    call = train.RolesCall(tuple(blocks), tuple(lines), 1400.0, WORDS, LEXICON, "en", tuple(PANELS.values()))
    said = train.rules_say(call, blocks, PAGE)
    assert said == ["sfx", "caption", None, "junk"]
    x = train.with_rule_features(np.zeros((4, len(FEATURES))), said)
    assert x.shape == (4, len(FEATURES) + len(train.RULE_OUTCOMES))
    assert x[:, len(FEATURES) :].sum(axis=1).tolist() == [1.0, 1.0, 0.0, 1.0]
    # a model that says "junk" of everything is overruled only where a rule fired
    n, k = len(FEATURES), len(CLASSES)
    intercept = np.where(np.asarray(CLASSES) == "junk", 5.0, 0.0)
    model = BlockKindModel(CLASSES, np.zeros(n), np.ones(n), np.zeros((k, n)), intercept)
    assert train.classes_of(model, np.zeros((4, n)), 0.0, said) == ["sfx", "caption", "junk", "junk"]
    assert train.classes_of(model, np.zeros((4, n)), 0.0) == ["junk"] * 4
