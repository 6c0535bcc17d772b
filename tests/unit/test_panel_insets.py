"""Insets: panels drawn inside a splash panel, on pages drawn by the tests."""

from __future__ import annotations

import cv2
import numpy as np

from panelvox.analysis.order_stage import OrderStage
from panelvox.analysis.panel_insets import INSET
from panelvox.analysis.panels_stage import ClassicalPanelDetector
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel, ReadingDirection

W, H = 640, 900  # the detector's working size: no scaling
FRAME = (30, 30, 610, 870)  # the splash panel's border
RECT = (300, 575, 590, 852)  # an inset set into the bottom-right corner, paper round it
CIRCLE = ((160, 728), 112)  # an inset set into the bottom-left corner


def art(h: int, w: int, seed: int = 0) -> np.ndarray:
    """Drawing: smooth mid-tones with no strong edges of their own."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(80, 170, (h, w), dtype=np.uint8)
    return cv2.GaussianBlur(noise, (0, 0), 3)[:, :, None].repeat(3, axis=2)


def splash() -> np.ndarray:
    """A splash page: art within a black border, ending in a ragged line (the ground) above
    a band of paper along its bottom."""
    img = np.full((H, W, 3), 255, np.uint8)
    x0, y0, x1, y1 = FRAME
    img[y0:y1, x0:x1] = art(y1 - y0, x1 - x0)
    for x in range(x0, x1):
        img[round(560 + 25 * np.sin(x / 40)) : y1, x] = 255
    cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), (0, 0, 0), 3)
    return img


def rect_inset(img: np.ndarray, box: tuple[int, int, int, int] = RECT) -> None:
    x0, y0, x1, y1 = box
    img[y0:y1, x0:x1] = art(y1 - y0, x1 - x0, seed=1)
    cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), (0, 0, 0), 3)


def circle_inset(img: np.ndarray, centre: tuple[int, int] = CIRCLE[0], r: int = CIRCLE[1]) -> None:
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.circle(mask, centre, r, 1, -1)
    img[mask > 0] = art(*img.shape[:2], seed=2)[mask > 0]
    cv2.circle(img, centre, r, (0, 0, 0), 3)


def balloon_over(img: np.ndarray, centre: tuple[int, int], axes: tuple[int, int]) -> None:
    """A balloon breaking a frame: white, outlined, drawn over it."""
    cv2.ellipse(img, centre, axes, 0, 0, 360, (255, 255, 255), -1)
    cv2.ellipse(img, centre, axes, 0, 0, 360, (0, 0, 0), 2)


def insets(img: np.ndarray) -> list[Panel]:
    return [p for p in ClassicalPanelDetector().detect_panels(img) if p.stage.endswith(INSET)]


def test_a_rectangle_and_a_circle_set_into_a_splash_are_panels_inside_it() -> None:
    img = splash()
    rect_inset(img)
    circle_inset(img)
    balloon_over(img, (360, 575), (28, 22))  # balloons break both frames
    balloon_over(img, (160, 616), (30, 18))
    panels = ClassicalPanelDetector().detect_panels(img)
    host = [p for p in panels if not p.stage.endswith(INSET)]
    assert len(host) == 1 and host[0].bbox.iou(BBox(*FRAME)) > 0.95
    found = sorted(insets(img), key=lambda p: p.bbox.x0)
    assert len(found) == 2, panels
    (cx, cy), r = CIRCLE
    assert found[0].bbox.iou(BBox(cx - r, cy - r, cx + r, cy + r)) > 0.85
    assert found[0].polygon is not None and len(found[0].polygon) >= 8  # its outline is round
    assert found[1].bbox.iou(BBox(*RECT)) > 0.9


def test_a_frame_that_is_not_set_into_the_border_is_not_an_inset() -> None:
    # a picture framed in the middle of the art (a window, a vignette), well inside the border
    img = splash()
    rect_inset(img, (200, 150, 440, 380))
    circle_inset(img, (320, 720), 110)
    assert insets(img) == []
    # a box in the corner sharing the host's border (a caption, a title panel): no gutter
    img = splash()
    x0, y0 = FRAME[:2]
    img[y0:250, x0:300] = 255
    cv2.rectangle(img, (x0, y0), (300, 250), (0, 0, 0), 3)
    assert insets(img) == []


def test_a_circle_in_the_art_or_one_drawn_freehand_is_not_an_inset() -> None:
    # a vignette: art runs round the circle into the corner, no paper between it and the border
    img = splash()
    x0, y0 = FRAME[:2]
    circle_inset(img, (x0 + 125, y0 + 125), 115)
    assert insets(img) == []
    # a round outline drawn freehand (a head, a round balloon) in the paper: not compass-drawn
    img = splash()
    (cx, cy), r = CIRCLE
    t = np.linspace(0, 2 * np.pi, 400)
    wobbly = np.stack([cx + (r + 4 * np.sin(7 * t)) * np.cos(t), cy + (r + 4 * np.sin(7 * t)) * np.sin(t)], 1)
    cv2.polylines(img, [np.round(wobbly).astype(np.int32)], True, (0, 0, 0), 3)
    assert insets(img) == []
    circle_inset(img)  # drawn with compasses, it is one
    assert len(insets(img)) == 1


def test_a_frame_whose_sides_run_on_past_its_corners_is_not_an_inset() -> None:
    # a wall's edges and a horizon, not a frame: its top runs on past the corner
    img = splash()
    rect_inset(img)
    img[RECT[1] : RECT[1] + 3, RECT[0] - 120 : RECT[0]] = 0
    assert insets(img) == []


def test_balloons_inside_an_inset_are_read_with_it_after_the_splash() -> None:
    img = splash()
    rect_inset(img)
    circle_inset(img)
    panels = ClassicalPanelDetector().detect_panels(img)

    def block(bid: str, box: tuple[float, float, float, float]) -> Balloon:
        return Balloon(bid, BalloonKind.SPEECH, BBox(*box), f"text {bid}", 0.9, "test")

    blocks = (
        block("circle", (90, 660, 190, 700)),  # inside the circle inset, high on the page
        block("rect", (330, 600, 450, 640)),  # inside the rectangle inset
        block("splash-low", (400, 480, 560, 530)),  # the splash's art, above the insets
        block("splash", (60, 80, 220, 130)),
        block("corner", (40, 610, 70, 650)),  # the splash's paper, outside the circle's outline
    )
    a = PageAnalysis(1, W, H, ReadingDirection.LTR, panels=panels, blocks=blocks)
    out = OrderStage()(img, a)
    by_id = {q.id: q for q in out.panels}
    held = {b.id: by_id[b.panel].stage.endswith(INSET) for b in out.blocks if b.panel}
    assert held == {"circle": True, "rect": True, "splash-low": False, "splash": False, "corner": False}
    assert [b.id for b in out.blocks_in_order()] == ["splash", "splash-low", "corner", "circle", "rect"]
