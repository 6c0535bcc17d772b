"""Our DB post-processing gives rapidocr's boxes and scores, exactly, and imports none of it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from panelvox.models.db_boxes import DbBoxes
from panelvox.models.ocr import OcrEngine

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "assets" / "sample.cbz"
#: every pass the engine reads the map at: (threshold, dilated)
PASSES = [(0.5, False), (0.65, False), (0.8, False), (0.3, True)]


def _sample_page() -> np.ndarray:
    with zipfile.ZipFile(SAMPLE) as zf:
        name = sorted(n for n in zf.namelist() if n.lower().endswith((".jpg", ".jpeg", ".png")))[0]
        with zf.open(name) as fh:
            return np.asarray(Image.open(fh).convert("RGB"))


@pytest.fixture(scope="module")
def maps() -> list[tuple[np.ndarray, tuple[int, int]]]:
    """The detector's probability map of the sample's first page, and a made-up one."""
    engine = OcrEngine()
    page = _sample_page()
    real = engine._det.run(None, {engine._det_input: engine.det_input(page)})[0]
    rng = np.random.default_rng(7)
    made = np.zeros((1, 1, 320, 480), dtype=np.float32)
    for _ in range(40):  # blobs at every angle, some touching, scores around the thresholds
        x, y = rng.integers(10, 440), rng.integers(10, 290)
        w, h = rng.integers(4, 60), rng.integers(2, 20)
        made[0, 0, y : y + h, x : x + w] = rng.uniform(0.2, 1.0)
    return [(real, page.shape[:2]), (made, (640, 960))]


@pytest.mark.parametrize(("thresh", "dilated"), PASSES)
def test_boxes_and_scores_are_rapidocrs(
    maps: list[tuple[np.ndarray, tuple[int, int]]], thresh: float, dilated: bool
) -> None:
    from rapidocr.ch_ppocr_det.utils import DBPostProcess

    for pred, size in maps:
        theirs = DBPostProcess(
            thresh=thresh, box_thresh=0.5, unclip_ratio=1.6, use_dilation=dilated, score_mode="fast"
        )(pred, size)
        ours = DbBoxes(thresh, 0.5, 1.6, use_dilation=dilated)(pred, size)
        assert len(ours[0]) > 0
        assert ours[1] == theirs[1]
        assert np.array_equal(ours[0], np.asarray(theirs[0], dtype=np.float32).reshape(-1, 4, 2))


def test_an_empty_map_gives_no_box() -> None:
    boxes, scores = DbBoxes(0.5, 0.5, 1.6)(np.zeros((1, 1, 64, 64), dtype=np.float32), (100, 100))
    assert boxes.shape == (0, 4, 2) and scores == []


def test_the_engine_does_not_import_rapidocrs_pipeline() -> None:
    """rapidocr's package (its model resolver, YAML configs, HTTP client) costs half a second
    of a cold start; the engine needs only the model files inside its wheel."""
    code = (
        "import sys; from panelvox.models.ocr import OcrEngine; OcrEngine(); "
        "print(sorted(m for m in sys.modules if m.startswith(('rapidocr.', 'omegaconf', 'requests'))))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "app"), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"
