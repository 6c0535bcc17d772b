"""Colour looks of figures, and clustering them into identities within a page.

No appearance-embedding model can be shipped, so the descriptor is a colour one: comic
characters keep their costume colours from panel to panel (a yellow shirt and a red kilt,
a blue hood). Each body box, with the text blocks painted out, becomes a hue × saturation
histogram of its chromatic pixels plus a coarse brightness histogram of the grey ones;
two boxes are compared with the Bhattacharyya distance. Average-linkage clustering cuts
at :data:`DEFAULT_THRESHOLD`, with one constraint that holds in comics: two figures in the
same panel are different people (a "cannot link").

Cluster ids are ``k1``, ``k2`` ... in order of first appearance on the page. The speakers
stage replaces them by persons (:mod:`panelvox.analysis.speaker_identity`), where the colour
look is one cue among many: on Golden Age pages it barely tells two speakers apart
(docs/benchmarks.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from panelvox.model import Balloon, BBox, Character

Descriptor = npt.NDArray[np.float32]
#: a Bhattacharyya distance below this joins two characters (tuned on iabc; see docs/benchmarks.md)
DEFAULT_THRESHOLD = 0.42
_HUE_BINS, _SAT_BINS, _GREY_BINS = 12, 3, 4
_APART = 10.0  # distance given to a cannot-link pair


def describe(image: npt.NDArray[np.uint8], box: BBox, text_boxes: Sequence[BBox] = ()) -> Descriptor:
    """Colour descriptor of ``box`` (L1-normalised; zeros when the box is empty)."""
    x0, y0 = max(0, int(box.x0)), max(0, int(box.y0))
    x1, y1 = min(image.shape[1], math.ceil(box.x1)), min(image.shape[0], math.ceil(box.y1))
    size = _HUE_BINS * _SAT_BINS + _GREY_BINS
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros(size, np.float32)
    crop = image[y0:y1, x0:x1]
    scale = min(1.0, 96 / max(crop.shape[:2]))
    if scale < 1:
        crop = np.asarray(cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    keep = np.ones(crop.shape[:2], bool)
    for t in text_boxes:
        tx0, ty0 = int((t.x0 - x0) * scale), int((t.y0 - y0) * scale)
        tx1, ty1 = math.ceil((t.x1 - x0) * scale), math.ceil((t.y1 - y0) * scale)
        keep[max(0, ty0) : max(0, ty1), max(0, tx0) : max(0, tx1)] = False
    hsv = cv2.cvtColor(crop, cv2.COLOR_RGB2HSV)[keep].astype(np.int32)
    if hsv.size == 0:
        return np.zeros(size, np.float32)
    h, s, v = hsv[:, 0], hsv[:, 1], hsv[:, 2]
    chroma = (s > 60) & (v > 50)
    hue_bin = np.minimum(h * _HUE_BINS // 180, _HUE_BINS - 1)
    sat_bin = np.minimum((s - 60) * _SAT_BINS // 196, _SAT_BINS - 1)
    hist = np.zeros(size, np.float32)
    np.add.at(hist, (hue_bin * _SAT_BINS + sat_bin)[chroma], 1.0)
    grey_bin = np.minimum(v * _GREY_BINS // 256, _GREY_BINS - 1)
    np.add.at(hist, _HUE_BINS * _SAT_BINS + grey_bin[~chroma], 1.0)
    total = float(hist.sum())
    return hist / total if total > 0 else hist


def distance(a: Descriptor, b: Descriptor) -> float:
    """Bhattacharyya distance of two descriptors, in [0, 1]."""
    return float(max(0.0, 1.0 - float(np.sum(np.sqrt(a * b)))))


def cluster(
    descriptors: Sequence[Descriptor],
    groups: Sequence[object],
    threshold: float = DEFAULT_THRESHOLD,
) -> list[int]:
    """Cluster labels 0, 1 ... (in order of first appearance); equal ``groups`` never share one."""
    n = len(descriptors)
    if n == 0:
        return []
    if n == 1:
        return [0]
    d = np.zeros((n, n), np.float64)
    for i in range(n):
        for j in range(i + 1, n):
            same_group = groups[i] is not None and groups[i] == groups[j]
            d[i, j] = d[j, i] = _APART if same_group else distance(descriptors[i], descriptors[j])
    raw = average_linkage_cut(d, threshold)
    first: dict[int, int] = {}
    return [first.setdefault(int(r), len(first)) for r in raw]


def average_linkage_cut(d: npt.NDArray[np.float64], threshold: float) -> list[int]:
    """Flat clusters of average-linkage (UPGMA) clustering cut at ``threshold``.

    ``d`` is a symmetric distance matrix. Two clusters merge while the smallest mean
    distance between their members is ≤ ``threshold`` (the same partition as SciPy's
    ``fcluster(linkage(..., "average"), t, "distance")``, without shipping SciPy).
    Returns one label per row; labels are arbitrary integers, equal for one cluster.
    """
    n = d.shape[0]
    work = np.array(d, dtype=np.float64, copy=True)
    np.fill_diagonal(work, np.inf)
    size = np.ones(n, np.float64)
    label = list(range(n))
    # each row's nearest neighbour, kept up to date: O(n) work per merge, not O(n²)
    nearest = np.argmin(work, axis=1)
    for _ in range(n - 1):
        i = int(np.argmin(work[np.arange(n), nearest]))
        j = int(nearest[i])
        if not work[i, j] <= threshold:
            break
        # Lance-Williams update for average linkage: j is merged into i
        merged = (size[i] * work[i] + size[j] * work[j]) / (size[i] + size[j])
        merged[i] = np.inf
        merged[j] = np.inf
        merged[np.isinf(work[i]) & np.isinf(work[j])] = np.inf  # rows already merged away
        work[i, :] = merged
        work[:, i] = merged
        work[j, :] = np.inf
        work[:, j] = np.inf
        size[i] += size[j]
        label = [label[i] if lab == label[j] else lab for lab in label]
        # rows that pointed at i or j look again; the others may now be nearest to i
        stale = (nearest == i) | (nearest == j)
        stale[i] = True
        nearest[stale] = np.argmin(work[stale], axis=1)
        closer = merged < work[np.arange(n), nearest]
        nearest[closer] = i
    return label


def page_clusters(
    image: npt.NDArray[np.uint8],
    characters: Sequence[Character],
    blocks: Sequence[Balloon] = (),
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, str]:
    """Character id -> cluster id (``k1`` ...) on one page; faces share their body's cluster."""
    bodies = sorted((c for c in characters if c.kind != "face"), key=lambda c: (c.bbox.y0, c.bbox.x0))
    text = [b.bbox for b in blocks]
    labels = cluster([describe(image, c.bbox, text) for c in bodies], [c.panel for c in bodies], threshold)
    out = {c.id: f"k{label + 1}" for c, label in zip(bodies, labels, strict=True)}
    for face in (c for c in characters if c.kind == "face"):
        body = body_of(face, bodies)
        if body is not None:
            out[face.id] = out[body.id]
    return out


def body_of(face: Character, bodies: Sequence[Character]) -> Character | None:
    """The body a face belongs to: the one holding most of it, when that is over half."""
    body = max(bodies, key=lambda b: face.bbox.coverage_by(b.bbox), default=None)
    return body if body is not None and face.bbox.coverage_by(body.bbox) > 0.5 else None
