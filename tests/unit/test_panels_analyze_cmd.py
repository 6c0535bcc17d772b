"""The `panelvox analyze` printer and overlay (the pipeline itself is tested per stage)."""

from __future__ import annotations

import numpy as np

from panelvox.analysis.order_stage import OrderStage
from panelvox.export.page_listing import draw_overlay, format_page
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel, ReadingDirection


def test_printer_lists_panels_in_order_with_their_blocks_and_overlay_draws() -> None:
    img = np.full((300, 200, 3), 255, np.uint8)
    a = PageAnalysis(
        page=3,
        width=200,
        height=300,
        direction=ReadingDirection.RTL,
        panels=(Panel("p1", BBox(0, 0, 90, 90), 0.9, "t"), Panel("p2", BBox(100, 0, 190, 90), 0.8, "t")),
        blocks=(
            Balloon("b1", BalloonKind.SPEECH, BBox(10, 10, 50, 30), "left  one", 0.7, "t"),
            Balloon("b2", BalloonKind.CAPTION, BBox(110, 10, 150, 30), "right", 0.6, "t"),
            Balloon("b3", BalloonKind.SFX, BBox(10, 200, 50, 230), "BOOM", 0.5, "t"),
        ),
    )
    a = OrderStage()(img, a)
    text = format_page(a)
    lines = text.splitlines()
    assert lines[0].startswith("Page 3 (200x300), reading rtl")
    assert lines[2].startswith("Panel 1 [100,0,190,90]")
    assert lines[3] == "  1. caption (0.60): right"
    assert lines[4].startswith("Panel 2 [0,0,90,90]")
    assert lines[5] == "  2. speech (0.70): left one"
    assert lines[-1] == "  3. sfx (0.50): BOOM"
    drawn = draw_overlay(img, a)
    assert drawn.shape == img.shape and (drawn != img).any() and (img == 255).all()
