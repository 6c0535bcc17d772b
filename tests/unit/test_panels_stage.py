"""The classical panel detector on pages drawn by the tests."""

from __future__ import annotations

import numpy as np
import pytest

from panelvox.analysis.panels_stage import ClassicalPanelDetector, PanelStage
from panelvox.analysis.pipeline import empty_analysis
from panelvox.model import BBox, ReadingDirection

W, H = 600, 840


def page(paper: tuple[int, int, int] = (255, 255, 255)) -> np.ndarray:
    return np.full((H, W, 3), paper, np.uint8)


def framed(img: np.ndarray, box: tuple[int, int, int, int], fill: tuple[int, int, int] | None = None) -> None:
    x0, y0, x1, y1 = box
    if fill is not None:
        img[y0:y1, x0:x1] = fill
    img[y0 : y0 + 3, x0:x1] = 0
    img[y1 - 3 : y1, x0:x1] = 0
    img[y0:y1, x0 : x0 + 3] = 0
    img[y0:y1, x1 - 3 : x1] = 0


GRID = [(20, 20, 290, 400), (310, 20, 580, 400), (20, 420, 580, 820)]


def boxes(img: np.ndarray) -> list[BBox]:
    return sorted((p.bbox for p in ClassicalPanelDetector().detect_panels(img)), key=lambda b: (b.y0, b.x0))


def assert_found(found: list[BBox], expected: list[tuple[int, int, int, int]]) -> None:
    assert len(found) == len(expected), found
    for f, e in zip(found, sorted(expected, key=lambda b: (b[1], b[0])), strict=True):
        assert f.iou(BBox(*e)) > 0.9, (f, e)


@pytest.mark.parametrize("paper", [(255, 255, 255), (235, 215, 160)], ids=["white", "yellowed"])
def test_framed_panels_with_empty_insides_on_white_and_yellowed_paper(paper: tuple[int, int, int]) -> None:
    img = page(paper)
    for b in GRID:
        framed(img, b)  # insides are paper coloured: the frame alone makes the panel
    img[100:110, 60:200] = 0  # some art inside
    assert_found(boxes(img), GRID)


def test_black_gutters() -> None:
    img = page((0, 0, 0))
    for x0, y0, x1, y1 in GRID:
        img[y0:y1, x0:x1] = (250, 250, 250)
        img[y0 + 40 : y0 + 60, x0 + 30 : x0 + 90] = (0, 0, 0)
    assert_found(boxes(img), GRID)


def test_balloon_bridging_a_gutter_does_not_merge_panels() -> None:
    img = page()
    for b in GRID:
        framed(img, b, fill=(120, 170, 220))
    # a white balloon with an outline sitting across the vertical gutter
    yy, xx = np.ogrid[:H, :W]
    inside = ((xx - 300) / 70.0) ** 2 + ((yy - 150) / 35.0) ** 2 <= 1
    ring = inside & ~(((xx - 300) / 66.0) ** 2 + ((yy - 150) / 31.0) ** 2 <= 1)
    img[inside] = 255
    img[ring] = 0
    assert_found(boxes(img), GRID)


def test_bleed_off_the_page_edge() -> None:
    img = page()
    framed(img, (20, 420, 580, 820))
    # top panel bleeds off the top and sides: its frame runs into the page edges
    img[400:403, :] = 0
    img[0:400, 0:3] = 0
    img[0:400, W - 3 :] = 0
    img[200:260, 100:300] = 40  # art
    found = boxes(img)
    assert len(found) == 2
    assert found[0].iou(BBox(0, 0, W, 403)) > 0.85


def test_slanted_border_reports_polygon_and_bbox() -> None:
    import cv2

    img = page()
    framed(img, (20, 420, 580, 820), fill=(200, 120, 120))
    poly = np.array([[20, 20], [580, 20], [580, 330], [20, 400]], np.int32)
    cv2.fillPoly(img, [poly], (90, 160, 90))
    panels = ClassicalPanelDetector().detect_panels(img)
    slanted = min(panels, key=lambda p: p.bbox.y0)
    assert slanted.polygon is not None and len(slanted.polygon) >= 4
    assert slanted.bbox.iou(BBox(20, 20, 581, 401)) > 0.9


def test_splash_page_is_one_panel() -> None:
    img = page()
    framed(img, (30, 30, 570, 810), fill=(60, 120, 200))
    assert_found(boxes(img), [(30, 30, 570, 810)])


def test_text_page_and_blank_page_have_no_panels() -> None:
    rng = np.random.default_rng(0)
    img = page()
    for row in range(40, 800, 24):  # lines of "type"
        for col in range(40, 560, 12):
            if rng.random() < 0.8:
                img[row : row + 10, col : col + 8] = 0
    assert boxes(img) == []
    assert boxes(page()) == []


def test_page_number_in_the_margin_is_not_a_panel() -> None:
    img = page()
    for b in GRID:
        framed(img, b, fill=(150, 200, 150))
    img[826:836, 290:310] = 0  # a page number under the last panel
    assert_found(boxes(img), GRID)


def test_stage_records_detector_and_is_pure() -> None:
    img = page()
    for b in GRID:
        framed(img, b)
    before = empty_analysis(img, 1, ReadingDirection.LTR)
    after = PanelStage()(img, before)
    assert before.panels == () and before.stages == ()
    assert after.stages == ("panels:classical",)
    assert len(after.panels) == 3
    assert all(0.0 <= p.confidence <= 1.0 and p.stage == "panels:classical" for p in after.panels)
    assert len({p.id for p in after.panels}) == 3


def tone(img: np.ndarray, box: tuple[int, int, int, int], seed: int) -> None:
    """Screen tone: a grey dot pattern filling ``box`` (ink everywhere, no paper)."""
    x0, y0, x1, y1 = box
    rng = np.random.default_rng(seed)
    img[y0:y1, x0:x1] = rng.integers(150, 215, size=(y1 - y0, x1 - x0, 1), dtype=np.uint8)


def test_panels_sharing_one_frame_line_over_screen_tone_are_split() -> None:
    # three panels with no paper gutter at all: toned insides, one shared black line between
    img = page()
    img[20:820, 20:580] = 0  # outer frame
    tone(img, (23, 23, 577, 398), 1)
    tone(img, (23, 401, 298, 817), 2)
    tone(img, (301, 401, 577, 817), 3)
    img[200:230, 100:400] = 30  # art
    assert_found(boxes(img), [(20, 20, 580, 400), (20, 400, 300, 820), (300, 400, 580, 820)])


def test_hatching_inside_a_panel_is_not_a_border() -> None:
    img = page()
    for b in GRID:
        framed(img, b)
    # evenly ruled lines across the bottom panel (a ruled background, blinds)
    for y in range(470, 800, 12):
        img[y : y + 2, 23:577] = 0
    img[440:460, 60:200] = 0  # some art
    assert_found(boxes(img), GRID)


def test_white_panel_bled_off_a_page_corner_is_closed_along_the_edges() -> None:
    # framed panels on the left; at the bottom right a panel with a white inside runs off the
    # right and bottom edges: only its top and left borders are drawn
    img = page()
    framed(img, (20, 20, 580, 400))
    framed(img, (20, 420, 280, 820))
    img[420:423, 300:W] = 0
    img[420:H, 300:303] = 0
    img[600:700, 380:420] = 40  # a small figure
    img[520:560, 480:540] = 40  # and a balloon's worth of ink
    found = boxes(img)
    assert len(found) == 3, found
    assert max(found, key=lambda b: b.x0).iou(BBox(300, 420, W, H)) > 0.85


def test_white_panel_bled_off_three_sides_is_closed_along_the_edges() -> None:
    img = page()
    img[300:303, :] = 0  # the only border of the top panel, from edge to edge
    img[120:160, 150:260] = 40  # art inside it, on white
    img[60:90, 380:470] = 40
    framed(img, (20, 330, 580, 820), fill=(150, 200, 150))
    found = boxes(img)
    assert len(found) == 2, found
    assert found[0].iou(BBox(0, 0, W, 303)) > 0.85


def test_black_page_with_panels_bled_to_both_side_edges() -> None:
    # a black page: the panels run off the left and right edges with wide black gutters
    # between them, so the sealed side edges join every panel into one ink region round a
    # network of gutters; the panels inside it must still be found
    img = page((0, 0, 0))
    panels = [(0, 60, W, 250), (0, 300, 270, 480), (320, 300, W, 480)]
    panels += [(0, 530, 250, 700), (300, 530, W, 700), (0, 750, W, 800)]
    for i, (x0, y0, x1, y1) in enumerate(panels):
        img[y0:y1, x0:x1] = (235, 235, 235)
        if y1 - y0 > 100:
            img[y0 + 40 : y1 - 40, x0 + 60 + 10 * i : x0 + 140 + 10 * i] = 0  # a dark figure
    assert_found(boxes(img), panels)


def slanted_pair(img: np.ndarray, top: int, bottom: int) -> None:
    """Two framed panels side by side, split by a gutter from x=top (y=20) to x=bottom (y=820)."""
    yy, xx = np.mgrid[:H, :W]
    split = top + (bottom - top) * (yy - 20) / 800.0
    inside = (yy >= 20) & (yy < 820) & (xx >= 20) & (xx < 580)
    left = inside & (xx < split - 10)
    right = inside & (xx > split + 10)
    for part in (left, right):
        img[part] = (90, 140, 200)
        edge = part & ~(
            np.roll(part, 3, 0) & np.roll(part, -3, 0) & np.roll(part, 3, 1) & np.roll(part, -3, 1)
        )
        img[edge] = 0


def test_slanted_gutter_splits_panels() -> None:
    img = page()
    slanted_pair(img, 260, 340)  # a tilt of about 6 degrees: no straight line runs down it
    img[380:440, 240:360] = 0  # a figure across the gutter joins the two panels
    found = boxes(img)
    assert len(found) == 2, found
    left, right = sorted(found, key=lambda b: b.x0)
    assert left.iou(BBox(20, 20, 330, 820)) > 0.9, left
    assert right.iou(BBox(270, 20, 580, 820)) > 0.9, right


def test_small_framed_box_is_not_a_panel() -> None:
    img = page()
    framed(img, GRID[0])
    framed(img, GRID[1])
    framed(img, (20, 420, 580, 700))
    # a framed box of 1.6 % of the page below the panels: a title logo or caption, not a panel
    framed(img, (250, 720, 340, 810), fill=(255, 255, 255))
    img[750:770, 270:320] = 0
    assert_found(boxes(img), [GRID[0], GRID[1], (20, 420, 580, 700)])


def test_short_notch_between_art_and_frame_at_the_edge_is_sealed() -> None:
    # a white panel bled off the top edge; round art (heads cut by the edge) reaches the
    # edge a little way from each side frame: the short stretches of paper between them
    # are notches in the panel (no frame lines run inward beside them), not gutters
    img = page()
    img[0:400, 20:23] = 0
    img[0:400, 577:580] = 0
    img[397:400, 20:580] = 0
    yy, xx = np.ogrid[:H, :W]
    for cx in (125, 475):
        img[(xx - cx) ** 2 + (yy + 40) ** 2 <= 90**2] = 60
    img[250:330, 200:400] = 30  # more art
    framed(img, (20, 420, 580, 820))
    assert_found(boxes(img), [(20, 0, 580, 400), (20, 420, 580, 820)])


def test_door_frame_inside_a_panel_is_not_a_border() -> None:
    # a long straight dark line from the panel's top border down to a floor: it stops short
    # of the bottom border, so it is art (a door frame), not a frame line shared by two panels
    img = page()
    for b in GRID:
        framed(img, b)
    img[423:760, 300:303] = 0
    img[760:800, 150:250] = 40  # a figure standing on the floor
    img[470:500, 60:200] = 40
    assert_found(boxes(img), GRID)


def test_small_panels_sharing_a_frame_line_stay_apart() -> None:
    # a small rectangular panel (3.9 % of the page) split off its neighbour by a shared
    # border is a panel, not a fragment of the neighbour
    img = page()
    framed(img, GRID[0])
    framed(img, GRID[1])
    img[420:820, 20:580] = 0
    tone(img, (23, 423, 577, 617), 1)
    tone(img, (23, 620, 120, 817), 2)
    tone(img, (123, 620, 577, 817), 3)
    assert_found(
        boxes(img), [GRID[0], GRID[1], (20, 420, 580, 619), (20, 619, 122, 820), (122, 619, 580, 820)]
    )


def test_ragged_piece_cut_off_through_the_art_joins_its_panel() -> None:
    # a borderless panel: a figure and a ragged blob of art joined by a neck; the bridged
    # gutter rule cuts at the neck, and the small ragged piece is joined back to the figure
    img = page()
    framed(img, GRID[0])
    framed(img, GRID[1])
    yy, xx = np.ogrid[:H, :W]
    img[490:790, 60:395] = 60
    img[(xx >= 415) & (((xx - 415) / 95.0) ** 2 + ((yy - 640) / 115.0) ** 2 <= 1)] = 60
    img[580:700, 395:415] = 60
    assert_found(boxes(img), [GRID[0], GRID[1], (60, 490, 510, 790)])
