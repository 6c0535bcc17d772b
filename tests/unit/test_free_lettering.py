"""Untraced lettering's kind (panelvox.analysis.free_lettering) on made-up lines: a tilted
line measured across its slope, a tilted sign, level untraced speech, a tilted caption."""

from __future__ import annotations

import math
from dataclasses import replace

from panelvox.analysis.free_lettering import board_kind, free_kind, slanted
from panelvox.analysis.lettering import WordList
from panelvox.analysis.line_groups import thickness
from panelvox.model import BalloonKind, BBox, Point, TextLine

WORDS = WordList.from_lines(["the", "old", "captain", "head", "dropped", "back", "rest", "fly", "special"])
TYPICAL = 20.0  # the page's typical line thickness


def _line(i: int, x: float, y: float, text: str, degrees: float = 0.0, length: float = 200.0) -> TextLine:
    """A line of letters ``TYPICAL`` thick whose top edge starts at (x, y), sloping ``degrees``."""
    a = math.radians(degrees)
    dx, dy = length * math.cos(a), length * math.sin(a)
    nx, ny = -TYPICAL * math.sin(a), TYPICAL * math.cos(a)
    quad = (Point(x, y), Point(x + dx, y + dy), Point(x + dx + nx, y + dy + ny), Point(x + nx, y + ny))
    box = BBox.from_points(quad)
    return TextLine(id=f"t{i}", bbox=box, text=text, confidence=0.9, stage="text", polygon=quad)


def test_a_tilted_line_is_as_thick_as_its_letters_not_its_box() -> None:
    level, tilted = _line(1, 50, 50, "FLY'S REST"), _line(2, 50, 50, "FLY'S REST", degrees=15)
    assert thickness(level) == TYPICAL
    assert tilted.bbox.height > 2.5 * TYPICAL  # its box looks like display lettering
    assert abs(thickness(tilted) - TYPICAL) < 0.01


def test_a_tilted_sign_outside_any_balloon_is_written_in_the_art() -> None:
    sign = [_line(1, 50, 50, "HOW FAR CAN A", degrees=-12), _line(2, 50, 75, "FLY FLY", degrees=-12)]
    assert slanted(sign)
    assert free_kind(sign, TYPICAL, WORDS)[0] is BalloonKind.OTHER
    assert free_kind([_line(3, 50, 50, "SPECIAL ACCOMM", degrees=8)], TYPICAL, WORDS)[0] is BalloonKind.OTHER


def test_level_untraced_lettering_is_speech_whose_outline_was_missed() -> None:
    speech = [_line(1, 50, 50, "HOW FAR CAN A"), _line(2, 50, 75, "FLY FLY")]
    assert not slanted(speech)
    assert free_kind(speech, TYPICAL, WORDS)[0] is BalloonKind.SPEECH
    # the wobble of hand lettering is no slant
    wobbly = [_line(1, 50, 50, "HOW FAR CAN A", degrees=2), _line(2, 50, 75, "FLY FLY", degrees=-3)]
    assert free_kind(wobbly, TYPICAL, WORDS)[0] is BalloonKind.SPEECH


def test_a_tilted_caption_told_in_the_past_is_narration() -> None:
    caption = [
        _line(1, 50, 50, "THE OLD CAPTAIN'S HEAD", degrees=10),
        _line(2, 45, 75, "DROPPED BACK...", degrees=10),
    ]
    assert free_kind(caption, TYPICAL, WORDS)[0] is BalloonKind.CAPTION
    # a sign that holds a past participle is still a sign: narration is told in sentences
    assert free_kind([_line(3, 50, 50, "CLOSED", degrees=10)], TYPICAL, WORDS)[0] is BalloonKind.OTHER
    # a cry is no narration
    cried = [_line(4, 50, 50, "THE OLD CAPTAIN DROPPED IT!", degrees=10)]
    assert free_kind(cried, TYPICAL, WORDS)[0] is BalloonKind.OTHER


def test_a_cry_lettered_free_at_a_slant_is_speech() -> None:
    assert (
        free_kind([_line(1, 50, 50, "OW-W", degrees=27, length=90)], TYPICAL, WORDS)[0] is BalloonKind.SPEECH
    )
    assert free_kind([_line(2, 50, 50, "FLY'S REST", degrees=27)], TYPICAL, WORDS)[0] is BalloonKind.OTHER
    # marks in the art read unsurely as a cry are scene text (which is dropped), not a cry
    unsure = replace(_line(3, 50, 50, "HA", degrees=27, length=60), confidence=0.6)
    assert free_kind([unsure], TYPICAL, WORDS)[0] is BalloonKind.OTHER


def test_slanted_lettering_in_a_traced_outline_is_a_signs_board() -> None:
    board = [_line(1, 50, 50, "SPECIAL", degrees=8), _line(2, 45, 75, "ACCOMMODATIONS", degrees=8)]
    assert board_kind(BalloonKind.SPEECH, board, WORDS) is BalloonKind.OTHER
    level = [_line(1, 50, 50, "SPECIAL"), _line(2, 45, 75, "ACCOMMODATIONS")]
    assert board_kind(BalloonKind.SPEECH, level, WORDS) is BalloonKind.SPEECH
    caption = [
        _line(1, 50, 50, "THE OLD CAPTAIN'S HEAD", degrees=10),
        _line(2, 45, 75, "DROPPED BACK", degrees=10),
    ]
    assert board_kind(BalloonKind.SPEECH, caption, WORDS) is BalloonKind.SPEECH
    assert board_kind(BalloonKind.CAPTION, board, WORDS) is BalloonKind.CAPTION


def test_lettering_on_a_boards_outline_is_a_sign_even_level_or_on_a_post() -> None:
    level = [_line(1, 50, 50, "SPECIAL"), _line(2, 45, 75, "ACCOMMODATIONS")]
    assert board_kind(BalloonKind.SPEECH, level, WORDS, board=True, tail=True) is BalloonKind.OTHER
    assert board_kind(BalloonKind.SPEECH, level, WORDS, tail=True) is BalloonKind.SPEECH
    slanted_on_a_tail = [
        _line(1, 50, 50, "SPECIAL", degrees=8),
        _line(2, 45, 75, "ACCOMMODATIONS", degrees=8),
    ]
    assert board_kind(BalloonKind.SPEECH, slanted_on_a_tail, WORDS, tail=True) is BalloonKind.SPEECH
    told = [_line(1, 50, 50, "THE OLD CAPTAIN'S HEAD"), _line(2, 45, 75, "DROPPED BACK")]
    assert board_kind(BalloonKind.SPEECH, told, WORDS, board=True) is BalloonKind.SPEECH
