"""The OCR engine: PP-OCR text detection and recognition run by onnxruntime.

The ONNX models are the ones that ship *inside* the PyPI ``rapidocr`` wheel
(``rapidocr/models/PP-OCRv6_*_small.onnx``). Their paths are pinned here and checked by
sha256, so nothing ever asks rapidocr to resolve (and download) a model. None of rapidocr's
code runs (its package import alone costs half a second): the detector's post-processing
is :mod:`panelvox.models.db_boxes`, and the onnxruntime sessions are ours
(:func:`panelvox.models.onnx_session.create_session`): created once per :class:`OcrEngine`,
reused for every page, on the configured device (by default CUDA when onnxruntime-gpu and a
GPU are present, else the CPU).
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.errors import ModelUnavailable
from panelvox.i18n import _
from panelvox.model import Image
from panelvox.models.ctc_beam import CtcDecoder, Lexicon
from panelvox.models.db_boxes import DbBoxes
from panelvox.models.device import Device
from panelvox.models.ocr_head import FULL, HEADS, LATIN, latin_model
from panelvox.models.ocr_quant import (
    PRECISIONS,
    QUANT_DET,
    chosen_precision,
    int8_model,
    load_made,
    model_sha256,
    models_cache_dir,
)
from panelvox.models.onnx_session import CPU, choose_providers, create_session
from panelvox.models.text_boxes import (
    Detection,
    Quad,
    _iou,
    axis_box,
    combine_passes,
    dedupe,
    merge_fragments,
)

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

__all__ = ["Detection", "OcrConfig", "OcrEngine", "Quad", "combine_passes", "dedupe", "merge_fragments"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BundledModel:
    """A model file inside the rapidocr wheel, pinned by name and sha256."""

    role: str  # "det" or "rec"
    filename: str
    sha256: str
    license: str = "Apache-2.0 (PaddleOCR)"


#: The models the rapidocr 3.x wheel bundles (checked against rapidocr 3.10's
#: default_models.yaml). Never name a model here that the wheel does not ship.
BUNDLED_DET = BundledModel(
    "det", "PP-OCRv6_det_small.onnx", "090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f"
)
BUNDLED_REC = BundledModel(
    "rec", "PP-OCRv6_rec_small.onnx", "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"
)


@dataclass(frozen=True, slots=True)
class OcrConfig:
    """Parameters of the engine, tuned for comic pages (see docs/benchmarks.md)."""

    det_model: Path | None = None  # None: the model bundled in rapidocr
    rec_model: Path | None = None
    verify_sha256: bool = True
    device: Device = Device.AUTO
    threads: int = 0  # 0: onnxruntime decides
    #: "int8": the text detector quantized on this machine (see models/ocr_quant.py) when
    #: it runs on the CPU; "fp32": the wheel's models as they are (the default; always on a
    #: GPU)
    precision: str = field(default_factory=chosen_precision)
    #: where made (int8) models are kept; None: the user's cache folder
    made_models: Path | None = None
    #: the page is scaled so its longer side is at most this for detection
    det_max_side: int = 1280
    #: ... and at least this (small scans are upscaled so lettering is not lost)
    det_min_side: int = 960
    det_thresh: float = 0.5
    det_dilation: bool = False
    #: the strict passes: higher thresholds without dilation separate lines set close together
    strict_thresh: tuple[float, ...] = (0.65, 0.8)
    #: the detector's usual pass (dilated), whose boxes are the reported outlines; 0: off
    outline_thresh: float = 0.3
    box_thresh: float = 0.5
    unclip_ratio: float = 1.6
    rec_height: int = 48
    rec_batch: int = 8
    #: at most this many pixel columns (lines x padded width) per recognition run
    rec_max_columns: int = 3200
    #: a box this many times thicker than the page's median line is re-cut from the strict
    #: pass (merged lines); 0 turns the strict pass off
    split_ratio: float = 1.4
    #: pieces of one line this close (times the line's thickness) are joined again
    merge_gap: float = 0.5
    #: crops taller than this ratio (height/width) are read as vertical columns
    vertical_ratio: float = 1.5


@dataclass(frozen=True, slots=True)
class Recognition:
    text: str
    score: float


@dataclass(slots=True)
class StepTimes:
    """Seconds spent per step, accumulated by the caller (for benchmarks)."""

    det: float = 0.0
    rec: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Head:
    """A recognition session, its input's name and the decoder of its classes."""

    session: InferenceSession
    input: str
    decoder: CtcDecoder


def rapidocr_models_dir() -> Path:
    """The folder of the ONNX models inside the installed rapidocr package."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or spec.origin is None:
        raise ModelUnavailable(
            # Translators: spoken when the text-reading component is not installed.
            _("The text reader is not installed, so text cannot be read."),
            detail="python package rapidocr is not importable",
        )
    return Path(spec.origin).parent / "models"


def _resolve(path: Path | None, bundled: BundledModel, verify: bool) -> Path:
    resolved = path if path is not None else rapidocr_models_dir() / bundled.filename
    if not resolved.is_file():
        raise ModelUnavailable(
            # Translators: spoken when a model file of the text reader is missing.
            _("A model file of the text reader is missing, so text cannot be read."),
            detail=f"{bundled.role} model not found at {resolved}",
        )
    if path is None and verify and model_sha256(resolved) != bundled.sha256:
        raise ModelUnavailable(
            # Translators: spoken when a model file of the text reader is damaged or unexpected.
            _("A model file of the text reader is damaged, so text cannot be read."),
            detail=f"sha256 of {resolved} does not match {bundled.sha256}",
        )
    return resolved


def crop_quad(image: Image, quad: Quad, *, vertical: bool) -> Image:
    """The text inside ``quad``, deskewed; vertical columns are turned to read left to right."""
    w = max(1, round(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3]))))
    h = max(1, round(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2]))))
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    crop = cv2.warpPerspective(image, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
    if vertical:
        # counter-clockwise: the top of the column becomes the left of the line
        crop = np.ascontiguousarray(np.rot90(crop))
    return np.asarray(crop, dtype=np.uint8)


class OcrEngine:
    """Detects and recognises text lines. Create once; reuse for every page.

    Thread-safety: onnxruntime sessions may be run from several threads; the engine
    keeps no per-call state.
    """

    def __init__(self, config: OcrConfig | None = None) -> None:
        self.config = config or OcrConfig()
        det_path = _resolve(self.config.det_model, BUNDLED_DET, self.config.verify_sha256)
        rec_path = _resolve(self.config.rec_model, BUNDLED_REC, self.config.verify_sha256)
        # Translators: spoken when the text reader's model cannot be loaded.
        failed = _("The text reader could not start, so text cannot be read.")
        threads = self.config.threads or None
        #: "int8" when the quantized detector is the one in use, else "fp32"
        self.precision = "fp32"
        self._optimized = (self.config.made_models or models_cache_dir()) / "optimized"

        def det_session(path: Path, kept: bool = True) -> InferenceSession:
            # a model made in a temporary folder gets no optimised copy: its name changes each time
            optimized = self._optimized if kept else None
            return create_session(
                path, self.config.device, threads=threads, message=failed, optimized_dir=optimized
            )

        det: InferenceSession | None = None
        if self._wants_int8():
            try:
                det = load_made(
                    lambda folder: int8_model(det_path, QUANT_DET, folder),
                    det_session,
                    self.config.made_models,
                )
                self.precision = "int8"
            except ModelUnavailable as exc:
                log.warning("int8 text detector not used: %s", exc.detail)
        self._det = det if det is not None else det_session(det_path)
        self._rec_path = rec_path
        #: the recognition head in use (by name; two names share it where the Latin head fell
        #: back to the full model): loaded on first use, and released when a page needs the
        #: other, so a process holds one recognition model however many books it reads
        self._heads: dict[str, _Head] = {}
        self._heads_lock = threading.Lock()
        cfg = self.config
        self._post = DbBoxes(cfg.det_thresh, cfg.box_thresh, cfg.unclip_ratio, use_dilation=cfg.det_dilation)
        self._post_strict = [DbBoxes(t, cfg.box_thresh, cfg.unclip_ratio) for t in cfg.strict_thresh]
        self._post_outline = (
            DbBoxes(cfg.outline_thresh, cfg.box_thresh, cfg.unclip_ratio, use_dilation=True)
            if cfg.outline_thresh > 0
            else None
        )
        self._det_input = self._det.get_inputs()[0].name

    def _wants_int8(self) -> bool:
        """int8 for the bundled detector on the CPU; a GPU runs the fp32 model."""
        cfg = self.config
        if cfg.precision not in PRECISIONS:
            raise ValueError(f"precision must be int8 or fp32, not {cfg.precision!r}")
        if cfg.precision != "int8" or cfg.det_model is not None:
            return False
        import onnxruntime as ort

        return choose_providers(cfg.device, ort.get_available_providers())[0] == CPU

    def _load_head(self, path: Path, kept: bool = True) -> _Head:
        """A recognition session and the decoder of its classes (from the model's metadata);
        ``kept`` False for a model made in a temporary folder (no optimised copy is kept)."""
        # Translators: spoken when the text reader's model cannot be loaded.
        failed = _("The text reader could not start, so text cannot be read.")
        session = create_session(
            path,
            self.config.device,
            threads=self.config.threads or None,
            message=failed,
            optimized_dir=self._optimized if kept else None,
        )
        meta = session.get_modelmeta().custom_metadata_map
        if "character" not in meta:
            raise ModelUnavailable(failed, detail=f"{path} carries no character list in its metadata")
        charset = ["", *meta["character"].splitlines(), " "]
        return _Head(session, session.get_inputs()[0].name, CtcDecoder(charset))

    def head(self, name: str = FULL) -> _Head:
        """The recognition head ``name`` (:data:`~panelvox.models.ocr_head.HEADS`), loaded
        on first use (the other released: one recognition model in memory); the full model
        where the Latin head cannot be made (logged) or a model other than the bundled one is
        configured."""
        if name not in HEADS:
            raise ValueError(f"head must be one of {HEADS}, not {name!r}")
        with self._heads_lock:
            if name not in self._heads:
                self._heads.clear()  # a run still using the other keeps its own reference
                head = None
                if name == LATIN and self.config.rec_model is None:
                    try:
                        head = load_made(
                            lambda folder: latin_model(self._rec_path, BUNDLED_REC.sha256, folder),
                            self._load_head,
                            self.config.made_models,
                        )
                    except ModelUnavailable as exc:
                        log.warning("Latin recognition head not used: %s", exc.detail)
                if head is None:
                    head = self._heads[FULL] = self._load_head(self._rec_path)
                self._heads[name] = head
            return self._heads[name]

    @property
    def providers(self) -> list[str]:
        """The providers the sessions actually run on (first is the one used)."""
        return list(self._det.get_providers())

    # -- detection ---------------------------------------------------------------
    def _det_size(self, h: int, w: int, min_side: int | None = None) -> tuple[int, int]:
        cfg = self.config
        smallest = cfg.det_min_side if min_side is None else min_side
        scale = 1.0
        if max(h, w) > cfg.det_max_side:
            scale = cfg.det_max_side / max(h, w)
        elif max(h, w) < smallest:
            scale = smallest / max(h, w)
        return max(32, round(h * scale / 32) * 32), max(32, round(w * scale / 32) * 32)

    def det_input(self, image: Image, min_side: int | None = None) -> npt.NDArray[np.float32]:
        """The detector's input for an RGB page: scaled (see :class:`OcrConfig`; ``min_side``
        instead of its ``det_min_side`` when given), BGR, NCHW."""
        h, w = image.shape[:2]
        rh, rw = self._det_size(h, w, min_side)
        bgr = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
        resized = cv2.resize(bgr, (rw, rh), interpolation=cv2.INTER_AREA if rw < w else cv2.INTER_LINEAR)
        x = (resized.astype(np.float32) / 255.0 - 0.5) / 0.5
        return np.ascontiguousarray(x.transpose(2, 0, 1)[np.newaxis])

    def detect(self, image: Image, *, min_side: int | None = None, outlines: bool = True) -> list[Detection]:
        """Text quadrilaterals on an RGB page, in page pixels; an image smaller than
        ``min_side`` (default: the config's ``det_min_side``) is enlarged to it first.
        ``outlines``: give each line its reported outline (:meth:`_outlines`; a caller that
        keeps only the quadrilaterals saves that pass)."""
        h, w = image.shape[:2]
        if h < 4 or w < 4:
            return []
        pred = self._det.run(None, {self._det_input: self.det_input(image, min_side)})[0]
        boxes, scores = self._post(pred, (h, w))
        dets = [
            Detection(np.asarray(b, dtype=np.float32), float(s)) for b, s in zip(boxes, scores, strict=True)
        ]
        if not self.config.det_dilation:  # words of a line may come apart without dilation
            dets = merge_fragments(dets, self.config.merge_gap)
        if self.config.split_ratio <= 0:
            return dets
        # strict passes, the stricter one re-cutting what still ran together in the other
        strict: list[Detection] = []
        for post in reversed(self._post_strict):
            boxes, scores = post(pred, (h, w))
            found = merge_fragments(
                [
                    Detection(np.asarray(b, dtype=np.float32), float(s))
                    for b, s in zip(boxes, scores, strict=True)
                ],
                self.config.merge_gap,
            )
            strict = combine_passes(found, strict, self.config.split_ratio) if strict else found
        found = combine_passes(dets, strict, self.config.split_ratio)
        return self._outlines(found, pred, (h, w)) if outlines else found

    def _outlines(
        self, dets: list[Detection], pred: npt.NDArray[np.float32], size: tuple[int, int]
    ) -> list[Detection]:
        """Give each line the outline the detector's usual pass draws around it.

        The usual pass (threshold 0.3, dilated) draws the margin its training data had around
        lines; where it found the same line (IoU > 0.5) its box is the reported outline.
        """
        if self._post_outline is None or not dets:
            return dets
        boxes, _ = self._post_outline(pred, size)
        loose = [np.asarray(b, dtype=np.float32) for b in boxes]
        axes = [axis_box(Detection(b, 0.0)) for b in loose]
        out = []
        for d in dets:
            box = axis_box(d)
            ious = [_iou(box, a) for a in axes]
            k = int(np.argmax(ious)) if ious else -1
            out.append(replace(d, outline=loose[k]) if k >= 0 and ious[k] > 0.5 else d)
        return out

    # -- recognition -------------------------------------------------------------
    def recognize(
        self,
        crops: Sequence[Image],
        lexicon: Lexicon | None = None,
        head: str = FULL,
        *,
        wanted: Sequence[bool] | None = None,
    ) -> list[Recognition]:
        """Read each RGB crop as one horizontal line of text; with ``lexicon``, a line with a
        token that is no word is decoded again by a word-aware beam search. ``head``: the
        full model, or its Latin-script classes only (:mod:`panelvox.models.ocr_head`).

        ``wanted``: read only the crops marked True (the others come back empty), each
        exactly as it reads among all of ``crops``: a crop's reading depends on the width
        its batch is padded to, so the batches are planned over every crop and only the
        wanted ones run."""
        if not crops:
            return []
        cfg = self.config
        rec = self.head(head)
        out: list[Recognition] = [Recognition("", 0.0)] * len(crops)
        ratios = [c.shape[1] / max(1, c.shape[0]) for c in crops]
        order = sorted(range(len(crops)), key=lambda i: ratios[i])
        for start in range(0, len(order), cfg.rec_batch):
            idx = order[start : start + cfg.rec_batch]
            max_ratio = max(320 / cfg.rec_height, *(ratios[i] for i in idx))
            width = math.ceil(cfg.rec_height * max_ratio)
            # wide lines run a few at a time (same padded width, so the same readings): the
            # full model's output, a score per step for each of its 18,710 classes, is most
            # of the memory a page costs
            step = max(1, cfg.rec_max_columns // width)
            for part in range(0, len(idx), step):
                run = idx[part : part + step]
                keep = [i for i in run if wanted is None or wanted[i]]
                if not keep:
                    continue
                # onnxruntime runs a batch of one through other kernels than a larger batch
                # (the scores differ in their last bits; batches of two or more agree): a
                # crop planned among others never runs alone
                rows = keep if len(keep) > 1 or len(run) == 1 else keep * 2
                batch = np.zeros((len(rows), 3, cfg.rec_height, width), dtype=np.float32)
                for k, i in enumerate(rows):
                    crop = cv2.cvtColor(crops[i], cv2.COLOR_RGB2BGR)
                    rw = min(width, max(1, math.ceil(cfg.rec_height * ratios[i])))
                    resized = cv2.resize(crop, (rw, cfg.rec_height)).astype(np.float32)
                    batch[k, :, :, :rw] = (resized.transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
                preds = rec.session.run(None, {rec.input: batch})[0]
                for k, i in enumerate(keep):
                    text, score = rec.decoder.decode(preds[k], lexicon)
                    out[i] = Recognition(text.strip(), score)
        return out
