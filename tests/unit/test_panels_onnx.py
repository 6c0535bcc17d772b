"""The ONNX detector contract, exercised with tiny real ONNX models built by the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from panelvox.analysis.panels_stage import PanelStage
from panelvox.analysis.pipeline import empty_analysis
from panelvox.errors import ModelUnavailable
from panelvox.model import BBox, ReadingDirection
from panelvox.models.detector_contract import (
    BoxFormat,
    DetectionClass,
    DetectorContract,
    OutputLayout,
    Resize,
)
from panelvox.models.onnx_detector import OnnxDetector, nms

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def yolo_model(path: Path, size: int, rows: np.ndarray) -> None:
    """A model whose output is (1, 4 + C, N): fixed rows plus a score row derived from the input
    (the mean of the image), so preprocessing reaches the output."""
    n = rows.shape[1]
    const = numpy_helper.from_array(rows.astype(np.float32)[None], "rows")
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),  # scalar mean of the input
        helper.make_node("Reshape", ["m", "one_shape"], ["m1"]),
        helper.make_node("Mul", ["rows", "mask"], ["masked"]),  # zero the first class score row
        helper.make_node("Mul", ["m1", "onehot"], ["score"]),  # put the mean there instead
        helper.make_node("Add", ["masked", "score"], ["output"]),
    ]
    c = rows.shape[0]
    mask = np.ones((1, c, n), np.float32)
    mask[0, 4, 0] = 0.0
    onehot = np.zeros((1, c, n), np.float32)
    onehot[0, 4, 0] = 1.0
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, c, n])],
        initializer=[
            const,
            numpy_helper.from_array(np.array([1], np.int64), "one_shape"),
            numpy_helper.from_array(mask, "mask"),
            numpy_helper.from_array(onehot, "onehot"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_yolo_letterbox_decode_nms_and_rescale(tmp_path: Path) -> None:
    size = 64
    # cx, cy, w, h in input pixels; then class scores (panel, character)
    rows = np.array(
        [
            [32, 20, 40, 16, 33, 50],  # cx
            [16, 40, 20, 16, 17, 40],  # cy
            [40, 20, 16, 8, 40, 10],  # w
            [16, 16, 8, 8, 16, 10],  # h
            [0.0, 0.8, 0.1, 0.0, 0.6, 0.0],  # panel score (box 0 gets the input mean)
            [0.0, 0.0, 0.0, 0.9, 0.0, 0.1],  # character score
        ],
        np.float32,
    )
    path = tmp_path / "tiny.onnx"
    yolo_model(path, size, rows)
    contract = DetectorContract(
        input_size=(size, size),
        resize=Resize.LETTERBOX,
        scale=1 / 255,
        layout=OutputLayout.YOLO,
        box_format=BoxFormat.CXCYWH,
        classes={0: DetectionClass.PANEL, 1: DetectionClass.CHARACTER},
        score_threshold=0.3,
        nms_iou=0.5,
    )
    det = OnnxDetector(path, contract)
    # a 256 x 128 page (w x h): letterboxed to 64 x 32 with 16 px of padding above and below
    image = np.full((128, 256, 3), 204, np.uint8)
    found = det.detect(image)
    labels = sorted((d.label.value, round(d.score, 2)) for d in found)
    # box 0 scored by the input mean (letterbox pad 114 and page 204, scaled): about 0.63;
    # box 4 overlaps box 0 and is suppressed; box 2 and 5 are under the threshold
    mean = (204 * 32 * 64 + 114 * 32 * 64) / (64 * 64) / 255
    assert labels == sorted([("panel", round(mean, 2)), ("panel", 0.8), ("character", 0.9)])
    box0 = next(d for d in found if d.label is DetectionClass.PANEL and d.score < 0.7)
    # input (12, 8)-(52, 24) minus pad (0, 16), times 4 -> page (48, -32)-(208, 32), clipped at 0
    assert box0.bbox.iou(BBox(48, 0, 208, 32)) > 0.99
    panels = det.detect_panels(image)
    assert len(panels) == 2 and all(p.stage == "panels:onnx:tiny" for p in panels)
    after = PanelStage(det)(image, empty_analysis(image, 1, ReadingDirection.LTR))
    assert after.stages == ("panels:onnx:tiny",) and len(after.panels) == 2


def test_box_score_class_layout_normalized_xyxy_stretch_bgr(tmp_path: Path) -> None:
    out = np.array(
        [[[0.1, 0.2, 0.5, 0.6, 0.9, 0], [0.5, 0.5, 0.9, 0.9, 0.7, 2], [0, 0, 1, 1, 0.95, 7]]], np.float32
    )
    graph = helper.make_graph(
        [helper.make_node("Identity", ["boxes"], ["output"])],
        "fixed",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, 6])],
        initializer=[numpy_helper.from_array(out, "boxes")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = tmp_path / "fixed.onnx"
    onnx.save(model, str(path))
    contract = DetectorContract(
        input_size=(32, 32),
        resize=Resize.STRETCH,
        channels="BGR",
        mean=(0.485, 0.456, 0.406),
        std=(0.229, 0.224, 0.225),
        layout=OutputLayout.BOX_SCORE_CLASS,
        box_format=BoxFormat.XYXY,
        normalized_boxes=True,
        classes={0: DetectionClass.PANEL, 2: DetectionClass.TEXT},  # class 7 is not ours
        nms_iou=1.0,
    )
    det = OnnxDetector(path, contract, name="fixed")
    image = np.zeros((200, 100, 3), np.uint8)
    image[:, :, 0] = 255  # red page: BGR puts it last
    x, _ = det.preprocess(image)
    assert x.shape == (1, 3, 32, 32)
    assert np.allclose(x[0, 2], (1.0 - 0.406) / 0.225) and np.allclose(x[0, 0], (0.0 - 0.485) / 0.229)
    found = det.detect(image)
    assert [(d.label, d.bbox.to_list()) for d in found] == [
        (DetectionClass.PANEL, [10.0, 40.0, 50.0, 120.0]),
        (DetectionClass.TEXT, [50.0, 100.0, 90.0, 180.0]),
    ]


def test_nms_keeps_best_of_overlapping() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30]], np.float32)
    assert nms(boxes, np.array([0.5, 0.9, 0.4], np.float32), 0.5) == [1, 2]


def test_missing_model_is_a_domain_error(tmp_path: Path) -> None:
    det = OnnxDetector(tmp_path / "nope.onnx", DetectorContract())
    with pytest.raises(ModelUnavailable):
        det.detect(np.zeros((10, 10, 3), np.uint8))


def test_contract_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        DetectorContract(channels="GBR")
