"""The story metrics: one mapping per story, a person's most common label, labels per person."""

from __future__ import annotations

import math

from panelvox.eval.story_metrics import (
    common_label_right,
    constant_lines,
    mapped_right,
    page_label_counts,
    story_counts,
    story_of,
)


def test_story_is_the_page_name_without_its_last_two_parts() -> None:
    assert story_of("CooCooComics_001_FinnyFish_07_02") == "CooCooComics_001_FinnyFish"
    assert story_of("page") == "page"


def test_one_mapping_per_story_punishes_labels_that_change_meaning_between_pages() -> None:
    # per page each is right; across the story only a label kept from page to page is
    per_page_ids = [
        ("S_01_01", [("Anna", "p1:c1"), ("Bob", "p1:c2")]),
        ("S_01_02", [("Anna", "p2:c1"), ("Bob", "p2:c2")]),
    ]
    assert story_counts(per_page_ids).attribution == 0.5
    kept = [("S_01_01", [("Anna", "b1"), ("Bob", "b2")]), ("S_01_02", [("Anna", "b1"), ("Bob", "b2")])]
    assert story_counts(kept).attribution == 1.0
    swapped = [("S_01_01", [("Anna", "c1"), ("Bob", "c2")]), ("S_01_02", [("Anna", "c2"), ("Bob", "c1")])]
    assert story_counts(swapped).attribution == 0.5


def test_a_persons_lines_under_their_most_common_label() -> None:
    lines = [("Anna", "x"), ("Anna", "x"), ("Anna", "y"), ("Bob", None), ("Bob", "z")]
    assert common_label_right(lines) == 3
    assert mapped_right(lines) == 3


def test_labels_per_person_counts_an_unlabelled_line_as_one_label() -> None:
    assert page_label_counts([("Anna", "a"), ("Anna", "b"), ("Bob", None)]) == (3, 2)
    c = story_counts([("S_01_01", [("Anna", "a"), ("Anna", "b"), ("Bob", None)])])
    assert c.labels_per_person == 1.5


def test_the_constant_answer_is_scored_by_the_same_code() -> None:
    lines = [("Anna", "a"), ("Anna", "b"), ("Bob", "c")]
    c = story_counts([("S_01_01", constant_lines(lines))])
    assert math.isclose(c.attribution, 2 / 3)
    assert c.labels_per_person == 0.5
    assert math.isnan(story_counts([]).attribution)
