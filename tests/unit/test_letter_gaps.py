"""A space the word model puts in stays only where the line's ink has a word-wide gap
(panelvox.analysis.letter_gaps), on lines drawn letter by letter."""

from __future__ import annotations

import cv2
import numpy as np

from panelvox.analysis.letter_gaps import WORD_GAP, blank_gaps, room_for_space, unspace_tight
from panelvox.model import Image

FONT = cv2.FONT_HERSHEY_SIMPLEX


def lettered(text: str, gap: int = -3, word_gap: int = 8) -> Image:
    """``text`` drawn in black capitals, ``gap`` pixels added between letters (the font leaves room round each) and ``word_gap``
    where ``text`` has a "|" (a space the recogniser missed), on a 32-pixel-high crop."""
    page = np.full((32, 20 * len(text) + 20, 3), 255, np.uint8)
    x = 6
    for ch in text:
        if ch == "|":
            x += word_gap - gap
            continue
        (w, _h), _b = cv2.getTextSize(ch, FONT, 0.7, 2)
        cv2.putText(page, ch, (x, 25), FONT, 0.7, (0, 0, 0), 2)
        x += w + gap
    return page[:, : x + 6]


def test_a_cut_between_letters_set_close_is_taken_out() -> None:
    gaps = blank_gaps(lettered("HONEYLAND"))
    assert gaps is not None
    assert not room_for_space("HONEYLAND", 5, gaps)
    assert unspace_tight("HONEYLAND", "HONEY LAND", gaps) == "HONEYLAND"
    assert unspace_tight("MY WATTA", "MY WATT A", blank_gaps(lettered("MY|WATTA"))) == "MY WATTA"


def test_a_cut_where_the_ink_has_a_word_gap_stays() -> None:
    gaps = blank_gaps(lettered("SERUM|TUBE"))
    assert gaps is not None and max(w for _s, w in gaps.runs) >= WORD_GAP * gaps.height
    assert room_for_space("SERUMTUBE", 5, gaps)
    assert unspace_tight("SERUMTUBE", "SERUM TUBE", gaps) == "SERUM TUBE"
    # two cuts in one token: each judged where it falls
    gaps = blank_gaps(lettered("HULL|WATERFILLED"))
    assert unspace_tight("HULLWATERFILLED", "HULL WATER FILLED", gaps) == "HULL WATERFILLED"


def test_marks_smaller_than_a_letter_do_not_fill_a_word_gap() -> None:
    # the recogniser lost the dots between two words: the gap is still a word's
    gaps = blank_gaps(lettered("LAND..DILLON"))
    assert gaps is not None and room_for_space("LANDDILLON", 4, gaps)
    assert unspace_tight("LANDDILLON", "LAND DILLON", gaps) == "LAND DILLON"


def test_lines_the_fixes_changed_or_not_in_capitals_are_left_alone() -> None:
    gaps = blank_gaps(lettered("HONEYLAND"))
    # a letter more or fewer: the letters cannot be matched up
    assert unspace_tight("HONEYLAND", "HONEY LANDS", gaps) == "HONEY LANDS"
    assert unspace_tight("TheEnd", "The End", blank_gaps(lettered("TheEnd"))) == "The End"
    assert unspace_tight("HONEYLAND", "HONEY LAND", None) == "HONEY LAND"
    # spaces the recogniser read are not its to judge
    assert unspace_tight("HONEY LAND", "HONEY LAND", gaps) == "HONEY LAND"


def test_a_blank_crop_has_no_gaps() -> None:
    assert blank_gaps(np.full((30, 80, 3), 255, np.uint8)) is None
