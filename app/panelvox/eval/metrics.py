"""Detection, OCR and reading-order metrics: pure functions over boxes and sequences.

Matching
    One-to-one matching of predicted to true boxes is *maximum-cardinality* assignment by
    the Hungarian algorithm (scipy ``linear_sum_assignment``): pairs under the IoU threshold
    are forbidden, the number of matched pairs is maximised first and their summed IoU
    second. Unlike greedy matching this never loses a match because an earlier pair took
    the box a later one needed. AP uses COCO's own greedy-by-confidence matching, since
    the precision/recall curve is defined by that ranking.

Counts are returned as :class:`Counts` so a dataset's numbers are summed over pages
(micro average) before precision and recall are taken.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from panelvox.eval.text_norm import ned, normalize
from panelvox.model import BBox

#: IoU for detection (COCO/CoMix: a match needs IoU ≥ 0.5).
DETECTION_IOU = 0.5
#: ICDAR/MangaOCR: a match needs IoU strictly above 0.5.
OCR_IOU = 0.5
#: MangaOCR drops a text segment repeated more than this many times on a page.
MAX_REPEATS = 10


@dataclass(frozen=True, slots=True)
class Counts:
    """True positives, number of predictions and number of ground-truth items."""

    tp: int
    n_pred: int
    n_true: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.n_pred + other.n_pred, self.n_true + other.n_true)

    @property
    def precision(self) -> float:
        return self.tp / self.n_pred if self.n_pred else (1.0 if self.n_true == 0 else 0.0)

    @property
    def recall(self) -> float:
        return self.tp / self.n_true if self.n_true else (1.0 if self.n_pred == 0 else 0.0)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def iou_matrix(pred: Sequence[BBox], true: Sequence[BBox]) -> np.ndarray:
    """IoU of every predicted box (rows) with every true box (columns)."""
    if not pred or not true:
        return np.zeros((len(pred), len(true)))
    p = np.array([[b.x0, b.y0, b.x1, b.y1] for b in pred], dtype=float)
    t = np.array([[b.x0, b.y0, b.x1, b.y1] for b in true], dtype=float)
    w = np.clip(np.minimum(p[:, None, 2], t[None, :, 2]) - np.maximum(p[:, None, 0], t[None, :, 0]), 0, None)
    h = np.clip(np.minimum(p[:, None, 3], t[None, :, 3]) - np.maximum(p[:, None, 1], t[None, :, 1]), 0, None)
    inter = w * h
    area_p = (p[:, 2] - p[:, 0]) * (p[:, 3] - p[:, 1])
    area_t = (t[:, 2] - t[:, 0]) * (t[:, 3] - t[:, 1])
    union = area_p[:, None] + area_t[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def match_boxes(
    pred: Sequence[BBox], true: Sequence[BBox], *, threshold: float = DETECTION_IOU, strict: bool = False
) -> list[tuple[int, int]]:
    """One-to-one matches ``(pred index, true index)`` with IoU ≥ threshold (> if ``strict``)."""
    ious = iou_matrix(pred, true)
    if ious.size == 0:
        return []
    allowed = ious > threshold if strict else ious >= threshold
    if not allowed.any():
        return []
    # a big bonus per allowed pair makes the count dominate; IoU breaks ties
    bonus = float(len(pred) + len(true) + 1)
    cost = np.where(allowed, -(bonus + ious), 0.0)
    rows, cols = linear_sum_assignment(cost)
    return sorted((int(r), int(c)) for r, c in zip(rows, cols, strict=True) if allowed[r, c])


def detection_counts(pred: Sequence[BBox], true: Sequence[BBox], threshold: float = DETECTION_IOU) -> Counts:
    """Counts for precision/recall/F1 at IoU ≥ threshold with one-to-one matching."""
    return Counts(len(match_boxes(pred, true, threshold=threshold)), len(pred), len(true))


def average_precision(
    pages: Sequence[tuple[Sequence[tuple[BBox, float]], Sequence[BBox]]], threshold: float = DETECTION_IOU
) -> float:
    """COCO-style AP at one IoU threshold over many pages, all-point interpolation.

    ``pages`` holds, per page, the predictions as (box, confidence) and the true boxes.
    Predictions of all pages are ranked by confidence; each takes the unmatched true box of
    its page with the highest IoU ≥ threshold, else it is a false positive. AP is the area
    under the precision/recall curve after making precision monotonically non-increasing.
    Returns NaN when there is no true box at all.
    """
    n_true = sum(len(t) for _, t in pages)
    if n_true == 0:
        return float("nan")
    ranked: list[tuple[float, int, int]] = []  # (-confidence, page, pred index)
    ious = []
    for pi, (pred, true) in enumerate(pages):
        ious.append(iou_matrix([b for b, _ in pred], list(true)))
        ranked.extend((-conf, pi, k) for k, (_, conf) in enumerate(pred))
    ranked.sort()
    taken = [np.zeros(len(t), dtype=bool) for _, t in pages]
    tp = np.zeros(len(ranked))
    for rank, (_, pi, k) in enumerate(ranked):
        row = ious[pi][k] if ious[pi].size else np.zeros(0)
        candidates = np.where((row >= threshold) & ~taken[pi], row, -1.0)
        if candidates.size and candidates.max() >= 0:
            j = int(candidates.argmax())
            taken[pi][j] = True
            tp[rank] = 1
    if not ranked:
        return 0.0
    ctp = np.cumsum(tp)
    recall = ctp / n_true
    precision = ctp / np.arange(1, len(ranked) + 1)
    # all-point interpolation: envelope of precision, summed over recall steps
    mrec = np.concatenate(([0.0], recall, [recall[-1]]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    steps = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[steps + 1] - mrec[steps]) * mpre[steps + 1]))


# -- OCR (ICDAR / MangaOCR protocol) --------------------------------------------------


@dataclass(frozen=True, slots=True)
class OcrCounts:
    """Detection and end-to-end counts of one or more pages, plus 1 − NED over matches."""

    detection: Counts
    end_to_end: Counts
    similarity_sum: float  # sum of (1 − NED) over matched boxes whose true text is known
    similarity_n: int

    def __add__(self, other: OcrCounts) -> OcrCounts:
        return OcrCounts(
            self.detection + other.detection,
            self.end_to_end + other.end_to_end,
            self.similarity_sum + other.similarity_sum,
            self.similarity_n + other.similarity_n,
        )

    @property
    def mean_similarity(self) -> float:
        """Mean 1 − NED over matched boxes (NaN when nothing matched)."""
        return self.similarity_sum / self.similarity_n if self.similarity_n else float("nan")


def drop_repeated(texts: Sequence[str], max_repeats: int = MAX_REPEATS) -> list[int]:
    """Indices of the texts to keep: a normalised text seen more than ``max_repeats`` times goes."""
    counts = Counter(normalize(t) for t in texts)
    return [i for i, t in enumerate(texts) if counts[normalize(t)] <= max_repeats]


def ocr_counts(pred: Sequence[tuple[BBox, str]], true: Sequence[tuple[BBox, str | None]]) -> OcrCounts:
    """Score one page of OCR output with the ICDAR / MangaOCR protocol.

    A prediction matches a true box at IoU > 0.5 (one-to-one). Detection counts every box.
    End-to-end also needs the normalised texts to be equal; a true box whose text is
    unknown (``None``) is "don't care" there: it and the prediction matched to it are left
    out of the end-to-end counts (but not of detection). A page whose true texts are all
    unknown cannot measure recognition at all, so it adds nothing to the end-to-end counts
    (otherwise every line it really holds but nobody transcribed would count as a false
    positive). Predicted texts repeated more than ten times on the page are dropped first.
    """
    keep = drop_repeated([t for _, t in pred])
    pred = [pred[i] for i in keep]
    matches = match_boxes([b for b, _ in pred], [b for b, _ in true], threshold=OCR_IOU, strict=True)
    det = Counts(len(matches), len(pred), len(true))
    dont_care_true = {j for j, (_, t) in enumerate(true) if t is None}
    dont_care_pred = {i for i, j in matches if j in dont_care_true}
    e2e_tp = 0
    sim_sum = 0.0
    sim_n = 0
    for i, j in matches:
        truth = true[j][1]
        if truth is None:
            continue
        a, b = normalize(truth), normalize(pred[i][1])
        e2e_tp += int(a == b)
        sim_sum += 1.0 - ned(a, b)
        sim_n += 1
    if len(dont_care_true) == len(true) and true:
        e2e = Counts(0, 0, 0)
    else:
        e2e = Counts(e2e_tp, len(pred) - len(dont_care_pred), len(true) - len(dont_care_true))
    return OcrCounts(det, e2e, sim_sum, sim_n)


# -- reading order --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OrderScore:
    """Reading order of the matched items of one page."""

    ned: float  # normalised edit distance between predicted and true order (0 = same)
    kendall_tau: float  # NaN for fewer than two items
    n: int


def order_score(true_ranks: Sequence[float], pred_ranks: Sequence[float]) -> OrderScore:
    """Compare the orders of the same ``n`` matched items.

    Item ``k`` has rank ``true_ranks[k]`` in the true order and ``pred_ranks[k]`` in the
    predicted one. The true sequence lists items by true rank, the predicted one by
    predicted rank (ties broken by true rank); NED is their edit distance over ``n``
    (CoMix). Kendall's tau (tau-b) compares the two rankings.
    """
    n = len(true_ranks)
    if n != len(pred_ranks):
        raise ValueError("rank lists differ in length")
    if n == 0:
        return OrderScore(float("nan"), float("nan"), 0)
    items = list(range(n))
    true_seq = sorted(items, key=lambda k: (true_ranks[k], k))
    pred_seq = sorted(items, key=lambda k: (pred_ranks[k], true_ranks[k], k))
    dist = ned(true_seq, pred_seq)
    return OrderScore(dist, kendall_tau(true_ranks, pred_ranks), n)


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b of two rankings (NaN for fewer than two items or a constant ranking)."""
    n = len(a)
    if n < 2:
        return float("nan")
    concordant = discordant = ties_a = ties_b = 0
    for i in range(n):
        for j in range(i + 1, n):
            da = (a[i] > a[j]) - (a[i] < a[j])
            db = (b[i] > b[j]) - (b[i] < b[j])
            if da == 0 and db == 0:
                continue
            if da == 0:
                ties_a += 1
            elif db == 0:
                ties_b += 1
            elif da == db:
                concordant += 1
            else:
                discordant += 1
    denom = ((concordant + discordant + ties_a) * (concordant + discordant + ties_b)) ** 0.5
    return (concordant - discordant) / denom if denom else float("nan")


def matched_order(
    pred: Sequence[tuple[BBox, int | None]], true: Sequence[BBox], threshold: float = DETECTION_IOU
) -> OrderScore:
    """Order score of predicted boxes (with their 1-based order) against true boxes in order.

    Boxes are matched one-to-one at IoU ≥ threshold; unmatched boxes do not count here
    (detection metrics count them). A matched prediction without an order goes last, in
    the order the predictions were listed (never in the true order, which would be a gift).
    """
    matches = match_boxes([b for b, _ in pred], true, threshold=threshold)
    last = len(pred) + 1
    true_ranks = [float(j) for _, j in matches]
    pred_ranks = [float(o) if (o := pred[i][1]) is not None else float(last + i) for i, _ in matches]
    return order_score(true_ranks, pred_ranks)
