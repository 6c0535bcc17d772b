"""Detection, OCR and reading-order metrics on hand-made cases with known answers."""

from __future__ import annotations

import math

import pytest

from panelvox.eval.metrics import (
    Counts,
    average_precision,
    detection_counts,
    drop_repeated,
    kendall_tau,
    match_boxes,
    matched_order,
    ocr_counts,
    order_score,
)
from panelvox.eval.text_norm import edit_distance, ned, normalize, partial_distance
from panelvox.model import BBox

A = BBox(0, 0, 10, 10)
B = BBox(20, 0, 30, 10)
C = BBox(40, 0, 50, 10)


def test_normalize_unifies_quotes_dashes_case_and_ends() -> None:
    assert normalize("  “DOGGONE—GOOD”!! ") == "doggone-good"
    assert normalize("YOU’LL   BUST\nIT…") == "you'll bust it"
    assert normalize("ＡＢＣ！") == "abc"  # NFKC: full-width forms
    assert normalize("FOR- TIFIED") == "for-tified"


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [("kitten", "sitting", 3), ("", "abc", 3), ("abc", "abc", 0), ("flaw", "lawn", 2), ("綴じ眼", "綴眼", 1)],
)
def test_edit_distance_known_values(a: str, b: str, d: int) -> None:
    assert edit_distance(a, b) == d
    assert edit_distance(b, a) == d


def test_ned_and_partial_distance() -> None:
    assert ned("", "") == 0.0
    assert ned("abcd", "abxd") == pytest.approx(0.25)
    assert ned([1, 2, 3], [3, 2, 1]) == pytest.approx(2 / 3)
    assert partial_distance("lost", "aye i am lost my home") == 0
    assert partial_distance("lozt", "aye i am lost my home") == 1


def test_counts_precision_recall_f1() -> None:
    c = Counts(tp=3, n_pred=4, n_true=6)
    assert c.precision == pytest.approx(0.75)
    assert c.recall == pytest.approx(0.5)
    assert c.f1 == pytest.approx(0.6)
    assert Counts(0, 0, 0).f1 == 1.0  # nothing to find, nothing found
    assert (c + c).tp == 6


def test_matching_is_one_to_one_and_needs_iou_half() -> None:
    half = BBox(0, 0, 10, 5)  # IoU with A = 0.5 exactly
    assert match_boxes([half], [A]) == [(0, 0)]
    assert match_boxes([half], [A], strict=True) == []  # OCR protocol: IoU > 0.5
    # two predictions on one true box: only one matches
    assert detection_counts([A, A], [A]) == Counts(1, 2, 1)
    assert detection_counts([A, B], [A, B, C]) == Counts(2, 2, 3)


def test_matching_maximises_number_of_matches() -> None:
    # pred 0 overlaps both true boxes, best with true 0; pred 1 overlaps only true 0.
    # Greedy by IoU would give one match; Hungarian finds two.
    t0, t1 = BBox(0, 0, 10, 10), BBox(3, 0, 13, 10)
    p0, p1 = BBox(1, 0, 11, 10), BBox(-2, 0, 8, 10)
    assert len(match_boxes([p0, p1], [t0, t1])) == 2


def test_average_precision_known_values() -> None:
    # perfect ranking: AP 1
    assert average_precision([([(A, 0.9), (B, 0.8)], [A, B])]) == pytest.approx(1.0)
    # a false positive ranked first: precision 1/2 at recall 1/2, 2/3 at recall 1
    # -> all-point interpolation: 0.5 * (2/3) + 0.5 * (2/3) = 2/3
    assert average_precision([([(C, 0.95), (A, 0.9), (B, 0.8)], [A, B])]) == pytest.approx(2 / 3)
    # the false positive last: 1.0 (recall is complete before it)
    assert average_precision([([(A, 0.9), (B, 0.8), (C, 0.1)], [A, B])]) == pytest.approx(1.0)
    # half the boxes never found: 0.5
    assert average_precision([([(A, 0.9)], [A, B])]) == pytest.approx(0.5)
    assert math.isnan(average_precision([([(A, 0.9)], [])]))


def test_ocr_protocol_detection_end_to_end_and_dont_care() -> None:
    pred = [(A, "HELLO!"), (B, "W0RLD"), (C, "extra")]
    true: list[tuple[BBox, str | None]] = [(A, "hello"), (B, "world"), (BBox(60, 0, 70, 10), None)]
    r = ocr_counts(pred, true)
    assert r.detection == Counts(2, 3, 3)
    # "HELLO!" == "hello" after normalisation; "W0RLD" is wrong; the unknown box is left out
    assert r.end_to_end == Counts(1, 3, 2)
    assert r.mean_similarity == pytest.approx((1.0 + 0.8) / 2)


def test_ocr_unknown_text_match_is_dont_care_for_end_to_end() -> None:
    r = ocr_counts([(A, "anything")], [(A, None)])
    assert r.detection == Counts(1, 1, 1)
    assert r.end_to_end == Counts(0, 0, 0)
    assert math.isnan(r.mean_similarity)


def test_page_with_no_known_text_adds_nothing_to_end_to_end() -> None:
    """Untranscribed pages measure detection only: unannotated lines read there are no e2e errors."""
    r = ocr_counts([(A, "HELLO"), (B, "a line nobody boxed")], [(A, None)])
    assert r.detection == Counts(1, 2, 1)
    assert r.end_to_end == Counts(0, 0, 0)
    # one known text on the page: the extra prediction counts against end-to-end precision again
    r = ocr_counts([(A, "HELLO"), (B, "a line nobody boxed")], [(A, "hello"), (C, None)])
    assert r.end_to_end == Counts(1, 2, 1)


def test_repeated_segments_are_dropped() -> None:
    texts = ["ha"] * 11 + ["ho"] * 10 + ["x"]
    kept = drop_repeated(texts)
    assert len(kept) == 11 and all(texts[i] != "ha" for i in kept)
    boxes = [(BBox(k * 20, 0, k * 20 + 10, 10), "ha") for k in range(11)]
    assert ocr_counts(boxes, [(boxes[0][0], "ha")]).detection == Counts(0, 0, 1)


def test_order_score_known_values() -> None:
    same = order_score([0, 1, 2, 3], [1, 2, 3, 4])
    assert same.ned == 0.0 and same.kendall_tau == pytest.approx(1.0)
    rev = order_score([0, 1, 2, 3], [4, 3, 2, 1])
    assert rev.kendall_tau == pytest.approx(-1.0)
    assert rev.ned == pytest.approx(1.0)  # 0123 vs 3210: 4 substitutions (middle pair too)
    swap = order_score([0, 1, 2, 3], [1, 3, 2, 4])  # panels 2 and 3 swapped
    assert swap.ned == pytest.approx(0.5)
    assert swap.kendall_tau == pytest.approx(4 / 6)
    assert math.isnan(order_score([0], [1]).kendall_tau)


def test_kendall_tau_with_ties() -> None:
    assert kendall_tau([1, 2, 3], [1, 1, 2]) == pytest.approx(2 / (3 * 2) ** 0.5)


def test_matched_order_uses_only_matched_boxes_and_punishes_missing_order() -> None:
    true = [A, B, C]
    assert matched_order([(C, 3), (A, 1), (B, 2)], true).ned == 0.0
    assert matched_order([(A, 2), (B, 1)], true).ned == pytest.approx(1.0)
    # unordered predictions go last in listed order, not in the true order
    unordered = matched_order([(C, None), (B, None), (A, None)], true)
    assert unordered.kendall_tau == pytest.approx(-1.0)
