"""Two pieces of lettering that sit close are kept apart where a letterer sets them apart:
sounds lettered at different angles, a story's closing "THE END" under its last caption."""

from __future__ import annotations

import math
from dataclasses import replace

from panelvox.analysis.block_roles import tell_roles
from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.line_groups import cluster_lines
from panelvox.model import Balloon, BalloonKind, BBox, Point, TextLine

WORDS = WordList.load()


def line(i: int, box: tuple[float, float, float, float], text: str, turn: float = 0.0) -> TextLine:
    """A line boxed ``box`` whose outline runs ``turn`` degrees from level (clockwise)
    about its box's middle."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    a = math.radians(turn)

    def at(x: float, y: float) -> Point:
        dx, dy = x - cx, y - cy
        return Point(cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a))

    # the outline of a line ``turn`` degrees round, about half as long as its box is wide
    w, h = 0.45 * (x1 - x0), 0.25 * (y1 - y0) if turn else 0.5 * (y1 - y0)
    poly = (at(cx - w, cy - h), at(cx + w, cy - h), at(cx + w, cy + h), at(cx - w, cy + h))
    if not turn:
        poly = (Point(x0, y0), Point(x1, y0), Point(x1, y1), Point(x0, y1))
    return TextLine(f"t{i}", BBox(*box), text, 0.95, "test", polygon=poly)


def groups(lines: list[TextLine], **kw: float) -> list[list[str]]:
    return [[ln.text for ln in g] for g in cluster_lines(lines, **kw)]


def test_two_sounds_lettered_at_different_angles_are_two_blocks() -> None:
    crash = line(1, (780, 1280, 1010, 1377), "CRASH!")
    bang = line(2, (990, 1266, 1194, 1430), "BANG!", turn=-30)
    assert groups([crash, bang], gap=1.6, size_ratio=3.0) == [["CRASH!"], ["BANG!"]]
    # measured on Latin lettering: Japanese lines read upright at odd angles are left as they were
    ja = [
        replace(crash, text="飲食店から出火", script="japanese"),
        replace(bang, text="店舗も多", script="japanese"),
    ]
    assert groups(ja, gap=1.6, size_ratio=3.0) == [["飲食店から出火", "店舗も多"]]
    # rows of one tilted block run parallel: one block
    rows = [
        line(3, (100, 100, 300, 160), "BUT THEN", turn=-25),
        line(4, (110, 140, 310, 200), "A BOLT", turn=-25),
    ]
    assert groups(rows) == [["BUT THEN", "A BOLT"]]
    # a mark of two letters on a slant (a speck read "IT") does not part a block
    rows = [line(5, (100, 100, 300, 130), "THIS OUGHT TO"), line(6, (120, 128, 160, 160), "IT", turn=30)]
    assert groups(rows) == [["THIS OUGHT TO", "IT"]]


def test_the_end_lettered_large_under_the_last_caption_is_its_own_block() -> None:
    caption = [
        line(1, (750, 1200, 890, 1225), "OFF WITHOUT..."),
        line(2, (790, 1220, 836, 1245), "THE"),
        line(3, (770, 1262, 870, 1292), "ROBOT!"),
    ]
    end = line(4, (741, 1311, 876, 1370), "ThE End")
    assert groups([*caption, end]) == [["OFF WITHOUT...", "THE", "ROBOT!"], ["ThE End"]]
    # a balloon's row that reads "THE END", lettered as the rest, is a row of it
    row = line(5, (760, 1300, 860, 1328), "THE END")
    assert groups([*caption, row]) == [["OFF WITHOUT...", "THE", "ROBOT!", "THE END"]]


def test_large_lettering_that_ends_the_story_is_narration_not_a_sound() -> None:
    lines = [line(100 + k, (50, 600 + 40 * k, 300, 620 + 40 * k), "WORDS OF A BALLOON") for k in range(6)]
    end = Balloon("b1", BalloonKind.SFX, BBox(741, 1311, 876, 1370), "ThE End", 0.9, "test", lines=("t1",))
    out = tell_roles([end], lines, 1400, WORDS, LetteringLexicon(WORDS))
    assert [b.kind for b in out] == [BalloonKind.CAPTION]
