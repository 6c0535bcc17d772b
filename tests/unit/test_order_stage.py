"""Reading order of panels and blocks on small drawn pages."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from panelvox.analysis.order_stage import OrderStage, order_blocks, order_panels
from panelvox.analysis.panels_stage import ClassicalPanelDetector
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel, ReadingDirection

LTR, RTL, TTB = ReadingDirection.LTR, ReadingDirection.RTL, ReadingDirection.TTB_RTL


def panels(*boxes: tuple[float, float, float, float]) -> list[Panel]:
    return [Panel(f"p{i}", BBox(*b), 1.0, "test") for i, b in enumerate(boxes)]


def reading(ps: list[Panel], direction: ReadingDirection) -> list[str]:
    return [p.id for p in sorted(order_panels(ps, direction), key=lambda p: p.order or 0)]


def test_rows_ltr_and_rtl() -> None:
    ps = panels((0, 0, 100, 100), (110, 0, 200, 100), (0, 110, 200, 200))
    assert reading(ps, LTR) == ["p0", "p1", "p2"]
    assert reading(ps, RTL) == ["p1", "p0", "p2"]


def test_tall_panel_spanning_two_rows_l_shape() -> None:
    # tall panel on the left beside two stacked panels, then a full-width bottom row
    ps = panels((0, 0, 100, 210), (110, 0, 300, 100), (110, 110, 300, 210), (0, 220, 300, 300))
    assert reading(ps, LTR) == ["p0", "p1", "p2", "p3"]
    assert reading(ps, RTL) == ["p1", "p2", "p0", "p3"]


def test_yonkoma_columns_right_first() -> None:
    ps = [
        Panel(f"{c}{r}", BBox(x, r * 100, x + 90, r * 100 + 90), 1.0, "t")
        for c, x in (("L", 0), ("R", 100))
        for r in range(4)
    ]
    assert reading(ps, TTB) == ["R0", "R1", "R2", "R3", "L0", "L1", "L2", "L3"]


def test_inset_follows_its_host() -> None:
    ps = panels((0, 0, 200, 200), (210, 0, 300, 200), (20, 20, 80, 80))
    assert reading(ps, LTR) == ["p0", "p2", "p1"]
    inset = next(p for p in order_panels(ps, LTR) if p.id == "p2")
    assert inset.order_confidence < 1.0


def test_overlap_lowers_confidence_and_clean_gutters_keep_it() -> None:
    clean = order_panels(panels((0, 0, 100, 100), (110, 0, 200, 100)), LTR)
    assert all(p.order_confidence == 1.0 for p in clean)
    # slanted gutter: bounding boxes overlap a little
    slanted = order_panels(panels((0, 0, 120, 100), (100, 0, 200, 100)), LTR)
    assert [p.order for p in slanted] == [1, 2]
    assert all(p.order_confidence < 1.0 for p in slanted)


def test_pinwheel_falls_back_with_low_confidence() -> None:
    ps = panels(
        (0, 0, 200, 100), (200, 0, 300, 200), (100, 200, 300, 300), (0, 100, 100, 300), (100, 100, 200, 200)
    )
    out = order_panels(ps, LTR)
    assert sorted(p.order or 0 for p in out) == [1, 2, 3, 4, 5]
    assert min(p.order_confidence for p in out) <= 0.5


def test_order_of_panels_found_on_a_drawn_page() -> None:
    img = np.full((600, 400, 3), 255, np.uint8)
    cells = {
        "a": (10, 10, 195, 290),
        "b": (205, 10, 390, 140),
        "c": (205, 150, 390, 290),
        "d": (10, 300, 390, 590),
    }
    for x0, y0, x1, y1 in cells.values():
        img[y0:y1, x0:x1] = (80, 120, 200)
    found = ClassicalPanelDetector().detect_panels(img)
    ordered = sorted(order_panels(found, LTR), key=lambda p: p.order or 0)
    names = [min(cells, key=lambda k, p=p: -p.bbox.iou(BBox(*cells[k]))) for p in ordered]
    assert names == ["a", "b", "c", "d"]


def block(i: int, box: tuple[float, float, float, float]) -> Balloon:
    return Balloon(f"b{i}", BalloonKind.SPEECH, BBox(*box), f"text {i}", 0.9, "test")


def test_blocks_assigned_to_panel_holding_most_and_ordered_per_direction() -> None:
    ps = order_panels(panels((0, 0, 100, 100), (110, 0, 200, 100)), RTL)
    blocks = [
        block(0, (10, 10, 40, 30)),  # left panel, left
        block(1, (60, 10, 90, 30)),  # left panel, right
        block(2, (90, 50, 130, 70)),  # crosses the gutter, mostly in the right panel
        block(3, (150, 10, 190, 30)),  # right panel, top right
    ]
    out = {b.id: b for b in order_blocks(blocks, ps, RTL)}
    assert out["b2"].panel == out["b3"].panel == "p1"
    assert out["b0"].panel == out["b1"].panel == "p0"
    assert [b.id for b in sorted(out.values(), key=lambda b: b.order or 0)] == ["b3", "b2", "b1", "b0"]


def test_unassigned_block_goes_between_the_rows_it_sits_between() -> None:
    ps = order_panels(panels((0, 0, 200, 100), (0, 150, 200, 250)), LTR)
    # in the middle of the gutter, touching neither panel
    blocks = [block(0, (10, 160, 50, 180)), block(1, (10, 115, 190, 135)), block(2, (10, 10, 50, 30))]
    out = {b.id: b for b in order_blocks(blocks, ps, LTR)}
    assert out["b1"].panel is None
    assert [out[k].order for k in ("b2", "b1", "b0")] == [1, 2, 3]
    assert out["b1"].order_confidence <= 0.5


def test_stage_is_pure_and_records_itself() -> None:
    img = np.zeros((300, 200, 3), np.uint8)
    a = PageAnalysis(
        page=1, width=200, height=300, direction=LTR, panels=tuple(panels((0, 0, 90, 90), (100, 0, 190, 90)))
    )
    b = OrderStage()(img, a)
    assert all(p.order is None for p in a.panels)
    assert [p.order for p in b.panels] == [1, 2] and b.stages == ("order:xy-cut",)


# -- the RTL mirror property ----------------------------------------------------------------


@st.composite
def layouts(draw: st.DrawFn) -> tuple[list[BBox], float]:
    """A page of rows, each split into columns, some cells split again into stacked panels."""
    width, y = 1000.0, 0.0
    boxes: list[BBox] = []
    for _ in range(draw(st.integers(1, 4))):
        h = float(draw(st.integers(80, 300)))
        cuts = sorted(draw(st.lists(st.integers(100, 900), max_size=3, unique=True)))
        xs = [0.0, *[float(c) for c in cuts if all(abs(c - o) > 60 for o in cuts if o != c)], width]
        for x0, x1 in itertools.pairwise(xs):
            if draw(st.booleans()) and h > 150:
                boxes.append(BBox(x0 + 5, y, x1 - 5, y + h / 2 - 5))
                boxes.append(BBox(x0 + 5, y + h / 2 + 5, x1 - 5, y + h))
            else:
                boxes.append(BBox(x0 + 5, y, x1 - 5, y + h))
        y += h + 10
    return boxes, width


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_rtl_order_of_mirrored_page_equals_ltr_order(layout: tuple[list[BBox], float]) -> None:
    boxes, width = layout
    ltr = order_panels([Panel(f"p{i}", b, 1.0, "t") for i, b in enumerate(boxes)], LTR)
    rtl = order_panels([Panel(f"p{i}", b.mirrored(width), 1.0, "t") for i, b in enumerate(boxes)], RTL)
    assert [p.order for p in ltr] == [p.order for p in rtl]
    assert sorted(p.order or 0 for p in ltr) == list(range(1, len(boxes) + 1))


def ordered_ids(blocks: list[Balloon], ps: list[Panel], direction: ReadingDirection) -> list[str]:
    out = order_blocks(blocks, order_panels(ps, direction), direction)
    return [b.id for b in sorted(out, key=lambda b: b.order or 0)]


def test_overlapping_balloons_on_one_line_read_along_the_line() -> None:
    # two balloons whose boxes overlap both ways (no cut): the right one starts 2 px higher,
    # the left one's middle is on the right one's line and it starts well before it
    ps = panels((0, 0, 400, 300))
    left, right = block(0, (20, 22, 220, 150)), block(1, (150, 20, 380, 120))
    assert ordered_ids([right, left], ps, LTR) == ["b0", "b1"]
    # a lower balloon to the left, its middle still level with the upper one, reads first too
    assert ordered_ids([block(1, (150, 20, 300, 160)), block(0, (110, 110, 210, 190))], ps, LTR) == [
        "b0",
        "b1",
    ]
    # right to left: the mirrored page reads the mirrored way
    mirrored = [block(0, (180, 22, 380, 150)), block(1, (20, 20, 250, 120))]
    assert ordered_ids(mirrored, ps, RTL) == ["b0", "b1"]


def test_stacked_or_lower_balloons_keep_top_first() -> None:
    ps = panels((0, 0, 400, 300))
    # two caption lines split into overlapping boxes: a few pixels further left is no lead
    assert ordered_ids([block(1, (202, 30, 578, 77)), block(0, (210, 27, 581, 56))], ps, LTR) == ["b0", "b1"]
    # a balloon clearly below the top one's line reads after it, even when it starts further left
    assert ordered_ids([block(1, (20, 100, 300, 290)), block(0, (100, 20, 380, 140))], ps, LTR) == [
        "b0",
        "b1",
    ]


def test_of_boxes_ahead_on_the_line_the_topmost_goes_first() -> None:
    # a caption above a balloon, both left of a taller balloon whose top is highest: the caption
    # and the balloon under it are both ahead on the line, and the caption (above) reads first
    ps = panels((0, 0, 900, 400))
    caption, lower, right = (
        block(0, (30, 10, 470, 60)),
        block(1, (10, 60, 600, 380)),
        block(2, (480, 5, 890, 260)),
    )
    assert ordered_ids([right, lower, caption], ps, LTR) == ["b0", "b1", "b2"]


def test_caption_strip_on_a_panels_top_edge_is_read_with_that_panel() -> None:
    # staggered row: the right panel's art starts below its caption strip, which lies outside
    # every panel box; it introduces the right panel, read after the left one
    ps = order_panels(panels((0, 0, 400, 300), (0, 330, 190, 600), (210, 360, 400, 600)), LTR)

    def caption(box: tuple[float, float, float, float]) -> Balloon:
        return replace(block(0, box), kind=BalloonKind.CAPTION)

    left, right = block(1, (10, 340, 180, 380)), block(2, (220, 370, 390, 400))
    out = {b.id: b for b in order_blocks([caption((215, 305, 395, 355)), left, right], ps, LTR)}
    assert out["b0"].panel == "p2"
    assert [k for k, _b in sorted(out.items(), key=lambda kv: kv[1].order or 0)] == ["b1", "b0", "b2"]
    # too far above the panel, or mostly outside its width: it stays where it is
    assert order_blocks([caption((215, 260, 395, 290))], ps, LTR)[0].panel == "p0"
    assert order_blocks([caption((0, 305, 400, 325))], ps, LTR)[0].panel is None
    # only narration is moved: a balloon there keeps its place between the panels
    assert order_blocks([block(0, (215, 305, 395, 355))], ps, LTR)[0].panel is None


def test_a_caption_laid_over_a_balloons_top_is_read_before_it() -> None:
    ps = order_panels(panels((0, 0, 500, 300)), LTR)
    balloon = block(0, (86, 23, 341, 225))  # its outline runs up behind the caption box
    meanwhile = replace(block(1, (87, 24, 211, 49)), kind=BalloonKind.CAPTION)
    other = block(2, (284, 19, 490, 162))
    out = order_blocks([balloon, meanwhile, other], ps, LTR)
    assert [b.id for b in sorted(out, key=lambda b: b.order or 0)] == ["b1", "b0", "b2"]
    # a caption at the balloon's foot ("...LATER") is read after it
    below = replace(block(3, (87, 190, 211, 215)), kind=BalloonKind.CAPTION)
    out = order_blocks([below, balloon, other], ps, LTR)
    assert [b.id for b in sorted(out, key=lambda b: b.order or 0)] == ["b0", "b2", "b3"]
