"""Golden test: text + balloons on real Golden Age pages from ../shared/data/cib.

Expected dialogue comes from the data's own ground truth (read at test time, never copied);
the tolerance allows OCR slips on a few balloons.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from panelvox.analysis.balloons_stage import BalloonsStage
from panelvox.analysis.pipeline import analyze_page
from panelvox.analysis.text_stage import TextStage
from panelvox.eval.dialogue_metrics import transcript_recall
from panelvox.model import BBox, ReadingDirection

PAGES = {
    # page: minimum recall of its quoted dialogue (measured 1.0 on 2026-11-22)
    "BusterBrown_004_TheLeathernCordOfMagic_10_08": 0.85,
    "BusterBrown_004_TheLeathernCordOfMagic_10_04": 0.85,
}


@pytest.mark.slow
@pytest.mark.golden
@pytest.mark.parametrize("page", sorted(PAGES))
def test_cib_page_dialogue_is_read(shared_data: Path, page: str) -> None:
    gt = json.loads((shared_data / "cib" / "panels" / f"{page}.json").read_text(encoding="utf-8"))
    image = np.asarray(Image.open(shared_data / "cib" / "images" / gt["image"]).convert("RGB"))
    out = analyze_page(
        image, page=1, direction=ReadingDirection.LTR, stages=(TextStage(), BalloonsStage()), language="en"
    )
    assert not out.notices
    panels = [BBox.from_list(p["bbox"]) for p in gt["panels"]]

    def panel_rank(box: BBox) -> int:
        cover = [box.coverage_by(p) for p in panels]
        return int(np.argmax(cover)) if max(cover) > 0 else len(panels)

    blocks = sorted(out.blocks, key=lambda b: (panel_rank(b.bbox), b.bbox.y0 // 40, b.bbox.x0))
    score = transcript_recall(gt["dialogue"], [b.text for b in blocks if b.kind.essential])
    assert score.recall >= PAGES[page]
    for b in out.blocks:
        assert b.lines and all(ln in {x.id for x in out.lines} for ln in b.lines)
        assert 0.0 < b.confidence <= 1.0
    assert all(ln.script == "latin" for ln in out.lines)
