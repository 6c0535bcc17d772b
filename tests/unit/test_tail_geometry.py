"""Tails of drawn balloons: narrow wedges followed to their tips, long tails kept."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from panelvox.analysis.balloons_stage import BalloonsStage
from panelvox.analysis.lettering import WordList
from panelvox.analysis.tail_geometry import trace_spike
from panelvox.model import BalloonKind, BBox, PageAnalysis, ReadingDirection, TextLine

W, H = 800, 600
WORDS = WordList.from_lines(["hello", "there"])
COMPASS = ("E", "SE", "S", "SW", "W", "NW", "N", "NE")


def _compass(deg: float) -> str:
    return COMPASS[int(((deg + 22.5) % 360) // 45)]


def _balloon_page(
    body: tuple[int, int, int, int],
    base_x: tuple[int, int],
    tip: tuple[int, int],
    text_boxes: list[tuple[int, int, int, int]],
) -> np.ndarray:
    """A page with a black-outlined ellipse and a wedge tail leaving its lower edge between
    ``base_x``, ending at ``tip``; lightly blurred like a scan, so the wedge's two edges
    merge into one dark spike before the tip."""
    img = Image.new("RGB", (W, H), (245, 240, 225))
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = body
    cx, cy, a, b = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
    left, right = ((x, cy + b * math.sqrt(1 - ((x - cx) / a) ** 2)) for x in base_x)
    d.ellipse(body, fill="black")
    d.ellipse((x0 + 3, y0 + 3, x1 - 3, y1 - 3), fill="white")
    d.polygon([(left[0], left[1] - 5), tip, (right[0], right[1] - 5)], fill="white")
    d.line([left, tip], fill="black", width=3)
    d.line([right, tip], fill="black", width=3)
    for bx0, by0, bx1, by1 in text_boxes:
        for x in range(bx0, bx1 - 8, 14):
            d.rectangle((x, by0 + 2, x + 8, by1 - 2), fill=(20, 20, 20))
    return np.asarray(img.filter(ImageFilter.GaussianBlur(0.8)))


def _analysis(boxes: list[tuple[int, int, int, int]], texts: list[str]) -> PageAnalysis:
    lines = tuple(
        TextLine(id=f"t{i}", bbox=BBox(*b), text=t, confidence=0.9, stage="text")
        for i, (b, t) in enumerate(zip(boxes, texts, strict=True), start=1)
    )
    return PageAnalysis(page=1, width=W, height=H, direction=ReadingDirection.LTR, lines=lines)


def test_narrow_wedge_tail_is_followed_to_its_tip() -> None:
    # a narrow wedge pointing down-left: its inside closes well before the tip
    boxes = [(270, 150, 430, 175), (280, 190, 420, 215)]
    image = _balloon_page((200, 100, 500, 270), (280, 306), (170, 430), boxes)
    out = BalloonsStage(words=WORDS)(image, _analysis(boxes, ["HELLO", "THERE"]))
    assert len(out.blocks) == 1
    block = out.blocks[0]
    assert block.kind is BalloonKind.SPEECH
    assert block.tail is not None
    assert math.dist((block.tail.tip.x, block.tail.tip.y), (170, 430)) < 8
    assert _compass(block.tail.direction_deg) == "SW"
    # the balloon's box and outline run to the tail's tip
    assert block.bbox.y1 >= 424 and block.bbox.x0 <= 176
    assert block.polygon is not None
    assert max(p.y for p in block.polygon) >= 424


def test_balloon_with_a_long_tail_is_still_a_balloon() -> None:
    # the tail makes the region's box three times the body: still a balloon, not free text
    boxes = [(335, 95, 465, 115)]
    image = _balloon_page((300, 70, 500, 140), (385, 415), (420, 380), boxes)
    out = BalloonsStage(words=WORDS)(image, _analysis(boxes, ["HELLO THERE"]))
    [block] = out.blocks
    assert block.polygon is not None
    assert block.tail is not None
    assert _compass(block.tail.direction_deg) == "S"
    assert block.tail.tip.y > 370
    assert block.bbox.y1 > 370


def test_spike_walk_stops_where_the_stroke_ends_or_widens() -> None:
    light = np.ones((100, 100), np.uint8)
    light[20:60, 49:52] = 0  # a 3-px dark spike going down, ending at y = 59
    end = trace_spike(light, (50.0, 20.0), (0.0, 1.0), 80.0)
    assert abs(end[1] - 59) <= 1 and abs(end[0] - 50) <= 1
    light[40:100, 20:80] = 0  # the spike runs into a dark area: stop at its edge
    end = trace_spike(light, (50.0, 20.0), (0.0, 1.0), 80.0)
    assert 38 <= end[1] <= 41
    assert trace_spike(light, (50.0, 20.0), (0.0, 0.0), 80.0) == (50.0, 20.0)
