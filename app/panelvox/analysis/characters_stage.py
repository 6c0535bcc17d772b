"""The "characters" stage: find the people (bodies and faces) in each panel.

No pretrained comic character detector can be shipped, so the default detector is
classical and built from cues a CPU can afford (see docs/benchmarks.md for its numbers):

1. **faces**: OpenCV's bundled Haar cascade (``haarcascade_frontalface_alt2``, part of
   opencv-python-headless) on a grey, equalised copy of the page with the text blocks
   painted out; a face becomes a body box by typical comic proportions (about two faces
   wide, down to the panel's bottom or six and a half faces, whichever comes first), cut
   short where a lower face in front hides it;
2. **speech anchors**: a speech balloon is drawn next to its speaker, so where no face
   explains it, the point its tail points at (or the middle of its lower edge when no tail
   was found) anchors a figure below it; nearby anchors in a panel are one figure, and a
   figure already standing under most of a tailless balloon accounts for it;
3. **ink figures**: a panel without faces or balloons gets the largest solid block of
   non-paper ink below its captions, when there is one.

Each box has a confidence (cascade level weight, tail confidence, ink fill). Detectors
follow :class:`CharacterDetector`; :class:`OnnxCharacterDetector` wraps any model that
follows the ONNX detector contract (a YOLO-format comic character/face model the user
exports), so it replaces the classical one without other changes. The stage then gives
every character an identity cluster within the page (:mod:`panelvox.analysis.identity`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.analysis.identity import page_clusters
from panelvox.model import BalloonKind, BBox, Character, Image, PageAnalysis, Panel, Point, panel_of
from panelvox.models.detector_contract import DetectionClass
from panelvox.models.onnx_detector import OnnxDetector, nms

log = logging.getLogger(__name__)

STAGE = "characters"
_FACE_CASCADE = "haarcascade_frontalface_alt2.xml"


class CharacterDetector(Protocol):
    """Anything that finds characters on a page; ``analysis`` holds panels and blocks."""

    #: short stable name recorded as ``characters:<name>`` in ``PageAnalysis.stages``
    name: str

    def detect_characters(self, image: Image, analysis: PageAnalysis) -> tuple[Character, ...]: ...


@dataclass(frozen=True, slots=True)
class CharacterParams:
    """Tuning of the classical detector (fractions of the panel unless named otherwise)."""

    work_size: int = 600  # longer side of the copy the cascade scans: faces from ~3 % of it are found
    face_scale_factor: float = 1.15
    face_min_neighbors: int = 3
    face_min: float = 0.022  # smallest face side, share of the page's longer side
    face_max: float = 0.45  # largest face side, share of the panel's shorter side
    body_width: float = 1.3  # body box width in face widths, at least ...
    figure_width: float = 0.16  # ... and at least this share of the page's shorter side
    body_height: float = 6.5  # ... height below the face top in face heights
    anchor_merge: float = 0.12  # anchors closer than this (share of panel width) are one figure
    anchor_push: float = 0.02  # a tail tip is moved this share of the panel along its direction
    # A tail's sideways lean (cosine of its direction): up to lean_dead (about 17 degrees off
    # vertical) it is noise and the figure stands under the tip; from lean_full on (about 37
    # degrees) the head the tail points at is beside the tip: the figure is half a figure over.
    lean_dead: float = 0.3
    lean_full: float = 0.6
    ink_threshold: float = 40.0  # Lab distance from the paper colour that counts as ink
    ink_min_area: float = 0.04  # an ink figure covers at least this share of its panel
    nms_iou: float = 0.5


class ClassicalCharacterDetector:
    """Faces (Haar cascade), speech anchors and ink figures; CPU only, no model file."""

    name = "classical"

    def __init__(self, params: CharacterParams | None = None, cascade: Path | None = None) -> None:
        self.params = params or CharacterParams()
        self._cascade_path = cascade
        self._cascade: Any = None
        self._cascade_missing = False

    def _face_cascade(self) -> Any:
        if self._cascade is None and not self._cascade_missing:
            path = self._cascade_path or Path(cv2.data.haarcascades) / _FACE_CASCADE  # type: ignore[attr-defined]
            cascade = cv2.CascadeClassifier(str(path)) if path.is_file() else None
            if cascade is None or cascade.empty():
                log.warning("face cascade %s is missing; characters come from balloons only", path)
                self._cascade_missing = True
            else:
                self._cascade = cascade
        return self._cascade

    def detect_characters(self, image: Image, analysis: PageAnalysis) -> tuple[Character, ...]:
        h, w = image.shape[:2]
        if h < 16 or w < 16:
            return ()
        p = self.params
        regions = list(analysis.panels) or [Panel("", BBox(0, 0, w, h), 1.0, STAGE)]
        text_boxes = [b.bbox for b in analysis.blocks]
        faces = self.detect_faces(image, text_boxes)
        found: list[tuple[BBox, float, str, str | None]] = []  # box, score, kind, panel
        for region in regions:
            pb = region.bbox
            pid = region.id or None
            in_panel = [f for f in faces if pb.contains_point(f[0].center)]
            kept = [(f, s) for f, s in in_panel if f.height <= p.face_max * min(pb.width, pb.height) * 1.6]
            found.extend((face, score, "face", pid) for face, score in kept)
            bodies = _occluded(
                [(_body_from_face(face, pb, min(w, h), p), score) for face, score in kept],
                [f for f, _ in kept],
            )
            for anchor, score, lean, span in _anchors(analysis, region, p):
                if any(_explains(body, anchor, span) for body, _ in bodies):
                    continue
                box = _body_from_anchor(anchor, lean, pb, min(w, h), p)
                bodies.append((_beside(box, anchor, [b for b, _ in bodies], pb), score))
            if not bodies:
                ink = _ink_figure(image, pb, text_boxes, p)
                if ink is not None:
                    bodies.append(ink)
            found.extend((b, s, "body", pid) for b, s in bodies)
        return _finish(found, p.nms_iou)

    def detect_faces(self, image: Image, text_boxes: Sequence[BBox]) -> list[tuple[BBox, float]]:
        """Faces on the page (text painted out), in page pixels, with a confidence."""
        cascade = self._face_cascade()
        if cascade is None:
            return []
        p = self.params
        h, w = image.shape[:2]
        scale = min(1.0, p.work_size / max(h, w))
        grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        for b in text_boxes:  # lettering makes face-like false positives
            grey[int(b.y0) : math.ceil(b.y1), int(b.x0) : math.ceil(b.x1)] = 255
        small = (
            cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else grey
        )
        small = cv2.equalizeHist(small)
        side = max(20, round(p.face_min * max(h, w) * scale))
        boxes, _levels, weights = cascade.detectMultiScale3(
            small,
            scaleFactor=p.face_scale_factor,
            minNeighbors=p.face_min_neighbors,
            minSize=(side, side),
            outputRejectLevels=True,
        )
        out = []
        for (x, y, bw, bh), weight in zip(boxes, np.ravel(weights), strict=False):
            conf = 1.0 / (1.0 + math.exp(-(float(weight) - 1.0)))  # level weight ~0..5 -> 0.27..0.98
            out.append((BBox(x / scale, y / scale, (x + bw) / scale, (y + bh) / scale), conf))
        return out


class OnnxCharacterDetector:
    """A user-supplied ONNX model (``character`` and/or ``face`` classes) as a character detector."""

    def __init__(self, detector: OnnxDetector) -> None:
        self.detector = detector
        self.name = detector.name

    def detect_characters(self, image: Image, analysis: PageAnalysis) -> tuple[Character, ...]:
        found: list[tuple[BBox, float, str, str | None]] = []
        for d in self.detector.detect(image):
            if d.label is DetectionClass.CHARACTER:
                found.append((d.bbox, d.score, "body", panel_of(d.bbox, analysis.panels)))
            elif d.label is DetectionClass.FACE:
                found.append((d.bbox, d.score, "face", panel_of(d.bbox, analysis.panels)))
        return _finish(found, 1.0)  # the runner already applied the contract's NMS


class CharactersStage:
    """The ``characters`` stage: one detector, then identity clusters within the page."""

    name = STAGE

    def __init__(self, detector: CharacterDetector | None = None) -> None:
        self.detector: CharacterDetector = detector or ClassicalCharacterDetector()

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        chars = self.detector.detect_characters(image, analysis)
        stage = f"{STAGE}:{self.detector.name}"
        chars = tuple(replace(c, stage=stage) for c in chars)
        clusters = page_clusters(image, chars, analysis.blocks)
        chars = tuple(replace(c, cluster=clusters.get(c.id)) for c in chars)
        return replace(analysis, characters=chars, stages=(*analysis.stages, stage))


# -- helpers ----------------------------------------------------------------------------


def _finish(found: Sequence[tuple[BBox, float, str, str | None]], iou: float) -> tuple[Character, ...]:
    """NMS per kind, then ids c1, c2 ... (bodies) and f1, f2 ... (faces) in page order."""
    out: list[Character] = []
    for kind, prefix in (("body", "c"), ("face", "f")):
        items = [f for f in found if f[2] == kind]
        if not items:
            continue
        boxes = np.array([f[0].to_list() for f in items], np.float32)
        scores = np.array([f[1] for f in items], np.float32)
        kept = sorted((items[i] for i in nms(boxes, scores, iou)), key=lambda f: (f[0].y0, f[0].x0))
        for k, (box, score, _, pid) in enumerate(kept, start=1):
            conf = min(1.0, max(0.0, float(score)))
            out.append(
                Character(id=f"{prefix}{k}", bbox=box, confidence=conf, stage=STAGE, panel=pid, kind=kind)
            )
    return tuple(out)


def _clip(box: tuple[float, float, float, float], pb: BBox) -> BBox | None:
    x0, y0, x1, y1 = max(box[0], pb.x0), max(box[1], pb.y0), min(box[2], pb.x1), min(box[3], pb.y1)
    return BBox(x0, y0, x1, y1) if x1 - x0 > 4 and y1 - y0 > 4 else None


def _body_from_face(face: BBox, pb: BBox, page_short: float, p: CharacterParams) -> BBox:
    # Figures in comics are drawn at a fairly constant width on the page (about a sixth of
    # its shorter side, whatever the shot); a big face is a close-up and sets its own width.
    c = face.center
    half = max(p.body_width * face.width, p.figure_width * page_short) / 2
    half = min(half, pb.width / 2)
    box = (c.x - half, face.y0 - 0.45 * face.height, c.x + half, face.y0 + p.body_height * face.height)
    return _clip(box, pb) or face


def _occluded(bodies: list[tuple[BBox, float]], faces: Sequence[BBox]) -> list[tuple[BBox, float]]:
    """Cut the body of a face that another, lower face stands in front of.

    Two faces over each other in one panel: the lower one is nearer the viewer and hides
    the body of the higher one from a little below its own chin.
    """
    out = []
    for k, (body, score) in enumerate(bodies):
        y1, face = body.y1, faces[k]
        for j, front in enumerate(faces):
            if j == k or front.y0 < face.y0 + 0.3 * face.height or front.y0 > face.y1 + face.height:
                continue
            if min(body.x1, front.x1) - max(body.x0, front.x0) > 0.3 * front.width:
                y1 = min(y1, front.y1 + 0.5 * front.height)
        out.append((BBox(body.x0, body.y0, body.x1, max(y1, face.y1)), score))
    return out


def _explains(body: BBox, anchor: Point, span: BBox | None = None) -> bool:
    """A body box accounts for a speech anchor above or inside its middle.

    ``span`` is the balloon of an anchor without a tail: its speaker may stand under any
    part of it, so a figure under most of a body's width accounts for it too (a wide
    balloon must not invent a second figure beside the one it was written for).
    """
    if abs(anchor.x - body.center.x) < 0.35 * body.width and anchor.y <= body.y1:
        return True
    if span is None or body.y1 <= span.y1:
        return False
    overlap = min(span.x1, body.x1) - max(span.x0, body.x0)
    return overlap > 0.5 * body.width


def _anchors(
    analysis: PageAnalysis, panel: Panel, p: CharacterParams
) -> list[tuple[Point, float, float, BBox | None]]:
    """Points where speakers of the panel's balloons probably stand, nearby ones merged.

    Each comes with a score, a sideways lean (-1 left .. 1 right) and, for a balloon
    without a tail, the balloon's box (its speaker may stand under any part of it).
    """
    pb = panel.bbox
    points: list[tuple[Point, float, float, BBox | None]] = []
    for b in analysis.blocks:
        if b.kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
            continue
        if (panel.id and b.panel != panel.id) or (not panel.id and not pb.contains_point(b.bbox.center)):
            continue
        if b.tail is not None:
            push = p.anchor_push * max(pb.width, pb.height)
            rad = math.radians(b.tail.direction_deg)
            pt = Point(b.tail.tip.x + push * math.cos(rad), b.tail.tip.y + push * math.sin(rad))
            score = 0.3 + 0.35 * b.tail.confidence
            lean, span = math.cos(rad), None
        else:
            pt = Point(b.bbox.center.x, b.bbox.y1)
            score, lean, span = 0.3, 0.0, b.bbox
        clipped = Point(min(max(pt.x, pb.x0), pb.x1 - 1), min(max(pt.y, pb.y0), pb.y1 - 1))
        points.append((clipped, score, lean, span))
    merged: list[tuple[Point, float, float, BBox | None]] = []
    for pt, score, lean, span in sorted(points, key=lambda ps: -ps[1]):
        near = next((k for k, m in enumerate(merged) if abs(m[0].x - pt.x) < p.anchor_merge * pb.width), None)
        if near is None:
            merged.append((pt, score, lean, span))
        else:
            q, s, ql, qspan = merged[near]
            merged[near] = (q, min(0.9, s + 0.1), ql, qspan)
    return merged


def _body_from_anchor(anchor: Point, lean: float, pb: BBox, page_short: float, p: CharacterParams) -> BBox:
    half = min(p.figure_width * page_short, pb.width) / 2
    # a slanted tail: the figure lies further that way; a tail pointing roughly down (within
    # about 17° of vertical) ends over the head, and its measured slant is mostly noise
    shift = min(1.0, max(0.0, abs(lean) - p.lean_dead) / (p.lean_full - p.lean_dead))
    cx = anchor.x + math.copysign(shift, lean) * half
    # a tail pointing at the panel's edge: the figure stands at the edge, whole, not a sliver
    cx = min(max(cx, pb.x0 + half), pb.x1 - half)
    box = (cx - half, anchor.y, cx + half, pb.y1)
    if anchor.y > pb.y0 + 0.75 * pb.height:  # tail points low: the figure is beside, not below
        box = (cx - half, pb.y0 + 0.35 * pb.height, cx + half, pb.y1)
    return _clip(box, pb) or pb


def _beside(box: BBox, anchor: Point, others: Sequence[BBox], pb: BBox) -> BBox:
    """Slide an anchored box off a figure it overlaps, keeping the anchor inside it."""
    for other in others:
        if box.intersection(other) < 0.25 * box.area:
            continue
        w = box.width
        if anchor.x <= other.center.x:
            x1 = max(anchor.x + 0.1 * w, min(box.x1, other.x0 + 0.1 * w))
            box = BBox(max(pb.x0, x1 - w), box.y0, x1, box.y1)
        else:
            x0 = min(anchor.x - 0.1 * w, max(box.x0, other.x1 - 0.1 * w))
            box = BBox(x0, box.y0, min(pb.x1, x0 + w), box.y1)
    return box


def _ink_figure(
    image: Image, pb: BBox, text_boxes: Sequence[BBox], p: CharacterParams
) -> tuple[BBox, float] | None:
    """The largest solid ink component of a panel (text removed), if it is figure-sized."""
    x0, y0, x1, y1 = int(pb.x0), int(pb.y0), math.ceil(pb.x1), math.ceil(pb.y1)
    crop = image[y0:y1, x0:x1]
    if crop.size == 0:
        return None
    scale = min(1.0, 200 / max(crop.shape[:2]))
    small = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else crop
    lab = cv2.cvtColor(small, cv2.COLOR_RGB2LAB).astype(np.float32)
    paper = np.median(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]), axis=0)
    ink: npt.NDArray[np.uint8] = (np.linalg.norm(lab - paper, axis=2) > p.ink_threshold).astype(np.uint8)
    for b in text_boxes:
        bx0, by0 = int((b.x0 - x0) * scale), int((b.y0 - y0) * scale)
        bx1, by1 = math.ceil((b.x1 - x0) * scale), math.ceil((b.y1 - y0) * scale)
        ink[max(0, by0) : max(0, by1), max(0, bx0) : max(0, bx1)] = 0
    k = max(3, round(0.03 * max(small.shape[:2])))
    ink = np.asarray(cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)), np.uint8)
    n, _labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    sx, sy, sw, sh, area = (int(v) for v in stats[i])
    panel_area = ink.shape[0] * ink.shape[1]
    if sw * sh < p.ink_min_area * panel_area or sw * sh > 0.9 * panel_area:
        return None  # nothing figure-sized, or the whole panel is painted (no figure apart)
    box = BBox(x0 + sx / scale, y0 + sy / scale, x0 + (sx + sw) / scale, y0 + (sy + sh) / scale)
    return box, 0.2 + 0.3 * area / (sw * sh)
