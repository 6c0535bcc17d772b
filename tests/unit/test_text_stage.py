"""The OCR engine and the "text" stage: no network, provider choice, real reading."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from panelvox.analysis.pipeline import empty_analysis
from panelvox.analysis.text_stage import TextStage, _is_noise, _stray_script
from panelvox.errors import ModelUnavailable
from panelvox.model import ReadingDirection
from panelvox.models.device import Device
from panelvox.models.ocr import (
    BUNDLED_DET,
    BUNDLED_REC,
    Detection,
    OcrConfig,
    OcrEngine,
    combine_passes,
    dedupe,
    merge_fragments,
)
from panelvox.models.onnx_session import choose_providers


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine()


def test_engine_construction_touches_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("network access while building the OCR engine")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    eng = OcrEngine()
    assert eng.providers[-1] == "CPUExecutionProvider"


def test_pinned_models_are_the_ones_bundled_in_the_wheel() -> None:
    from panelvox.models.ocr import rapidocr_models_dir

    folder = rapidocr_models_dir()
    assert (folder / BUNDLED_DET.filename).is_file()
    assert (folder / BUNDLED_REC.filename).is_file()


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable) as err:
        OcrEngine(OcrConfig(det_model=tmp_path / "nope.onnx"))
    assert err.value.message.endswith(".")
    assert "nope.onnx" in err.value.detail


def test_provider_choice_prefers_cuda_and_falls_back_to_cpu() -> None:
    both = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert choose_providers(Device.AUTO, both) == both
    assert choose_providers(Device.AUTO, ["CPUExecutionProvider"]) == ["CPUExecutionProvider"]
    assert choose_providers(Device.CPU, both) == ["CPUExecutionProvider"]
    assert choose_providers(Device.GPU, ["CPUExecutionProvider"]) == ["CPUExecutionProvider"]


def _render(lines: list[str], size: int = 36) -> np.ndarray:
    font = ImageFont.load_default(size=size)
    img = Image.new("RGB", (900, 120 + 70 * len(lines)), "white")
    draw = ImageDraw.Draw(img)
    for i, text in enumerate(lines):
        draw.text((60, 60 + 70 * i), text, fill="black", font=font)
    return np.asarray(img)


@pytest.mark.slow
def test_rapidocr_reads_rendered_english(engine: OcrEngine) -> None:
    image = _render(["WHERE DID HE GO?", "THE TREASURE IS HERE"])
    stage = TextStage(engine)
    out = stage(image, empty_analysis(image, 1, ReadingDirection.LTR))
    texts = [ln.text for ln in sorted(out.lines, key=lambda ln: ln.bbox.y0)]
    assert texts == ["WHERE DID HE GO?", "THE TREASURE IS HERE"]
    first = min(out.lines, key=lambda ln: ln.bbox.y0)
    assert first.script == "latin" and not first.vertical and not first.ruby
    assert first.polygon is not None and len(first.polygon) == 4
    assert 0.8 <= first.confidence <= 1.0
    assert 40 <= first.bbox.x0 <= 80 and 50 <= first.bbox.y0 <= 80
    assert out.stages == ("text:rapidocr",)


@pytest.mark.slow
def test_blank_page_has_no_text(engine: OcrEngine) -> None:
    image = np.full((400, 300, 3), 255, np.uint8)
    out = TextStage(engine)(image, empty_analysis(image, 1, ReadingDirection.LTR))
    assert out.lines == ()


def _det(x0: float, y0: float, x1: float, y1: float, score: float = 0.8) -> Detection:
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
    return Detection(quad, score)


def test_word_pieces_of_one_line_are_joined() -> None:
    pieces = [_det(100, 50, 160, 70), _det(172, 51, 240, 71), _det(100, 80, 200, 100)]
    out = sorted(merge_fragments(pieces, 1.2), key=lambda d: float(d.quad[0, 1]))
    assert len(out) == 2
    assert out[0].quad[:, 0].min() == 100 and out[0].quad[:, 0].max() == 240
    # lines stacked one under the other stay apart, however close
    assert out[1].quad[:, 1].min() == 80


def test_pieces_of_a_vertical_column_are_joined_and_duplicates_dropped() -> None:
    col = [_det(300, 50, 330, 150), _det(301, 160, 330, 260), _det(300, 52, 330, 148, 0.5)]
    out = merge_fragments(col, 1.2)
    assert len(out) == 1
    assert out[0].quad[:, 1].min() == 50 and out[0].quad[:, 1].max() == 260


def test_far_apart_words_stay_separate() -> None:
    out = merge_fragments([_det(100, 50, 160, 70), _det(300, 50, 360, 70)], 1.2)
    assert len(out) == 2


def test_stray_script_lines_are_dropped_only_when_unsure() -> None:
    scripts = ["latin"] * 12 + ["japanese", "japanese"]
    scores = [0.95] * 12 + [0.6, 0.97]
    assert _stray_script(scripts, scores) == {12}
    # a page mixing scripts keeps everything
    assert _stray_script(["latin", "japanese"] * 4, [0.5] * 8) == set()


@pytest.mark.slow
def test_closely_spaced_lines_are_read_as_separate_lines(engine: OcrEngine) -> None:
    # comic lettering often leaves only a few pixels between lines
    font = ImageFont.load_default(size=30)
    img = Image.new("RGB", (700, 400), "white")
    draw = ImageDraw.Draw(img)
    rows = ["BLAH BLAH BLAH", "THIS OLD GEEZER", "CAN TALK ALL DAY", "WHAT A BORE!"]
    for i, text in enumerate(rows):
        draw.text((60, 60 + 31 * i), text, fill="black", font=font)
    image = np.asarray(img)
    out = TextStage(engine)(image, empty_analysis(image, 1, ReadingDirection.LTR))
    texts = [ln.text for ln in sorted(out.lines, key=lambda ln: ln.bbox.y0)]
    assert texts == rows


def test_a_box_over_several_lines_is_replaced_by_the_strict_lines_inside_it() -> None:
    loose = [_det(0, 0, 100, 20), _det(0, 200, 100, 220), _det(300, 300, 400, 360)]
    strict = [_det(302, 302, 398, 320), _det(302, 325, 398, 343), _det(0, 0, 100, 19)]
    out = combine_passes(loose, strict, 1.4)
    boxes = sorted((int(d.quad[:, 1].min()), int(d.quad[:, 1].max())) for d in out)
    assert boxes == [(0, 20), (200, 220), (302, 320), (325, 343)]


def test_the_rest_of_a_line_whose_first_word_ran_into_the_next_line_is_not_kept_short() -> None:
    # "HE" over "DO" ran together into one thick box; the loose pass kept "CAN'T" and "THAT"
    # alone, the strict pass has the whole lines "HE CAN'T" and "DO THAT"
    loose = [
        _det(0, 0, 100, 20),
        _det(0, 200, 100, 220),
        _det(300, 300, 340, 340),  # HE + DO
        _det(345, 300, 400, 318),  # CAN'T
        _det(340, 322, 398, 340),  # THAT
    ]
    strict = [_det(302, 300, 400, 319, 0.7), _det(302, 321, 398, 340, 0.7)]
    out = combine_passes(loose, strict, 1.4)
    boxes = sorted((int(d.quad[:, 0].min()), int(d.quad[:, 1].min())) for d in out)
    assert boxes == [(0, 0), (0, 200), (302, 300), (302, 321)]


def test_lines_lost_by_the_loose_pass_are_added_and_duplicates_dropped() -> None:
    loose = [_det(0, 0, 100, 20), _det(0, 200, 100, 220), _det(0, 400, 100, 420)]
    strict = [_det(500, 500, 600, 520), _det(1, 1, 99, 19)]
    out = combine_passes(loose, strict, 1.4)
    assert len(out) == 4
    assert any(int(d.quad[:, 0].min()) == 500 for d in out)
    assert len(dedupe([*out, _det(0, 0, 100, 21, 0.1)])) == 4


def test_lone_letters_that_are_no_word_are_noise() -> None:
    assert _is_noise("C") and _is_noise("...") and _is_noise("c!")
    assert not _is_noise("I") and not _is_noise("A!") and not _is_noise("7") and not _is_noise("OK")


@pytest.mark.slow
def test_a_tilted_caption_set_tight_is_found_and_read_line_by_line(engine: OcrEngine) -> None:
    # a caption lettered at a slant with little space between its lines (as the sample
    # book's first page has): the page pass merges and loses lines; turned upright they part
    from panelvox.analysis.balloons_stage import BalloonsStage

    font = ImageFont.load_default(size=28)
    rows = [
        "CHAD BILLOW, YOUNG",
        "ADVENTURER, AND HIS",
        "YOUNG SIDE-KICK, A",
        "POLYNESIAN BOY, WHOM",
        "CHAD PICKED UP AFTER",
    ]
    card = Image.new("RGB", (440, 40 + 30 * len(rows)), (250, 235, 215))
    draw = ImageDraw.Draw(card)
    for i, text in enumerate(rows):
        draw.text((20, 20 + 30 * i), text, fill="black", font=font)
    page = Image.new("RGB", (900, 700), "white")
    tilted = card.rotate(-12, expand=True, fillcolor="white", resample=Image.Resampling.BICUBIC)
    page.paste(tilted, (200, 150))
    image = np.asarray(page)
    stage = TextStage(engine)
    out = BalloonsStage()(image, stage(image, empty_analysis(image, 1, ReadingDirection.LTR)))
    said = " ".join(b.text for b in out.blocks)
    assert said == " ".join(rows), said
