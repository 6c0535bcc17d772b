"""Text boxes from the detector's probability map (the DB post-processing of PP-OCR).

The same steps, in the same order and arithmetic, as ``DBPostProcess`` in the rapidocr
wheel (``rapidocr/ch_ppocr_det/utils.py``, Apache-2.0, after PaddleOCR's), with
``score_mode="fast"``: the map is thresholded (and dilated when asked), each contour's
minimum-area rectangle is scored by the mean probability inside it, grown by
``area * unclip_ratio / perimeter`` (pyclipper, round joins) and scaled to the page. It is
ours because importing rapidocr's module pulls in its whole package (model resolver, YAML
configs, an HTTP client): half a second of every cold start, for a hundred lines.
``tests/unit/test_db_boxes.py`` checks the boxes and scores are rapidocr's, exactly.
"""

from __future__ import annotations

import math
from itertools import pairwise

import cv2
import numpy as np
import numpy.typing as npt
import pyclipper

Boxes = npt.NDArray[np.float32]  # (n, 4, 2): each box clockwise from top-left, page pixels

_MIN_SIZE = 3
_MAX_CANDIDATES = 1000


class DbBoxes:
    """Boxes and scores at one threshold of a ``(1, 1, H, W)`` probability map."""

    def __init__(
        self, thresh: float, box_thresh: float, unclip_ratio: float, *, use_dilation: bool = False
    ) -> None:
        self.thresh = thresh
        self.box_thresh = box_thresh
        self.unclip_ratio = unclip_ratio
        self.use_dilation = use_dilation

    def __call__(self, pred: npt.NDArray[np.float32], size: tuple[int, int]) -> tuple[Boxes, list[float]]:
        """The boxes found on ``pred``, in the pixels of a page of ``size`` (height, width)."""
        prob = pred[0, 0]
        mask = (prob > self.thresh).astype(np.uint8)
        if self.use_dilation:
            mask = cv2.dilate(mask, np.ones((2, 2), dtype=np.uint8))
        found, scores = self._from_bitmap(prob, mask, size)
        return _kept(found, scores, size)

    def _from_bitmap(
        self, prob: npt.NDArray[np.float32], mask: npt.NDArray[np.uint8], size: tuple[int, int]
    ) -> tuple[list[npt.NDArray[np.int32]], list[float]]:
        height, width = mask.shape
        dest_h, dest_w = size
        contours, _ = cv2.findContours(mask * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        boxes, scores = [], []
        for contour in contours[:_MAX_CANDIDATES]:
            points, short = _mini_box(contour)
            if short < _MIN_SIZE:
                continue
            score = _box_score(prob, points)
            if self.box_thresh > score:
                continue
            box, short = _mini_box(self._unclip(points))
            if short < _MIN_SIZE + 2:
                continue
            box[:, 0] = np.clip(np.round(box[:, 0] / width * dest_w), 0, dest_w)
            box[:, 1] = np.clip(np.round(box[:, 1] / height * dest_h), 0, dest_h)
            boxes.append(box.astype(np.int32))
            scores.append(score)
        return boxes, scores

    def _unclip(self, box: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
        pts = [(float(x), float(y)) for x, y in box]
        distance = _area(pts) * self.unclip_ratio / _perimeter(pts)
        offset = pyclipper.PyclipperOffset()
        offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
        return np.array(offset.Execute(distance)).reshape((-1, 1, 2))


def _area(pts: list[tuple[float, float]]) -> float:
    """The area of a closed polygon, as GEOS (shapely) computes it: shoelace about the
    first point's x."""
    ring = [*pts, pts[0]]
    x0 = ring[0][0]
    total = 0.0
    for i in range(1, len(ring) - 1):
        total += (ring[i][0] - x0) * (ring[i - 1][1] - ring[i + 1][1])
    return abs(total / 2.0)


def _perimeter(pts: list[tuple[float, float]]) -> float:
    """The length of the closed polygon's edges, as GEOS sums them."""
    ring = [*pts, pts[0]]
    total = 0.0
    for a, b in pairwise(ring):
        dx, dy = b[0] - a[0], b[1] - a[1]
        total += math.sqrt(dx * dx + dy * dy)
    return total


def _mini_box(contour: cv2.typing.MatLike) -> tuple[npt.NDArray[np.float32], float]:
    """The contour's minimum-area rectangle, clockwise from top-left, and its shorter side."""
    rect = cv2.minAreaRect(contour)
    points = sorted(cv2.boxPoints(rect), key=lambda p: p[0])
    first, fourth = (0, 1) if points[1][1] > points[0][1] else (1, 0)
    second, third = (2, 3) if points[3][1] > points[2][1] else (3, 2)
    return np.array([points[first], points[second], points[third], points[fourth]]), min(rect[1])


def _box_score(prob: npt.NDArray[np.float32], box: npt.NDArray[np.float32]) -> float:
    """The mean probability inside ``box``."""
    h, w = prob.shape
    box = box.copy()
    xmin = np.clip(np.floor(box[:, 0].min()).astype(np.int32), 0, w - 1)
    xmax = np.clip(np.ceil(box[:, 0].max()).astype(np.int32), 0, w - 1)
    ymin = np.clip(np.floor(box[:, 1].min()).astype(np.int32), 0, h - 1)
    ymax = np.clip(np.ceil(box[:, 1].max()).astype(np.int32), 0, h - 1)
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    box[:, 0] -= xmin
    box[:, 1] -= ymin
    cv2.fillPoly(mask, [box.reshape(-1, 2).astype(np.int32)], 1)
    return float(cv2.mean(prob[ymin : ymax + 1, xmin : xmax + 1], mask)[0])


def _kept(
    boxes: list[npt.NDArray[np.int32]], scores: list[float], size: tuple[int, int]
) -> tuple[Boxes, list[float]]:
    """Boxes ordered clockwise and clipped to the page; those 3 pixels thin or less dropped."""
    height, width = size
    kept, kept_scores = [], []
    for box, score in zip(boxes, scores, strict=True):
        quad = _clockwise(box)
        quad[:, 0] = np.trunc(np.clip(quad[:, 0], 0, width - 1))
        quad[:, 1] = np.trunc(np.clip(quad[:, 1], 0, height - 1))
        if int(np.linalg.norm(quad[0] - quad[1])) <= 3 or int(np.linalg.norm(quad[0] - quad[3])) <= 3:
            continue
        kept.append(quad)
        kept_scores.append(score)
    return np.array(kept, dtype=np.float32).reshape(-1, 4, 2), kept_scores


def _clockwise(pts: npt.NDArray[np.int32]) -> npt.NDArray[np.float32]:
    """Top-left, top-right, bottom-right, bottom-left (imutils' order_points)."""
    by_x = pts[np.argsort(pts[:, 0]), :]
    left, right = by_x[:2, :], by_x[2:, :]
    tl, bl = left[np.argsort(left[:, 1]), :]
    tr, br = right[np.argsort(right[:, 1]), :]
    return np.array([tl, tr, br, bl], dtype=np.float32)
