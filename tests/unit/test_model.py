from __future__ import annotations

import json

import pytest

from panelvox.errors import SchemaError
from panelvox.model import (
    SCHEMA,
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    Point,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
    Tail,
    TextLine,
    panel_of,
)


def _page() -> PageAnalysis:
    return PageAnalysis(
        page=3,
        width=1200,
        height=1770,
        direction=ReadingDirection.RTL,
        panels=(
            Panel("p1", BBox(10, 10, 600, 800), 0.97, "panels:classical", order=2, order_confidence=0.6),
            Panel(
                "p2",
                BBox(600, 10, 1190, 800),
                0.9,
                "panels:classical",
                polygon=(Point(600, 10), Point(1190, 30), Point(1190, 800), Point(600, 800)),
                order=1,
            ),
        ),
        lines=(TextLine("l1", BBox(700, 50, 900, 80), "ME? WHAT ON AIRTH", 0.88, "text:rapidocr"),),
        blocks=(
            Balloon(
                "b1",
                BalloonKind.SPEECH,
                BBox(690, 40, 910, 120),
                "ME? WHAT ON AIRTH",
                0.9,
                "balloons",
                lines=("l1",),
                tail=Tail(Point(800, 200), 95.0, 0.7),
                panel="p2",
                order=1,
            ),
            Balloon("b2", BalloonKind.SFX, BBox(100, 100, 200, 150), "BLAM", 0.5, "balloons", panel="p1"),
        ),
        characters=(
            Character(
                "c1",
                BBox(700, 300, 900, 790),
                0.6,
                "characters",
                panel="p2",
                name="Steenie",
                name_confidence=0.4,
            ),
        ),
        speakers=(SpeakerLink("b1", "c1", 0.8, SpeakerReason.TAIL, "speakers"),),
        stages=("panels:classical", "text:rapidocr"),
        notices=("Part of this page could not be analysed (characters).",),
    )


def test_json_round_trip_is_lossless() -> None:
    page = _page()
    data = json.loads(json.dumps(page.to_json()))
    assert data["schema"] == SCHEMA
    assert data["blocks"][0]["speaker"] == "c1"
    assert data["blocks"][1]["essential"] is False
    assert PageAnalysis.from_json(data) == page
    # a page saved before names had a certainty reads as sure (the field is new, not a new schema)
    del data["characters"][0]["name_confidence"]
    assert PageAnalysis.from_json(data).characters[0].name_confidence == 1.0


def test_old_or_unknown_schema_is_refused_with_a_plain_message() -> None:
    data = _page().to_json()
    data["schema"] = "panelvox.page/0"
    with pytest.raises(SchemaError) as err:
        PageAnalysis.from_json(data)
    assert "different version" in err.value.message
    assert "panelvox.page/0" in err.value.detail


def test_damaged_json_is_refused() -> None:
    data = _page().to_json()
    del data["width"]
    with pytest.raises(SchemaError, match="damaged"):
        PageAnalysis.from_json(data)


def test_order_helpers_sort_unordered_last() -> None:
    page = _page()
    assert [p.id for p in page.panels_in_order()] == ["p2", "p1"]
    assert [b.id for b in page.blocks_in_order()] == ["b1", "b2"]
    assert [b.id for b in page.blocks_of("p1")] == ["b2"]


def test_bbox_geometry() -> None:
    a, b = BBox(0, 0, 10, 10), BBox(5, 0, 15, 10)
    assert a.intersection(b) == 50
    assert a.iou(b) == pytest.approx(50 / 150)
    assert a.coverage_by(b) == 0.5
    assert a.mirrored(100) == BBox(90, 0, 100, 10)
    with pytest.raises(ValueError):
        BBox(10, 0, 0, 10)


def test_panel_of_is_the_panel_holding_most_of_a_box() -> None:
    left, right = Panel("p1", BBox(0, 0, 100, 100), 1.0, "t"), Panel("p2", BBox(100, 0, 200, 100), 1.0, "t")
    assert panel_of(BBox(60, 10, 120, 20), [left, right]) == "p1"  # 2/3 of it in p1
    assert panel_of(BBox(50, 10, 150, 20), [left, right]) == "p1"  # a tie: the first
    assert panel_of(BBox(80, 10, 300, 20), [left, right]) == "p2"  # 45 % in p2 is enough
    assert panel_of(BBox(95, 10, 500, 20), [left, right]) is None  # 25 % is not
    assert panel_of(BBox(60, 10, 120, 20), [left, right], min_cover=0.7) is None
    assert panel_of(BBox(60, 10, 120, 20), []) is None
