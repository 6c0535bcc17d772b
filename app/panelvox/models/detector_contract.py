"""The detector contract: what an ONNX object detector must look like to join Panelvox.

A user-supplied model (panels, characters, faces, text) is described by a
:class:`DetectorContract`: input size and resize mode, normalisation, channel order and the
layout of its output. :class:`panelvox.models.onnx_detector.OnnxDetector` runs any model
that fits it. Every detector, classical or learned, produces the project's own types, so a
stage does not care which one it was given (:class:`PanelDetector`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

import numpy as np
import numpy.typing as npt

from panelvox.model import BBox, Panel


class DetectionClass(Enum):
    """What a detected box is, in Panelvox terms."""

    PANEL = "panel"
    CHARACTER = "character"
    FACE = "face"
    TEXT = "text"


class Resize(Enum):
    LETTERBOX = "letterbox"  # keep aspect ratio, pad to the input size (YOLO)
    STRETCH = "stretch"  # resize to the input size, aspect ratio lost


class BoxFormat(Enum):
    XYXY = "xyxy"
    CXCYWH = "cxcywh"


class OutputLayout(Enum):
    #: one tensor (1, 4 + C, N) as Ultralytics exports it (YOLOv8+), or (1, N, 4 + C) with
    #: ``DetectorContract.channels_last``: a box then one score per class
    YOLO = "yolo"
    #: one tensor (1, N, 6) or (N, 6): box, score, class index (models with NMS inside)
    BOX_SCORE_CLASS = "box-score-class"


@dataclass(frozen=True, slots=True)
class DetectorContract:
    """How to feed a detector and read what it returns."""

    input_size: tuple[int, int] = (640, 640)  # width, height
    resize: Resize = Resize.LETTERBOX
    pad_value: int = 114
    channels: str = "RGB"  # or "BGR"
    scale: float = 1 / 255  # pixel values are multiplied by this ...
    mean: tuple[float, float, float] = (0.0, 0.0, 0.0)  # ... then this is subtracted ...
    std: tuple[float, float, float] = (1.0, 1.0, 1.0)  # ... and the result divided by this
    layout: OutputLayout = OutputLayout.YOLO
    channels_last: bool = False  # YOLO layout only: (1, N, 4 + C) instead of (1, 4 + C, N)
    box_format: BoxFormat = BoxFormat.CXCYWH
    normalized_boxes: bool = False  # boxes in [0, 1] of the input instead of input pixels
    #: class index -> what it means here; indices not listed are ignored
    classes: dict[int, DetectionClass] = field(default_factory=lambda: {0: DetectionClass.PANEL})
    score_threshold: float = 0.25
    nms_iou: float = 0.5  # 1.0 turns NMS off (the model does its own)

    def __post_init__(self) -> None:
        if self.channels not in ("RGB", "BGR"):
            raise ValueError(f"channels must be RGB or BGR, not {self.channels!r}")
        if min(self.input_size) < 1 or min(self.std) <= 0:
            raise ValueError("input size and std must be positive")


@dataclass(frozen=True, slots=True)
class Detection:
    """One box a detector found, in page pixel coordinates."""

    label: DetectionClass
    bbox: BBox
    score: float


class PanelDetector(Protocol):
    """Anything that finds panels on an RGB page image (classical or a model)."""

    #: short stable name recorded as ``panels:<name>`` in ``PageAnalysis.stages``
    name: str

    def detect_panels(self, image: npt.NDArray[np.uint8]) -> tuple[Panel, ...]: ...
