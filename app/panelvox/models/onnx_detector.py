"""Run any ONNX detector that follows :class:`DetectorContract` with onnxruntime."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.i18n import _
from panelvox.model import BBox, Panel
from panelvox.models.detector_contract import (
    BoxFormat,
    Detection,
    DetectionClass,
    DetectorContract,
    OutputLayout,
    Resize,
)
from panelvox.models.device import Device
from panelvox.models.onnx_session import create_session

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class _Geometry:
    """How page pixels map to model input pixels: input = page * scale + pad."""

    scale_x: float
    scale_y: float
    pad_x: float
    pad_y: float


class OnnxDetector:
    """A detector model file plus its contract, on ``device`` (see :func:`create_session`)."""

    def __init__(
        self,
        path: Path,
        contract: DetectorContract,
        *,
        name: str | None = None,
        device: Device = Device.AUTO,
    ) -> None:
        self.path = path
        self.contract = contract
        self.name = name or f"onnx:{path.stem}"
        self.device = device
        self._session: InferenceSession | None = None

    def _get_session(self) -> InferenceSession:
        if self._session is None:
            self._session = create_session(
                self.path,
                self.device,
                # Translators: spoken when a detector model file cannot be loaded.
                message=_("The detection model could not be loaded."),
            )
        return self._session

    # -- the contract, step by step -------------------------------------------------------
    def preprocess(self, image: npt.NDArray[np.uint8]) -> tuple[FloatArray, _Geometry]:
        """RGB page -> NCHW float tensor, and the geometry to map boxes back."""
        c = self.contract
        h, w = image.shape[:2]
        iw, ih = c.input_size
        canvas: npt.NDArray[Any]
        if c.resize is Resize.LETTERBOX:
            s = min(iw / w, ih / h)
            nw, nh = max(1, round(w * s)), max(1, round(h * s))
            canvas = np.full((ih, iw, 3), c.pad_value, np.uint8)
            px, py = (iw - nw) // 2, (ih - nh) // 2
            canvas[py : py + nh, px : px + nw] = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR)
            geo = _Geometry(nw / w, nh / h, float(px), float(py))
        else:
            canvas = cv2.resize(image, (iw, ih), interpolation=cv2.INTER_LINEAR)
            geo = _Geometry(iw / w, ih / h, 0.0, 0.0)
        rgb: npt.NDArray[Any] = canvas[:, :, ::-1] if c.channels == "BGR" else canvas
        x: FloatArray = rgb.astype(np.float32) * np.float32(c.scale)
        x = (x - np.asarray(c.mean, np.float32)) / np.asarray(c.std, np.float32)
        return np.ascontiguousarray(x.transpose(2, 0, 1)[None]), geo

    def decode(self, output: FloatArray, geo: _Geometry, width: int, height: int) -> list[Detection]:
        """Model output -> detections in page pixels, after score threshold and NMS."""
        c = self.contract
        out: FloatArray = np.asarray(output, np.float32)
        if c.layout is OutputLayout.YOLO:
            out = out.reshape(out.shape[-2:])
            if not c.channels_last:  # (4 + C, N) -> (N, 4 + C)
                out = out.T
            boxes, scores_all = out[:, :4], out[:, 4:]
            cls = scores_all.argmax(axis=1) if scores_all.size else np.zeros(len(out), np.int64)
            scores = scores_all.max(axis=1) if scores_all.size else np.zeros(len(out), np.float32)
        else:
            out = out.reshape(-1, out.shape[-1])
            boxes, scores, cls = out[:, :4], out[:, 4], out[:, 5].astype(np.int64)
        keep = scores >= c.score_threshold
        boxes, scores, cls = boxes[keep], scores[keep], cls[keep]
        if c.box_format is BoxFormat.CXCYWH:
            boxes = np.stack(
                [
                    boxes[:, 0] - boxes[:, 2] / 2,
                    boxes[:, 1] - boxes[:, 3] / 2,
                    boxes[:, 0] + boxes[:, 2] / 2,
                    boxes[:, 1] + boxes[:, 3] / 2,
                ],
                axis=1,
            )
        if c.normalized_boxes:
            boxes = boxes * np.asarray([*c.input_size, *c.input_size], np.float32)
        # input pixels -> page pixels
        boxes = (boxes - np.asarray([geo.pad_x, geo.pad_y, geo.pad_x, geo.pad_y], np.float32)) / np.asarray(
            [geo.scale_x, geo.scale_y, geo.scale_x, geo.scale_y], np.float32
        )
        boxes = np.clip(boxes, 0, np.asarray([width, height, width, height], np.float32))
        found: list[Detection] = []
        for k in np.unique(cls):
            label = c.classes.get(int(k))
            if label is None:
                continue
            idx = np.flatnonzero(cls == k)
            for i in nms(boxes[idx], scores[idx], c.nms_iou):
                x0, y0, x1, y1 = (float(v) for v in boxes[idx[i]])
                if x1 > x0 and y1 > y0:
                    found.append(Detection(label, BBox(x0, y0, x1, y1), float(scores[idx[i]])))
        found.sort(key=lambda d: -d.score)
        return found

    def detect(self, image: npt.NDArray[np.uint8]) -> list[Detection]:
        """All detections of the classes the contract names, best first."""
        session = self._get_session()
        x, geo = self.preprocess(image)
        name = session.get_inputs()[0].name
        output = session.run(None, {name: x})[0]
        return self.decode(output, geo, image.shape[1], image.shape[0])

    def detect_panels(self, image: npt.NDArray[np.uint8]) -> tuple[Panel, ...]:
        """The panel detections as :class:`Panel` (the :class:`PanelDetector` protocol)."""
        dets = [d for d in self.detect(image) if d.label is DetectionClass.PANEL]
        return tuple(
            Panel(id=f"p{i}", bbox=d.bbox, confidence=d.score, stage=f"panels:{self.name}")
            for i, d in enumerate(sorted(dets, key=lambda d: (d.bbox.y0, d.bbox.x0)), start=1)
        )


def nms(boxes: FloatArray, scores: FloatArray, iou: float) -> list[int]:
    """Greedy non-maximum suppression; indices kept, best score first."""
    order = list(np.argsort(-scores, kind="stable"))
    if iou >= 1.0:
        return [int(i) for i in order]
    keep: list[int] = []
    while order:
        i = int(order.pop(0))
        keep.append(i)
        x0 = np.maximum(boxes[i, 0], boxes[order, 0])
        y0 = np.maximum(boxes[i, 1], boxes[order, 1])
        x1 = np.minimum(boxes[i, 2], boxes[order, 2])
        y1 = np.minimum(boxes[i, 3], boxes[order, 3])
        inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
        area_i = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
        area_o = (boxes[order, 2] - boxes[order, 0]) * (boxes[order, 3] - boxes[order, 1])
        ious = inter / np.maximum(area_i + area_o - inter, 1e-9)
        order = [j for j, v in zip(order, ious, strict=True) if v < iou]
    return keep
