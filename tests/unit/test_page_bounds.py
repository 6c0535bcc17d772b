"""A huge page is analysed scaled down, with a notice, and reported in its own pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from panelvox.analysis import pipeline
from panelvox.analysis.pipeline import analyze_page
from panelvox.analysis.text_stage import TextStage
from panelvox.model import ReadingDirection


@pytest.mark.slow
def test_a_huge_page_is_analysed_smaller_and_reported_in_its_own_pixels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    img = Image.new("RGB", (3000, 2000), "white")
    ImageDraw.Draw(img).text(
        (600, 900), "THE TREASURE IS HERE", fill="black", font=ImageFont.load_default(size=110)
    )
    image = np.asarray(img)
    monkeypatch.setattr(pipeline, "MAX_ANALYSIS_PIXELS", 1_500_000)  # a quarter of the page
    out = analyze_page(image, page=1, direction=ReadingDirection.LTR, stages=(TextStage(),))
    assert (out.width, out.height) == (3000, 2000)
    assert out.notices and "very large" in out.notices[0]
    (line,) = out.lines
    assert line.text == "THE TREASURE IS HERE"
    assert 540 <= line.bbox.x0 <= 640 and 880 <= line.bbox.y0 <= 960 and line.bbox.x1 > 1800
    assert line.polygon is not None and max(p.x for p in line.polygon) > 1800
