"""Dialogue, speaker, identity and narration metrics on hand-made cases with known answers."""

from __future__ import annotations

import math

import pytest

from panelvox.eval.dialogue_metrics import (
    extract_quotes,
    hybrid_dialog_score,
    identity_clustering,
    longest_non_decreasing,
    narration_faithfulness,
    speaker_recall,
    transcript_recall,
)
from panelvox.eval.text_norm import anls

DIALOGUE = [
    "HUH! WHO ARE YOU?",
    "STEENIE, I HAVE BEEN LOOKING FOR YOU.",
    "ME? WHAT ON AIRTH CAN YE WANT WITH ME?",
]


def test_transcript_exact_and_fuzzy_recovery() -> None:
    pred = [
        "huh! who are you?",
        "STEENIE, I HAVE BEEN L0OKING FOR Y0U",
        "ME? WHAT ON AIRTH CAN YE WANT WITH ME?",
    ]
    s = transcript_recall(DIALOGUE, pred)
    assert (s.recovered, s.in_order, s.n_true) == (3, 3, 3)
    assert s.recall == 1.0 and s.ordered_recall == 1.0


def test_transcript_order_and_misses() -> None:
    s = transcript_recall(DIALOGUE, [DIALOGUE[2], DIALOGUE[0], "SOMETHING ELSE ENTIRELY"])
    assert s.recovered == 2  # the middle line was never read
    assert s.positions == (1, None, 0)
    assert s.in_order == 1  # positions 1, 0: only one of them in order
    assert s.recall == pytest.approx(2 / 3) and s.ordered_recall == pytest.approx(1 / 3)


def test_transcript_split_and_merged_balloons() -> None:
    split = transcript_recall([DIALOGUE[1]], ["STEENIE, I HAVE", "BEEN LOOKING FOR YOU."])
    assert split.recovered == 1
    merged = transcript_recall(DIALOGUE[:2], [DIALOGUE[0] + " " + DIALOGUE[1]])
    assert merged.recovered == 2 and merged.in_order == 2
    assert transcript_recall([], ["x"]).recall != transcript_recall([], ["x"]).recall  # NaN


def test_longest_non_decreasing() -> None:
    assert longest_non_decreasing([3, 1, 2, 2, 5, 4]) == 4
    assert longest_non_decreasing([]) == 0
    assert longest_non_decreasing([3, 1, 2, 2, 5, 4], strict=True) == 3


def test_speaker_recall() -> None:
    s = speaker_recall(["a", "b", "a", "c"], ["a", "a", None, "c"])
    assert s.correct == 2 and s.recall == pytest.approx(0.5)
    with pytest.raises(ValueError):
        speaker_recall(["a"], [])


def test_identity_clustering_perfect_and_permuted_labels() -> None:
    perfect = identity_clustering(["x", "x", "y", "y"], ["k1", "k1", "k2", "k2"])
    assert perfect.ami == pytest.approx(1.0) and perfect.nmi == pytest.approx(1.0)
    one_cluster = identity_clustering(["x", "x", "y", "y"], ["k", "k", "k", "k"])
    assert one_cluster.nmi == pytest.approx(0.0) and one_cluster.ami == pytest.approx(0.0)
    assert math.isnan(identity_clustering(["x"], ["k"]).ami)


def test_anls_threshold() -> None:
    assert anls("STEENIE", "steenie") == 1.0
    assert anls("STEENIE", "STEENIF") == pytest.approx(1 - 1 / 7)
    assert anls("STEENIE", "DOUGAL") == 0.0  # NED ≥ 0.5


def test_hybrid_dialog_score_known_values() -> None:
    true = [("Steenie", "Who are you?"), (None, "Suddenly a stranger stepped before him")]
    assert hybrid_dialog_score(true, list(true)).hds == pytest.approx(1.0)
    # right text, wrong speaker on the first pair: text 1, names 1/2
    wrong = hybrid_dialog_score(true, [("Dougal", "Who are you?"), (None, true[1][1])])
    assert wrong.text == pytest.approx(1.0) and wrong.name == pytest.approx(0.5)
    assert wrong.hds == pytest.approx(0.75)
    # one invented pair: its text length joins the denominator, its name counts as a miss
    extra = hybrid_dialog_score([("A", "abcd")], [("A", "abcd"), ("B", "wxyz")])
    assert extra.text == pytest.approx(4 / 8) and extra.name == pytest.approx(1 / 2)
    assert hybrid_dialog_score([], []).hds == 1.0
    assert hybrid_dialog_score([("A", "abcd")], []).hds == 0.0


def test_extract_quotes_curly_straight_and_short() -> None:
    text = 'The boy asks, “DOGGONE GOOD DINNER, HEY, CHAD?” Chad replies "KALA.. ONE OF THESE DAYS" and "OK".'
    assert extract_quotes(text) == ["DOGGONE GOOD DINNER, HEY, CHAD?", "KALA.. ONE OF THESE DAYS"]


def test_narration_faithfulness_flags_invented_quotes() -> None:
    page = ["DOGGONE GOOD DINNER, HEY, CHAD?", "KALA.. ONE OF THESE DAYS YOU'LL BUST YOUR BINNACLE"]
    good = narration_faithfulness(
        "Kala asks, “Doggone good dinner, hey, Chad?” and Chad says “one of these days”", page
    )
    assert good.quotes == 2 and good.unsupported == () and not good.quotes_text_not_there
    bad = narration_faithfulness("Chad shouts, “WE MUST SAIL AT ONCE!” then “DOGGONE GOOD DINNER”", page)
    assert bad.unsupported == ("WE MUST SAIL AT ONCE!",)
    assert bad.unsupported_rate == pytest.approx(0.5) and bad.quotes_text_not_there
    # a quote spanning two balloons is supported by the joined text
    span = narration_faithfulness("“HEY, CHAD? KALA.. ONE OF THESE DAYS”", page)
    assert span.unsupported == ()
