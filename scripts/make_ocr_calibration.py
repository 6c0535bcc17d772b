#!/usr/bin/env python3
"""Measure the activation ranges the int8 text detector is made with.

Writes ``app/panelvox/models/data/det_calibration.json`` (onnxruntime's calibration cache
format) from pages Panelvox may use: the sample books in ``assets/`` (public-domain scans
and pages the project drew) and pages of small running text it renders itself
(``tests/unit/text_pages.py``). Never from ``../shared/data``. Run it again only when the
detector model or its input scaling changes, then pin the new sha256 the script prints in
``panelvox/models/ocr_quant.py``:

    .venv/bin/python scripts/make_ocr_calibration.py
"""

from __future__ import annotations

import io
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "unit"))

from text_pages import text_page  # noqa: E402

from panelvox.checksum import sha256_of  # noqa: E402
from panelvox.models.ocr import BUNDLED_DET, OcrEngine, rapidocr_models_dir  # noqa: E402
from panelvox.models.ocr_quant import QUANT_DET, calibration_path, make_int8  # noqa: E402


def calibration_pages() -> Iterator[np.ndarray]:
    for book in ("sample.cbz", "sample-rtl.cbz"):
        with zipfile.ZipFile(REPO / "assets" / book) as z:
            for name in sorted(z.namelist()):
                if name.lower().endswith((".jpg", ".jpeg", ".png")):
                    yield np.asarray(Image.open(io.BytesIO(z.read(name))).convert("RGB"))
    for seed, columns in ((3, 2), (5, 3)):
        yield text_page(1500, columns=columns, seed=seed)[0]


def main() -> int:
    from onnxruntime.quantization import CalibrationDataReader

    engine = OcrEngine()
    inputs = [engine.det_input(page) for page in calibration_pages()]

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = iter(inputs)

        def get_next(self) -> dict[str, np.ndarray] | None:
            x = next(self.items, None)
            return None if x is None else {"x": x}

    out = calibration_path(QUANT_DET.calibration)
    out.unlink(missing_ok=True)
    source = rapidocr_models_dir() / BUNDLED_DET.filename
    with tempfile.TemporaryDirectory() as tmp:
        make_int8(source, out, Path(tmp) / "discard.onnx", reader=Reader())
        made = Path(tmp) / "made.onnx"
        make_int8(source, out, made)
        print(f"{out.relative_to(REPO)}: {len(inputs)} pages; int8 detector sha256 {sha256_of(made)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
