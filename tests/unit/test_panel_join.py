"""Panels cut in two where no border is drawn, joined by the balloon lettered across them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from panelvox.analysis.order_stage import OrderStage
from panelvox.analysis.panel_join import join_split_panels
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel, Point, ReadingDirection

LTR = ReadingDirection.LTR


def art_page() -> np.ndarray:
    """A 600 x 400 page covered with drawing (uneven mid-tones, no frame, no blank paper)."""
    rng = np.random.default_rng(0)
    return rng.integers(120, 250, (600, 400, 1), dtype=np.uint8).repeat(3, axis=2)


def panel(pid: str, box: tuple[float, float, float, float]) -> Panel:
    return Panel(pid, BBox(*box), 0.9, "test")


def balloon(
    bid: str, box: tuple[float, float, float, float], kind: BalloonKind = BalloonKind.SPEECH
) -> Balloon:
    return Balloon(bid, kind, BBox(*box), f"text {bid}", 0.9, "test")


# an L: the top of the page and its right column are one panel, cut by the detector into a
# top-left part and a tall right part; an inset panel sits in the L's corner
TOP_LEFT, RIGHT, INSET = (
    panel("a", (10, 10, 200, 300)),
    panel("b", (203, 10, 390, 590)),
    panel("c", (10, 310, 195, 590)),
)
ACROSS = balloon("across", (120, 100, 300, 160))  # half in each part


def test_balloon_across_an_undrawn_border_joins_the_two_panels() -> None:
    joined = join_split_panels([TOP_LEFT, RIGHT, INSET], [ACROSS], art_page(), LTR)
    assert [q.id for q in joined] == ["a", "c"]
    whole = joined[0]
    assert whole.bbox == BBox(10, 10, 390, 590)
    assert whole.polygon is not None and len(whole.polygon) >= 6  # an L's outline, not its box


def test_a_drawn_frame_keeps_the_panels_apart() -> None:
    framed = art_page()
    framed[:, 200:203] = 0  # a frame line down the border
    assert len(join_split_panels([TOP_LEFT, RIGHT, INSET], [ACROSS], framed, LTR)) == 3
    # a border hidden by lettering along most of its length is not known to be missing
    tall = balloon("tall", (120, 20, 300, 260))
    assert len(join_split_panels([TOP_LEFT, RIGHT, INSET], [tall], art_page(), LTR)) == 3


def test_manga_pages_are_left_as_they_are() -> None:
    # manga letters balloons across panel borders as a matter of course
    for direction in (ReadingDirection.RTL, ReadingDirection.TTB_RTL):
        assert len(join_split_panels([TOP_LEFT, RIGHT, INSET], [ACROSS], art_page(), direction)) == 3


def test_only_a_balloon_deep_in_both_panels_joins_them() -> None:
    page = art_page()
    into_gutter = balloon("x", (60, 100, 230, 160))  # a balloon breaking the frame: 1/6 across
    assert len(join_split_panels([TOP_LEFT, RIGHT, INSET], [into_gutter], page, LTR)) == 3
    sound = replace(ACROSS, kind=BalloonKind.SFX)  # a sound effect is drawn across borders
    assert len(join_split_panels([TOP_LEFT, RIGHT, INSET], [sound], page, LTR)) == 3
    overlapping = [panel("a", (10, 10, 260, 300)), panel("b", (150, 10, 390, 590))]
    assert len(join_split_panels(overlapping, [ACROSS], page, LTR)) == 2


def test_the_joined_panel_reads_first_then_its_inset_with_its_own_balloons() -> None:
    blocks = [
        balloon("inset", (30, 330, 150, 380)),
        balloon("right", (260, 200, 370, 250)),
        ACROSS,
    ]
    page = art_page()
    a = PageAnalysis(1, 400, 600, LTR, panels=(TOP_LEFT, RIGHT, INSET), blocks=tuple(blocks))
    out = OrderStage()(page, a)
    assert [q.id for q in sorted(out.panels, key=lambda q: q.order or 0)] == ["a", "c"]
    held = {b.id: b.panel for b in out.blocks}
    assert held == {"across": "a", "right": "a", "inset": "c"}  # the inset's balloon is the inset's
    assert [b.id for b in out.blocks_in_order()] == ["across", "right", "inset"]


def test_a_panel_found_inside_a_detected_panel_does_not_take_its_balloons() -> None:
    # the detector's own panels: a box found inside another is as often a false one (a group
    # of balloons on a dark page); the balloons stay with the panel whose box holds them
    host, inner = panel("a", (10, 10, 390, 590)), panel("c", (40, 300, 200, 500))
    outline = ((10, 10), (390, 10), (390, 590), (200, 590), (200, 300), (10, 300))  # leaves out c
    host = replace(host, polygon=tuple(Point(x, y) for x, y in outline))
    inside = balloon("x", (60, 320, 180, 400))
    a = PageAnalysis(1, 400, 600, LTR, panels=(host, inner), blocks=(inside,))
    out = OrderStage()(art_page(), a)
    assert out.blocks[0].panel == "a"


def test_panels_one_above_the_other_join_the_same_way() -> None:
    upper, lower = panel("u", (10, 10, 390, 300)), panel("l", (10, 303, 390, 590))
    across = balloon("v", (100, 230, 250, 380))  # half above the cut, half below
    assert [q.id for q in join_split_panels([upper, lower], [across], art_page(), LTR)] == ["u"]
    ruled = art_page()
    ruled[300:303, :] = 0  # a frame line along the border
    assert len(join_split_panels([upper, lower], [across], ruled, LTR)) == 2
