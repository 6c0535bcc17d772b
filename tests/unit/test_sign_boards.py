"""Sign boards the balloon tracer takes for balloons (panelvox.analysis.sign_boards) on drawn
regions and a drawn page: a turned or foreshortened square-cornered board (bitten by its
lettering or not) is a board; an oval, a level box, a balloon that a panel's border cuts and
a rounded box with a stepped side are not; a board on a post is said as a sign (in manga,
which sets dialogue in tilted boxes, it stays dialogue)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from PIL import Image, ImageDraw
from test_balloons_stage import WORDS, _analysis, _letters, _line, _page, _run

from panelvox.analysis.sign_boards import board_outline, quadrilateral, turned
from panelvox.model import BalloonKind

Poly = list[tuple[float, float]]


def _region(*polygons: Poly, ellipses: tuple[tuple[int, int, int, int], ...] = ()) -> np.ndarray:
    """A 400 x 300 mask, 1 inside the given polygons and ellipses."""
    img = Image.new("L", (400, 300), 0)
    d = ImageDraw.Draw(img)
    for e in ellipses:
        d.ellipse(e, fill=1)
    for p in polygons:
        d.polygon(p, fill=1)
    return np.array(img, dtype=np.uint8)


def _turned_box(cx: float, cy: float, w: float, h: float, degrees: float) -> Poly:
    pts = cv2.boxPoints(((cx, cy), (w, h), degrees))
    return [(float(x), float(y)) for x, y in pts]


def test_a_turned_board_is_a_board_and_a_level_box_is_a_captions_shape() -> None:
    assert board_outline(_region(_turned_box(200, 150, 220, 110, 10)))
    corners = quadrilateral(_region(_turned_box(200, 150, 220, 110, 10)))
    assert corners is not None and abs(turned(corners) - 10) < 2
    assert not board_outline(_region(_turned_box(200, 150, 220, 110, 0)))  # a caption's shape


def test_a_board_in_perspective_or_bitten_by_its_lettering_is_a_board() -> None:
    # foreshortened: its near side taller than its far side, top and bottom not parallel
    assert board_outline(_region([(80, 80), (320, 105), (320, 205), (80, 230)]))
    bitten = _region(_turned_box(200, 150, 220, 110, -8))
    bitten[95:125, 250:300] = 0  # a word lettered into the board's top corner
    assert board_outline(bitten)


def test_balloon_shapes_are_not_boards() -> None:
    assert not board_outline(_region(ellipses=((60, 60, 340, 240),)))  # an oval
    # an oval balloon cut by the panel's top and right borders, its tail down to the left
    cut = _region([(150, 200), (90, 290), (200, 215)], ellipses=((40, 10, 420, 240),))
    cut[:40, :] = 0
    cut[:, 360:] = 0
    assert not board_outline(cut)
    # a box with rounded corners whose right side steps in with its lettering, turned a little
    stepped = _region(
        [(60, 60), (330, 70), (326, 130), (290, 130), (286, 190), (240, 190), (236, 240), (56, 232)]
    )
    stepped = cv2.morphologyEx(
        stepped, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (31, 31))
    )
    assert not board_outline(stepped)


def _board_page(script: str = "latin") -> dict[str, BalloonKind]:
    """The kinds told on a drawn page: a board on a post, an oval balloon beside it."""
    img, d = _page()
    # a white board turned 8 degrees, outlined in black, on a post light enough to be traced
    board = _turned_box(230, 200, 260, 130, 8)
    d.polygon(board, fill="black")
    d.polygon(_turned_box(230, 200, 252, 122, 8), fill="white")
    d.rectangle((222, 262, 244, 380), fill="black")
    d.rectangle((226, 258, 240, 376), fill="white")
    boxes = [(160, 170, 300, 192), (170, 208, 290, 230)]
    for b in boxes:
        _letters(d, b)
    # an oval balloon with a tail, lettered level
    d.ellipse((480, 80, 760, 240), fill="black")
    d.polygon([(560, 220), (540, 320), (610, 228)], fill="black")
    d.ellipse((484, 84, 756, 236), fill="white")
    d.polygon([(566, 226), (543, 308), (602, 230)], fill="white")
    speech = [(550, 130, 700, 155), (560, 170, 690, 195)]
    for b in speech:
        _letters(d, b)
    lines = [_line(1, boxes[0], "EXIT"), _line(2, boxes[1], "THERE"), _line(3, speech[0], "HELLO")]
    lines.append(_line(4, speech[1], "FRIEND"))
    out = _run(img, _analysis([replace(ln, script=script) for ln in lines]))
    return {b.text: b.kind for b in out.blocks}


def test_lettering_on_a_board_on_a_post_is_a_sign_and_a_balloon_beside_it_speech() -> None:
    assert _board_page() == {"EXIT THERE": BalloonKind.OTHER, "HELLO FRIEND": BalloonKind.SPEECH}
    assert WORDS.knows("exit")


def test_manga_dialogue_in_a_tilted_box_stays_dialogue() -> None:
    kinds = _board_page("japanese")  # its lines joined without a space
    assert kinds["EXITTHERE"] is BalloonKind.SPEECH
