"""A line's ends its detected box cut off: widened on drawn lettering, and read again."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.line_ends import (
    _piece_of,
    better_reading,
    could_be_better,
    join_pieces,
    reread_ends,
    reread_non_words,
    widen,
)
from panelvox.models.ocr import Detection, OcrEngine, Recognition


def _page(
    text: str, *, at: tuple[int, int] = (60, 40), border: bool = False
) -> tuple[np.ndarray, ImageDraw.ImageDraw]:
    page = Image.new("RGB", (520, 120), "white")
    draw = ImageDraw.Draw(page)
    draw.text(at, text, fill="black", font=ImageFont.load_default(size=30))
    if border:  # a balloon's outline running past the line, just before it
        draw.line([(at[0] - 10, 5), (at[0] - 10, 115)], fill="black", width=3)
    return np.asarray(page, dtype=np.uint8), draw


def _box(x0: float, y0: float, x1: float, y1: float) -> Detection:
    return Detection(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32), 0.9)


def _ink_columns(image: np.ndarray) -> tuple[int, int]:
    xs = np.nonzero((image[:, :, 0] < 128).any(axis=0))[0]
    return int(xs.min()), int(xs.max())


def test_a_box_starting_inside_the_first_letter_is_widened_to_take_it_in() -> None:
    image, _ = _page("SUDDENLY")
    first, last = _ink_columns(image)
    left, right = widen(image, _box(first + 8, 48, last + 4, 72), [])
    assert first + 8 - left <= first  # the whole S
    assert left <= 12  # no further than the letter
    assert right == 0  # that end cut no ink


def test_a_box_ending_inside_the_last_letter_is_widened_to_its_end() -> None:
    image, _ = _page("LOOKED")
    first, last = _ink_columns(image)
    left, right = widen(image, _box(first - 4, 48, last - 6, 72), [])
    assert left == 0
    assert last - 6 + right >= last


def test_a_lone_i_a_word_space_before_the_box_is_taken_in() -> None:
    image, draw = _page("I CAN'T LOOK!")
    font = ImageFont.load_default(size=30)
    start = 60 + draw.textlength("I ", font=font)
    first, last = _ink_columns(image)
    left, _right = widen(image, _box(start - 3, 48, last + 4, 72), [])
    assert start - 3 - left <= first


def test_a_balloon_outline_before_the_line_is_no_letter() -> None:
    image, _ = _page("CAN'T LOOK!", border=True)
    first, last = _ink_columns(image)  # the outline is the first ink
    left, _right = widen(image, _box(first + 12, 48, last + 4, 72), [])
    assert left == 0


def test_ink_in_another_box_of_the_line_stays_with_that_box() -> None:
    image, _ = _page("SUDDENLY")
    first, last = _ink_columns(image)
    other = (float(first - 2), 46.0, float(first + 30), 74.0)  # the line's first piece
    assert widen(image, _box(first + 8, 48, last + 4, 72), [other]) == (0.0, 0.0)


@pytest.fixture(scope="module")
def lexicon() -> LetteringLexicon:
    return LetteringLexicon(WordList.load())


def test_a_widened_reading_is_kept_only_when_it_has_fewer_non_words(lexicon: LetteringLexicon) -> None:
    assert better_reading("UDDENLY...", "SUDDENLY...", lexicon)
    assert better_reading("CAN'T LOOK!", "I CAN'T LOOK!", lexicon)
    assert not better_reading("WE'LL BE HERE", "R WE'LL BE HERE", lexicon)  # a neighbour's letter
    assert not better_reading("BOO HOO", "BOO HOO1", lexicon)
    assert not better_reading("CAN'T LOOK!", "CAN'T LOOK!", lexicon)
    assert not better_reading("H", "HI", lexicon)  # too little to judge by


def test_a_cut_first_letter_is_read_again_and_the_line_comes_back_whole(lexicon: LetteringLexicon) -> None:
    engine = OcrEngine()
    image, _ = _page("SUDDENLY HE SAW")
    first, last = _ink_columns(image)
    det = _box(first + 9, 46, last + 4, 74)
    recs = [Recognition("UDDENLY HE SAW", 0.99)]
    reread_ends(image, [det], [False], recs, lambda c, w: engine.recognize(c, lexicon, wanted=w), lexicon)
    assert recs[0].text == "SUDDENLY HE SAW"


def test_a_widened_box_whose_reading_could_not_be_kept_is_not_read(lexicon: LetteringLexicon) -> None:
    assert could_be_better("UDDENLY...", 9.0, lexicon)  # a non-word: any end may mend it
    assert could_be_better("UDDENLY...", 0.0, lexicon)
    assert could_be_better("CAN'T LOOK!", 14.0, lexicon)  # all words: only an "I" before it wins
    assert not could_be_better("CAN'T LOOK!", 0.0, lexicon)  # ... and none came on the left
    assert not could_be_better("H", 9.0, lexicon)  # too little to judge by
    image, _ = _page("CAN'T LOOK!")
    first, last = _ink_columns(image)
    det = _box(first - 4, 46, last - 6, 74)  # the box cuts the "!": widened on the right only
    assert widen(image, det, [])[0] == 0.0 and widen(image, det, [])[1] > 0
    asked: list[list[bool]] = []

    def read(crops: list[np.ndarray], wanted: list[bool]) -> list[Recognition]:
        asked.append(wanted)
        return [Recognition("I CAN'T LOOK!", 0.99)] * len(crops)

    recs = [Recognition("CAN'T LOOK!", 0.99)]
    reread_ends(image, [det], [False], recs, read, lexicon)
    assert asked == [] and recs[0].text == "CAN'T LOOK!"


def test_a_line_with_a_non_word_is_read_again_with_a_margin(lexicon: LetteringLexicon) -> None:
    engine = OcrEngine()
    image, _ = _page("NAUSEATING, HE SAID")
    first, last = _ink_columns(image)
    rows = np.nonzero((image[:, :, 0] < 128).any(axis=1))[0]
    # the box grazes the letters' tops and bottoms, as a detector's does on a large initial
    det = _box(first - 2, rows.min() + 3, last + 2, rows.max() - 3)
    recs = [Recognition("NALISEATING, HE SAID", 0.9)]
    reread_non_words(image, [det], [False], recs, lambda c: engine.recognize(c, lexicon), lexicon)
    assert recs[0].text == "NAUSEATING, HE SAID"
    # lettering that is no word reads the same from the wider view and stays as printed
    image, _ = _page("VE VILL SCHKATE")
    first, last = _ink_columns(image)
    recs = [Recognition("VE VILL SCHKATE", 0.99)]
    reread_non_words(
        image,
        [_box(first - 4, 44, last + 4, 76)],
        [False],
        recs,
        lambda c: engine.recognize(c, lexicon),
        lexicon,
    )
    assert recs[0].text == "VE VILL SCHKATE"


def test_a_reread_is_kept_only_with_fewer_non_words_no_less_confidence_and_no_more_digits(
    lexicon: LetteringLexicon,
) -> None:
    image, _ = _page("ANYTHING")
    det = _box(60, 44, 200, 76)

    def kept(old: Recognition, new: Recognition) -> str:
        recs = [old]
        reread_non_words(image, [det], [False], recs, lambda crops: [new] * len(crops), lexicon)
        return recs[0].text

    assert kept(Recognition("NALISEATING", 0.96), Recognition("NAUSEATING", 0.98)) == "NAUSEATING"
    assert kept(Recognition("GUNGA SAID", 0.98), Recognition("SUNGA SAID", 0.97)) == "GUNGA SAID"
    assert kept(Recognition("0JA", 0.5), Recognition("10001", 0.6)) == "0JA"
    assert kept(Recognition("HAPPY", 0.5), Recognition("HAPPY", 0.9)) == "HAPPY"


def test_a_piece_on_a_lines_row_a_word_space_beyond_its_end_continues_it() -> None:
    line = (70.0, 53.0, 294.0, 75.0)
    assert _piece_of((301, 61, 314, 74), line) == 1  # "THE FIRST THING" ... "I"
    assert _piece_of((50, 55, 62, 74), line) == -1
    assert _piece_of((301, 80, 314, 100), line) == 0  # on the next row
    assert _piece_of((340, 55, 352, 74), line) == 0  # more than a word space away
    assert _piece_of((301, 68, 306, 73), line) == 0  # a speck, not a letter's height


def test_a_word_cut_off_a_lines_end_is_read_with_the_line(lexicon: LetteringLexicon) -> None:
    engine = OcrEngine()
    image, _ = _page("THE FIRST THING I")
    first, last = _ink_columns(image)
    # the detector found "THE FIRST THING" and the "I" apart; the "I" read unsure as "1"
    line = (_box(first - 2, 44, last - 22, 74), Recognition("THE FIRST THING", 0.95), False)
    piece = (_box(last - 6, 44, last + 3, 74), Recognition("1", 0.37), False)
    out = join_pieces(image, [line, piece], lambda c: engine.recognize(c, lexicon), lexicon)
    assert [r.text for _d, r, _v in out] == ["THE FIRST THING I"]
    # a piece that reads as no word of the line leaves it as it was
    image, _ = _page("THE FIRST THING %")
    first, last = _ink_columns(image)
    line = (_box(first - 2, 44, last - 30, 74), Recognition("THE FIRST THING", 0.95), False)
    piece = (_box(last - 14, 44, last + 3, 74), Recognition("%", 0.4), False)
    out = join_pieces(image, [line, piece], lambda c: engine.recognize(c, lexicon), lexicon)
    assert [r.text for _d, r, _v in out] == ["THE FIRST THING", "%"]


def test_a_piece_read_surely_as_a_word_stays_its_own(lexicon: LetteringLexicon) -> None:
    # "NO" ending one balloon a word space before "MORE TRICKS" in the next
    engine = OcrEngine()
    page = Image.new("RGB", (520, 120), "white")
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=30)
    draw.text((60, 40), "NO", fill="black", font=font)
    draw.text((125, 40), "MORE TRICKS", fill="black", font=font)
    image = np.asarray(page, dtype=np.uint8)
    first, last = _ink_columns(image)
    line = (_box(120, 44, last + 3, 74), Recognition("MORE TRICKS", 0.95), False)
    piece = (_box(first - 2, 44, 112, 74), Recognition("NO", 0.98), False)
    out = join_pieces(image, [line, piece], lambda c: engine.recognize(c, lexicon), lexicon)
    assert [r.text for _d, r, _v in out] == ["MORE TRICKS", "NO"]


def test_a_sure_word_continues_a_line_only_where_its_box_touches_the_lines_end() -> None:
    line = (70.0, 53.0, 294.0, 75.0)
    assert _piece_of((293, 57, 321, 72), line, touching=True) == 1  # overlapping by a pixel
    assert _piece_of((296, 57, 324, 72), line, touching=True) == 1  # a hairline away
    assert _piece_of((305, 57, 333, 72), line, touching=True) == 0  # a word space away
    assert _piece_of((270, 57, 298, 72), line, touching=True) == 0  # mostly inside the line's box
    assert _piece_of((42, 57, 71, 72), line, touching=True) == -1


def test_a_sure_word_the_detector_cut_off_a_lines_end_is_read_with_it(lexicon: LetteringLexicon) -> None:
    # "THE LAW" and a thin box round "OF" that the line's box grazes: one row cut in two
    engine = OcrEngine()
    image, draw = _page("THE LAW OF")
    first, last = _ink_columns(image)
    of_left = int(draw.textbbox((60, 40), "THE LAW ", font=ImageFont.load_default(size=30))[2])
    line = (_box(first - 2, 44, of_left + 2, 74), Recognition("THE LAW", 0.93), False)
    piece = (_box(of_left - 1, 48, last + 3, 70), Recognition("OF", 0.91), False)
    out = join_pieces(image, [line, piece], lambda c: engine.recognize(c, lexicon), lexicon)
    assert [r.text for _d, r, _v in out] == ["THE LAW OF"]
