"""The int8 text detector: made on this machine from the wheel's model, verified, used;
fp32 stays selectable (a setting, the CLI, the config)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from panelvox.analysis.pipeline import empty_analysis
from panelvox.analysis.text_stage import TextStage
from panelvox.checksum import sha256_of
from panelvox.errors import ModelUnavailable
from panelvox.model import ReadingDirection
from panelvox.models import ocr_quant
from panelvox.models.ocr import BUNDLED_DET, OcrConfig, OcrEngine, rapidocr_models_dir
from panelvox.models.ocr_quant import PRECISION_ENV, QUANT_DET, chosen_precision, int8_model


def _page() -> np.ndarray:
    img = Image.new("RGB", (900, 260), "white")
    draw = ImageDraw.Draw(img)
    for i, text in enumerate(["WHERE DID HE GO?", "THE TREASURE IS HERE"]):
        draw.text((60, 60 + 70 * i), text, fill="black", font=ImageFont.load_default(size=36))
    return np.asarray(img)


@pytest.mark.slow
def test_int8_detector_is_made_verified_and_used(tmp_path: Path) -> None:
    engine = OcrEngine(OcrConfig(precision="int8", made_models=tmp_path))
    made = tmp_path / QUANT_DET.filename
    assert engine.precision == "int8"
    assert sha256_of(made) == QUANT_DET.sha256  # made here, byte for byte as pinned
    assert made.stat().st_size < 0.5 * (rapidocr_models_dir() / BUNDLED_DET.filename).stat().st_size
    image = _page()
    out = TextStage(engine)(image, empty_analysis(image, 1, ReadingDirection.LTR))
    assert [ln.text for ln in sorted(out.lines, key=lambda ln: ln.bbox.y0)] == [
        "WHERE DID HE GO?",
        "THE TREASURE IS HERE",
    ]


@pytest.mark.slow
def test_a_damaged_made_model_is_made_again(tmp_path: Path) -> None:
    made = tmp_path / QUANT_DET.filename
    made.write_bytes(b"not a model")
    source = rapidocr_models_dir() / BUNDLED_DET.filename
    assert int8_model(source, QUANT_DET, tmp_path) == made
    assert sha256_of(made) == QUANT_DET.sha256


@pytest.mark.slow
def test_a_model_that_does_not_come_out_as_pinned_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = replace(QUANT_DET, sha256="0" * 64)
    source = rapidocr_models_dir() / BUNDLED_DET.filename
    with pytest.raises(ModelUnavailable) as err:
        int8_model(source, wrong, tmp_path)
    assert err.value.message.endswith(".") and "came out as" in err.value.detail
    assert list(tmp_path.iterdir()) == []  # nothing unverified is kept
    monkeypatch.setattr("panelvox.models.ocr.QUANT_DET", wrong)
    engine = OcrEngine(OcrConfig(precision="int8", made_models=tmp_path))
    assert engine.precision == "fp32"  # the reader still reads, with the original model


@pytest.mark.slow
def test_an_int8_detector_that_cannot_be_kept_is_still_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A models folder that cannot be made (its parent is a file): made in a temporary
    folder, verified and used, and the folder is gone once loaded (issue 32)."""
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    engine = OcrEngine(OcrConfig(precision="int8", made_models=blocked / "models"))
    assert engine.precision == "int8"
    assert list(scratch.iterdir()) == []
    image = _page()
    out = TextStage(engine)(image, empty_analysis(image, 1, ReadingDirection.LTR))
    assert len(out.lines) == 2


def test_fp32_can_be_chosen(tmp_path: Path) -> None:
    engine = OcrEngine(OcrConfig(precision="fp32", made_models=tmp_path))
    assert engine.precision == "fp32"
    assert not (tmp_path / QUANT_DET.filename).exists()
    with pytest.raises(ValueError, match="precision"):
        OcrEngine(OcrConfig(precision="int4"))


def test_precision_from_settings_and_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from panelvox import paths
    from panelvox.cli import main

    assert chosen_precision() == "fp32"  # the default: int8 loses words (docs/benchmarks.md)
    settings = paths.config_dir() / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"analysis": {"precision": "int8"}}), encoding="utf-8")
    assert chosen_precision() == "int8" and OcrConfig().precision == "int8"
    assert TextStage().params[0].precision == "int8"  # part of the analysis cache's key
    monkeypatch.setenv(PRECISION_ENV, "fp32")
    assert chosen_precision() == "fp32"
    monkeypatch.setenv(PRECISION_ENV, "int8")
    assert chosen_precision() == "int8"
    monkeypatch.setattr("panelvox.cli.info.run", lambda _args: 0)
    assert main(["--precision", "fp32", "info", "x"]) == 0
    assert os.environ[PRECISION_ENV] == "fp32" and chosen_precision() == "fp32"


def test_the_calibration_ranges_ship_with_the_package() -> None:
    ranges = json.loads(ocr_quant.calibration_path(QUANT_DET.calibration).read_text(encoding="utf-8"))
    assert len(ranges["data"]) > 50
