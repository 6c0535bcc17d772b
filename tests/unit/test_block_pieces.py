"""Scene text that holds no word is not said; a piece of a balloon's lettering grouped
apart from it is given back to it (a narration caption or a sound over it stays apart)."""

from __future__ import annotations

from dataclasses import replace

from test_lettering_roles import LEXICON, WORDS, line, speech_lines
from test_lettering_roles import block as _block

from panelvox.analysis.block_roles import tell_roles
from panelvox.model import Balloon, BalloonKind, Point

OUTLINE = (Point(0, 0), Point(1, 0), Point(1, 1))


def block(
    i: int, kind: BalloonKind, box: tuple[float, float, float, float], text: str, **kw: object
) -> Balloon:
    """A block of panel p1 (pieces join balloons of their own panel only)."""
    return _block(i, kind, box, text, panel="p1", **kw)


def test_scene_text_holding_no_word_is_not_said_however_surely_read() -> None:
    lines = [
        *speech_lines(6),
        line(1, (700, 1000, 830, 1030), "RIYWILLNR", conf=0.9),  # an artist's signature
        line(2, (600, 200, 760, 240), "FLY'S REST", conf=0.9),  # a sign
        line(3, (100, 300, 300, 400), "KRAKOOM", conf=0.9),  # a sound, not scene text
    ]
    blocks = [
        block(1, BalloonKind.OTHER, (700, 1000, 830, 1030), "RIYWILLNR"),
        block(2, BalloonKind.OTHER, (600, 200, 760, 240), "FLY'S REST"),
        block(3, BalloonKind.SFX, (100, 300, 300, 400), "KRAKOOM"),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert sorted(b.id for b in kept) == ["b2", "b3"]


def test_a_line_grouped_apart_from_its_balloon_joins_it() -> None:
    lines = [
        *speech_lines(6),
        line(1, (1112, 68, 1229, 100), "THENKS,"),  # its letters touch the outline
        line(2, (1110, 110, 1220, 140), "CHUM!"),
    ]
    blocks = [
        block(1, BalloonKind.OTHER, (1112, 68, 1229, 100), "THENKS,"),
        block(2, BalloonKind.SPEECH, (1098, 76, 1240, 178), "CHUM!", polygon=OUTLINE),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert [(b.id, b.text, b.lines) for b in kept] == [("b2", "THENKS, CHUM!", ("t1", "t2"))]


def test_a_caption_or_a_sound_over_a_balloon_and_large_lettering_stay_apart() -> None:
    lines = [
        *speech_lines(6),
        line(1, (100, 100, 300, 120), "MEANWHILE..."),
        line(2, (100, 130, 300, 150), "ARE ALL GONE."),
        line(3, (500, 100, 600, 120), "SOCK!"),
        line(4, (500, 130, 650, 150), "I HIT HIM!"),
        line(5, (800, 100, 900, 160), "HEY"),  # letters three times the balloon's
        line(6, (800, 170, 950, 190), "WHO ARE YOU?"),
    ]
    blocks = [
        block(1, BalloonKind.CAPTION, (100, 100, 300, 120), "MEANWHILE..."),
        block(2, BalloonKind.SPEECH, (90, 90, 320, 170), "ARE ALL GONE.", polygon=OUTLINE),
        block(3, BalloonKind.SPEECH, (500, 100, 600, 120), "SOCK!"),
        block(4, BalloonKind.SPEECH, (490, 90, 660, 170), "I HIT HIM!", polygon=OUTLINE),
        block(5, BalloonKind.SPEECH, (800, 100, 900, 160), "HEY"),
        block(6, BalloonKind.SPEECH, (790, 90, 960, 200), "WHO ARE YOU?", polygon=OUTLINE),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert sorted(b.id for b in kept) == ["b1", "b2", "b3", "b4", "b5", "b6"]
    assert {b.id: b.kind for b in kept}["b1"] is BalloonKind.CAPTION


def test_an_untraced_piece_that_moves_the_story_on_stays_apart_as_narration() -> None:
    # "MEANWHILE..." in a tinted box set against a balloon's top, taken for scene text
    lines = [
        *speech_lines(6),
        line(1, (487, 24, 611, 49), "MEANWHILE..."),
        line(2, (621, 24, 724, 49), "THE GUESTS"),
        line(3, (616, 45, 695, 66), "ARE ALL"),
    ]
    blocks = [
        block(1, BalloonKind.OTHER, (487, 24, 611, 49), "MEANWHILE..."),
        replace(
            block(2, BalloonKind.SPEECH, (486, 23, 741, 225), "THE GUESTS ARE ALL", polygon=OUTLINE),
            lines=("t2", "t3"),
        ),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert [(b.id, b.kind, b.text) for b in kept] == [
        ("b1", BalloonKind.CAPTION, "MEANWHILE..."),
        ("b2", BalloonKind.SPEECH, "THE GUESTS ARE ALL"),
    ]


def test_a_row_lettered_between_a_balloons_rows_joins_it_whatever_it_was_taken_for() -> None:
    lines = [
        *speech_lines(6),
        line(1, (803, 692, 1195, 728), "SO YA BORROWED MY"),
        # boxed a little thick, taking in some of its neighbours, and grouped as a caption
        line(2, (790, 708, 1223, 763), "TIRE TO SAVE A WOMAN'S"),
        line(3, (842, 742, 1095, 784), "LIFE -- HEY!!?"),
    ]
    blocks = [
        replace(
            block(
                1,
                BalloonKind.SPEECH,
                (781, 692, 1223, 802),
                "SO YA BORROWED MY LIFE -- HEY!!?",
                polygon=OUTLINE,
            ),
            lines=("t1", "t3"),
        ),
        block(2, BalloonKind.CAPTION, (790, 708, 1223, 763), "TIRE TO SAVE A WOMAN'S"),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert [(b.id, b.lines) for b in kept] == [("b1", ("t1", "t2", "t3"))]
    assert kept[0].text == "SO YA BORROWED MY TIRE TO SAVE A WOMAN'S LIFE -- HEY!!?"


def test_unsure_readings_whose_boxes_cross_are_not_said_and_sure_ones_are() -> None:
    lines = [
        *speech_lines(6),
        # a thought balloon's lines read as columns: boxes that cross, read unsurely
        line(1, (485, 50, 556, 101), "GUS", conf=0.73),
        line(2, (529, 51, 575, 117), "STA", conf=0.82),
        # stacked lines whose boxes overlap, read surely, are lettering
        line(3, (600, 300, 800, 330), "LAST PORT OF", conf=0.99),
        line(4, (600, 310, 700, 340), "CALL---", conf=0.84),
    ]
    blocks = [
        block(1, BalloonKind.SPEECH, (485, 50, 556, 101), "GUS"),
        block(2, BalloonKind.SPEECH, (529, 51, 575, 117), "STA"),
        block(3, BalloonKind.CAPTION, (600, 300, 800, 330), "LAST PORT OF"),
        block(4, BalloonKind.CAPTION, (600, 310, 700, 340), "CALL---"),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert sorted(b.id for b in kept) == ["b3", "b4"]


def test_a_time_of_day_opening_untraced_lettering_is_narration_and_a_greeting_is_not() -> None:
    lines = speech_lines(6)
    blocks = [
        block(1, BalloonKind.OTHER, (500, 700, 700, 730), "HAT NIGHT..."),  # "THAT", its T lost
        block(2, BalloonKind.SPEECH, (500, 800, 700, 830), "NEXT MORNING, THE KING RIDES OUT"),
        block(3, BalloonKind.SPEECH, (500, 900, 700, 930), "NIGHT FALLS ON THE CASTLE"),
        block(4, BalloonKind.SPEECH, (500, 1000, 700, 1030), "GOOD NIGHT, MOTHER"),
        block(5, BalloonKind.SPEECH, (500, 1100, 700, 1130), "THAT NIGHT? NEVER!"),  # a cry
        block(6, BalloonKind.SPEECH, (500, 1200, 700, 1230), "THAT NIGHT", polygon=OUTLINE),  # a balloon
    ]
    kinds = [b.kind for b in tell_roles(blocks, lines, 1400, WORDS, LEXICON)]
    assert kinds == [BalloonKind.CAPTION] * 3 + [BalloonKind.SPEECH] * 3


def test_a_line_of_a_signs_board_grouped_apart_from_it_joins_it() -> None:
    lines = [
        *speech_lines(6),
        line(1, (926, 534, 1077, 554), "SPECIAL"),  # its letters touch the board's edge
        line(2, (930, 570, 1085, 590), "ACCOMMODATIONS"),
    ]
    blocks = [
        block(1, BalloonKind.OTHER, (926, 534, 1077, 554), "SPECIAL"),
        block(2, BalloonKind.OTHER, (918, 530, 1090, 611), "ACCOMMODATIONS", polygon=OUTLINE),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert [(b.id, b.text, b.kind) for b in kept] == [("b2", "SPECIAL ACCOMMODATIONS", BalloonKind.OTHER)]
