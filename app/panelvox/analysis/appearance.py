"""What a speaker looks like: a small learned embedding of the figure who says a balloon.

Two balloons in different panels, or on different pages of one story, are told "same
speaker / different speaker" by what the figure they point at looks like. No detector or
embedding of drawn people ships in a package, so the project makes its own
(``scripts/train_appearance_model.py``, trained on the golden scripts' speakers with every
story held out once; its held-out figures are in the JSON sidecar and docs/benchmarks.md):

1. :func:`speaker_box`: the region of the figure who speaks a balloon: where its tail
   points, pushed a little further along the tail, else under the balloon; a box around that
   point the size of a figure, kept inside the balloon's panel;
2. :func:`figure_features`: hand-made descriptors of that region at a small fixed size, the
   text blocks painted out (colour histograms of the whole region and of three horizontal
   bands, where hair, shirt and trousers sit; a grid of mean colours; gradient-orientation
   histograms for the shape of the drawing);
3. :class:`AppearanceModel`: a linear projection learned from the speakers of the golden
   scripts (it keeps what tells one person from another and drops what varies within one
   person's appearances), L2-normalised, and a 1-D logistic fit on held-out cosine
   similarities that turns the cosine of two embeddings into calibrated log-odds.

Run time needs numpy and OpenCV only (both are run-time dependencies already).
"""

from __future__ import annotations

import functools
import json
import math
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.checksum import sha256_of
from panelvox.errors import ModelUnavailable
from panelvox.model import Balloon, BBox, Image, PageAnalysis

#: the shipped weights and their sidecar (sha256, the command that made them, held-out figures)
WEIGHTS_FILE = "data/appearance.npz"
SIDECAR_FILE = "data/appearance.json"
MODEL_FORMAT = "panelvox.appearance/1"
_MIN_TAIL = 0.4  # the speakers stage's own floor for a tail worth following

Embedding = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Region:
    """Where the speaker of a balloon is looked for. The defaults are the shipped model's,
    chosen held out by story among page- and panel-scaled boxes of several sizes and the
    figure box the speakers stage links (docs/benchmarks.md)."""

    push: float = 0.04  # how far past the tail's tip (the tip stops short of the figure)
    width: float = 0.30
    above: float = 0.08  # how much of the box lies above the anchor (the head's top)
    below: float = 0.45  # and below it (the body)
    clip_panel: bool = True  # a figure is drawn inside its balloon's panel
    #: sizes in fractions of the balloon's panel's height (a close-up's figure is big, a
    #: long shot's small), else of the page's short side
    per_panel: bool = True


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """Which hand-made descriptors make a figure's feature vector, and at what size (the
    defaults are the shipped model's)."""

    width: int = 32
    height: int = 64
    hue_bins: int = 12
    sat_bins: int = 3
    grey_bins: int = 4
    bands: int = 3  # horizontal bands with their own colour histogram (0: none)
    grid_x: int = 2  # a grid of mean Lab colours (0: none)
    grid_y: int = 4
    #: gradient-orientation histograms on cells of this many pixels (0: none; they added
    #: nothing held out on Golden Age pages, where one person is drawn at every angle)
    hog_cell: int = 0
    hog_bins: int = 9
    paint_text: bool = True


def speaker_box(analysis: PageAnalysis, block: Balloon, region: Region = Region()) -> BBox:
    """The region of the figure who speaks ``block``: around the point its tail points at
    (pushed along the tail), else under the balloon's lower edge; clipped to its panel."""
    unit = float(min(analysis.width, analysis.height))  # the sizes are fractions of it
    panel = analysis.panel(block.panel) if block.panel else None
    if region.per_panel and panel is not None:
        unit = panel.bbox.height
    tail = block.tail if block.tail is not None and block.tail.confidence >= _MIN_TAIL else None
    if tail is not None:
        rad = math.radians(tail.direction_deg)
        ax = tail.tip.x + region.push * unit * math.cos(rad)
        ay = tail.tip.y + region.push * unit * math.sin(rad)
    else:
        ax, ay = block.bbox.center.x, block.bbox.y1 + region.push * unit
    half = 0.5 * region.width * unit
    bounds = BBox(0, 0, analysis.width, analysis.height)
    if region.clip_panel and panel is not None:
        bounds = panel.bbox
    # keep the box's size where the anchor lies near a border: slide it inside, then clip
    w, h = 2 * half, (region.above + region.below) * unit
    x0 = min(max(ax - half, bounds.x0), bounds.x1 - w)
    y0 = min(max(ay - region.above * unit, bounds.y0), bounds.y1 - h)
    x0, y0 = max(x0, bounds.x0), max(y0, bounds.y0)
    x1, y1 = min(x0 + w, bounds.x1), min(y0 + h, bounds.y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return block.bbox
    return BBox(x0, y0, x1, y1)


def figure_features(
    image: Image, box: BBox, text_boxes: Sequence[BBox] = (), spec: FeatureSpec = FeatureSpec()
) -> npt.NDArray[np.float32]:
    """The hand-made descriptor vector of ``box`` (histograms square-rooted, so that
    Euclidean distances between them follow the Bhattacharyya distance)."""
    x0, y0 = max(0, int(box.x0)), max(0, int(box.y0))
    x1, y1 = min(image.shape[1], math.ceil(box.x1)), min(image.shape[0], math.ceil(box.y1))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros(feature_size(spec), np.float32)
    crop = np.ascontiguousarray(image[y0:y1, x0:x1])
    size = (spec.width, spec.height)
    small = np.asarray(cv2.resize(crop, size, interpolation=cv2.INTER_AREA), np.uint8)
    keep = np.ones((spec.height, spec.width), bool)
    if spec.paint_text:
        sx, sy = spec.width / (x1 - x0), spec.height / (y1 - y0)
        for t in text_boxes:
            tx0, ty0 = int((t.x0 - x0) * sx), int((t.y0 - y0) * sy)
            tx1, ty1 = math.ceil((t.x1 - x0) * sx), math.ceil((t.y1 - y0) * sy)
            keep[max(0, ty0) : max(0, ty1), max(0, tx0) : max(0, tx1)] = False
    parts = [_colour_hist(small, keep, spec.hue_bins, spec.sat_bins, spec.grey_bins)]
    for band in np.array_split(np.arange(spec.height), spec.bands) if spec.bands else []:
        rows = slice(int(band[0]), int(band[-1]) + 1)
        parts.append(_colour_hist(small[rows], keep[rows], 8, 2, 3))
    if spec.grid_x and spec.grid_y:
        parts.append(_lab_grid(small, keep, spec.grid_x, spec.grid_y))
    if spec.hog_cell:
        parts.append(_hog(small, keep, spec.hog_cell, spec.hog_bins))
    return np.concatenate(parts).astype(np.float32)


def feature_size(spec: FeatureSpec) -> int:
    """The length of :func:`figure_features`' vector for ``spec``."""
    n = spec.hue_bins * spec.sat_bins + spec.grey_bins + spec.bands * (8 * 2 + 3)
    if spec.grid_x and spec.grid_y:
        n += 3 * spec.grid_x * spec.grid_y
    if spec.hog_cell:
        n += (spec.width // spec.hog_cell) * (spec.height // spec.hog_cell) * spec.hog_bins
    return n


def _colour_hist(
    rgb: Image, keep: npt.NDArray[np.bool_], hue: int, sat: int, grey: int
) -> npt.NDArray[np.float32]:
    # the same split as identity.describe: chromatic pixels by hue x saturation, the rest by value
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2HSV)[keep].astype(np.int32)
    hist = np.zeros(hue * sat + grey, np.float32)
    if hsv.size == 0:
        return hist
    h, s, v = hsv[:, 0], hsv[:, 1], hsv[:, 2]
    chroma = (s > 60) & (v > 50)
    hue_bin = np.minimum(h * hue // 180, hue - 1)
    sat_bin = np.minimum((s - 60) * sat // 196, sat - 1)
    np.add.at(hist, (hue_bin * sat + sat_bin)[chroma], 1.0)
    np.add.at(hist, hue * sat + np.minimum(v * grey // 256, grey - 1)[~chroma], 1.0)
    return np.sqrt(hist / float(hist.sum()))


def _lab_grid(rgb: Image, keep: npt.NDArray[np.bool_], gx: int, gy: int) -> npt.NDArray[np.float32]:
    lab = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2LAB).astype(np.float32) / 255.0
    out = np.zeros((gy, gx, 3), np.float32)
    for i, rows in enumerate(np.array_split(np.arange(rgb.shape[0]), gy)):
        for j, cols in enumerate(np.array_split(np.arange(rgb.shape[1]), gx)):
            cell = keep[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
            if cell.any():
                out[i, j] = lab[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1][cell].mean(axis=0)
            else:
                out[i, j] = (1.0, 0.5, 0.5)  # paper: a painted-out cell looks like the page
    return out.ravel()


def _hog(rgb: Image, keep: npt.NDArray[np.bool_], cell: int, bins: int) -> npt.NDArray[np.float32]:
    grey = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=1)
    mag = np.hypot(gx, gy) * keep
    ang = np.mod(np.arctan2(gy, gx), math.pi)  # unsigned: ink on paper or paper on ink
    b = np.minimum((ang * bins / math.pi).astype(np.int64), bins - 1)
    ny, nx = rgb.shape[0] // cell, rgb.shape[1] // cell
    mag, b = mag[: ny * cell, : nx * cell], b[: ny * cell, : nx * cell]
    cy = np.arange(ny * cell)[:, None] // cell
    cx = np.arange(nx * cell)[None, :] // cell
    hist = np.zeros((ny, nx, bins), np.float32)
    np.add.at(hist, (np.broadcast_to(cy, b.shape), np.broadcast_to(cx, b.shape), b), mag)
    # each cell against its own energy: the drawing's shape, not its line weight
    hist /= np.linalg.norm(hist, axis=2, keepdims=True) + 1e-3
    return np.sqrt(hist.ravel())


def centre(embeddings: Embedding) -> Embedding:
    """One book's embeddings less their mean, L2-normalised again.

    What all of a book's figures share (its palette, its paper, the print's colour cast) says
    nothing of who is who; taking it out is what makes the embeddings of two figures
    comparable (held out by story, it moves the AUC more than the learned projection does:
    docs/benchmarks.md). Give it every dialogue balloon of the book, or of the pages read so
    far: the result depends on the set, never on the order.
    """
    if len(embeddings) < 2:
        return embeddings
    z = embeddings - embeddings.mean(axis=0, keepdims=True)
    return np.asarray(z / np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-9), np.float32)


@dataclass(frozen=True)
class AppearanceModel:
    """Figure descriptors → an L2-normalised embedding; two embeddings → log-odds of one person.

    ``mean`` and ``scale`` standardise the descriptor; ``projection`` (features × d) is the
    learned metric; ``slope`` and ``intercept`` the 1-D logistic fit of "same person" on the
    cosine of two embeddings, made on held-out stories' pairs of dialogue balloons in
    different panels of one story (``prior_log_odds`` is that population's share of
    same-person pairs, so a caller with another prior can move it).
    """

    spec: FeatureSpec
    region: Region
    mean: npt.NDArray[np.float32]
    scale: npt.NDArray[np.float32]
    projection: npt.NDArray[np.float32]
    slope: float
    intercept: float
    prior_log_odds: float = 0.0

    @property
    def dim(self) -> int:
        return int(self.projection.shape[1])

    def box(self, analysis: PageAnalysis, block: Balloon) -> BBox:
        """:func:`speaker_box` with the region the model was trained on."""
        return speaker_box(analysis, block, self.region)

    def embed(self, image: Image, boxes: Sequence[BBox], text_boxes: Sequence[BBox] = ()) -> Embedding:
        """One L2-normalised row per box (``n × dim``); ``text_boxes`` are painted out."""
        if not boxes:
            return np.zeros((0, self.dim), np.float32)
        x = np.stack([figure_features(image, b, text_boxes, self.spec) for b in boxes])
        return self.embed_features(x)

    def embed_balloons(self, image: Image, analysis: PageAnalysis, blocks: Sequence[Balloon]) -> Embedding:
        """The embeddings of the speakers of ``blocks`` (one row each, in their order): their
        :meth:`box` with every text block of the page painted out, as the model was trained."""
        text = [b.bbox for b in analysis.blocks]
        return self.embed(image, [self.box(analysis, b) for b in blocks], text)

    def embed_features(self, features: npt.NDArray[np.float32]) -> Embedding:
        """Embeddings of rows of :func:`figure_features` vectors."""
        z = ((features - self.mean) / self.scale) @ self.projection
        norm = np.linalg.norm(z, axis=1, keepdims=True)
        return np.asarray(z / np.maximum(norm, 1e-9), np.float32)

    def same_log_odds(self, a: Embedding, b: Embedding) -> float:
        """Calibrated log-odds that embeddings ``a`` and ``b`` show the same person.

        Calibrated on held-out pairs of dialogue balloons in different panels of one story,
        their embeddings passed through :func:`centre` with the rest of their story's; the
        evidence of the looks alone is this less :attr:`prior_log_odds`."""
        return float(self.slope * float(np.dot(a, b)) + self.intercept)

    def save(self, path: Path) -> None:
        """Write the weights (npz) for :meth:`load`."""
        meta = {
            "format": MODEL_FORMAT,
            "spec": asdict(self.spec),
            "region": asdict(self.region),
            "slope": self.slope,
            "intercept": self.intercept,
            "prior_log_odds": self.prior_log_odds,
        }
        arrays = {
            "meta": np.array(json.dumps(meta, sort_keys=True)),
            "mean": self.mean.astype(np.float32),
            "scale": self.scale.astype(np.float32),
            "projection": self.projection.astype(np.float32),
        }
        # an npz np.load reads, written with a fixed date: the same model, the same sha256
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, array in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with zf.open(info, "w") as fh:
                    np.lib.format.write_array(fh, array, allow_pickle=False)

    @classmethod
    def load(cls, path: Path, sha256: str | None = None) -> AppearanceModel:
        """Read weights written by :meth:`save`, checking their sha256 when given."""
        if sha256 is not None and sha256_of(path) != sha256:
            raise ModelUnavailable("the appearance model's weights fail their sha256 check", detail=str(path))
        try:
            with np.load(path, allow_pickle=False) as data:
                meta: dict[str, Any] = json.loads(str(data["meta"]))
                mean, scale, projection = data["mean"], data["scale"], data["projection"]
        except (OSError, KeyError, ValueError) as exc:
            raise ModelUnavailable(
                "the appearance model's weights cannot be read", detail=f"{path}: {exc!r}"
            ) from exc
        if meta.get("format") != MODEL_FORMAT:
            raise ModelUnavailable("the appearance model's weights are of another format", detail=str(path))
        spec = FeatureSpec(**meta["spec"])
        if mean.shape != (feature_size(spec),) or projection.shape[0] != mean.shape[0]:
            raise ModelUnavailable("the appearance model's weights do not fit its features", detail=str(path))
        return cls(
            spec=spec,
            region=Region(**meta["region"]),
            mean=mean,
            scale=scale,
            projection=projection,
            slope=float(meta["slope"]),
            intercept=float(meta["intercept"]),
            prior_log_odds=float(meta.get("prior_log_odds", 0.0)),
        )

    @staticmethod
    @functools.cache
    def shipped() -> AppearanceModel:
        """The model shipped beside this module (read once, its sha256 checked)."""
        base = resources.files("panelvox.analysis")
        sidecar = json.loads(base.joinpath(SIDECAR_FILE).read_text(encoding="utf-8"))
        with resources.as_file(base.joinpath(WEIGHTS_FILE)) as path:
            return AppearanceModel.load(Path(path), str(sidecar["sha256"]))
