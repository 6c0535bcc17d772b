"""Balloon grouping, outline, tail and kind on pages the tests draw."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw

from panelvox.analysis.balloon_split import split_at_rules
from panelvox.analysis.balloons_stage import BalloonsStage
from panelvox.analysis.lettering import WordList
from panelvox.analysis.line_groups import cluster_lines, reading_order, split_at_gaps
from panelvox.model import BalloonKind, BBox, PageAnalysis, Panel, ReadingDirection, TextLine

W, H = 800, 600
WORDS = WordList.from_lines(["hello", "there", "friend", "exit"])


def _page() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    # a mid-grey textured "artwork" background, as behind most balloons
    rng = np.random.default_rng(0)
    bg = (rng.integers(60, 140, size=(H, W, 3))).astype(np.uint8)
    img = Image.fromarray(bg)
    return img, ImageDraw.Draw(img)


def _letters(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    """Dark blobs standing in for lettering."""
    x0, y0, x1, y1 = box
    for x in range(x0, x1 - 8, 14):
        draw.rectangle((x, y0 + 2, x + 8, y1 - 2), fill=(20, 20, 20))


def _line(i: int, box: tuple[int, int, int, int], text: str) -> TextLine:
    return TextLine(id=f"t{i}", bbox=BBox(*box), text=text, confidence=0.9, stage="text")


def _analysis(lines: list[TextLine], panels: tuple[Panel, ...] = ()) -> PageAnalysis:
    return PageAnalysis(
        page=1, width=W, height=H, direction=ReadingDirection.LTR, lines=tuple(lines), panels=panels
    )


def _run(img: Image.Image, analysis: PageAnalysis) -> PageAnalysis:
    return BalloonsStage(words=WORDS)(np.asarray(img.convert("RGB")), analysis)


def test_ellipse_balloon_with_tail_down_left() -> None:
    img, d = _page()
    # outline (ellipse + tail) in black, then the inside in white: the tail opens into the body
    d.ellipse((150, 100, 450, 290), fill="black")
    d.polygon([(225, 255), (200, 365), (290, 270)], fill="black")
    d.ellipse((154, 104, 446, 286), fill="white")
    d.polygon([(232, 262), (203, 352), (280, 272)], fill="white")
    boxes = [(220, 160, 380, 185), (230, 200, 370, 225)]
    for b in boxes:
        _letters(d, b)
    lines = [_line(1, boxes[0], "HELLO"), _line(2, boxes[1], "THERE")]
    out = _run(img, _analysis(lines))
    assert len(out.blocks) == 1
    block = out.blocks[0]
    assert block.kind is BalloonKind.SPEECH
    assert block.text == "HELLO THERE"
    assert block.lines == ("t1", "t2")
    assert block.polygon is not None
    assert block.bbox.x0 < 160 and block.bbox.x1 > 440  # the outline, not only the words
    assert block.tail is not None
    assert math.dist((block.tail.tip.x, block.tail.tip.y), (200, 360)) < 25
    assert 100 <= block.tail.direction_deg <= 150  # down-left
    assert out.stages[-1] == "balloons"


def test_rectangular_caption_at_panel_edge() -> None:
    img, d = _page()
    d.rectangle((20, 20, 780, 580), outline="black", width=5)  # panel frame
    d.rectangle((22, 22, 400, 90), fill=(250, 240, 170), outline="black", width=3)  # caption box
    boxes = [(40, 35, 380, 55), (40, 60, 300, 80)]
    for b in boxes:
        _letters(d, b)
    panel = Panel(id="p1", bbox=BBox(20, 20, 781, 581), confidence=1.0, stage="panels")
    out = _run(
        img, _analysis([_line(1, boxes[0], "MEANWHILE,"), _line(2, boxes[1], "AT THE FORT")], (panel,))
    )
    assert [b.kind for b in out.blocks] == [BalloonKind.CAPTION]
    assert out.blocks[0].tail is None
    assert out.blocks[0].panel == "p1"


def test_cloud_is_a_thought_balloon() -> None:
    img, d = _page()
    cx, cy, rx, ry = 400, 300, 170, 100
    for k in range(14):
        a = 2 * math.pi * k / 14
        x, y = cx + rx * math.cos(a), cy + ry * math.sin(a)
        d.ellipse((x - 45, y - 45, x + 45, y + 45), fill="black")
    for k in range(14):
        a = 2 * math.pi * k / 14
        x, y = cx + rx * math.cos(a), cy + ry * math.sin(a)
        d.ellipse((x - 41, y - 41, x + 41, y + 41), fill="white")
    d.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill="white")
    boxes = [(320, 270, 480, 295), (330, 305, 470, 330)]
    for b in boxes:
        _letters(d, b)
    out = _run(img, _analysis([_line(1, boxes[0], "I WONDER"), _line(2, boxes[1], "IF SHE KNOWS")]))
    assert [b.kind for b in out.blocks] == [BalloonKind.THOUGHT]
    assert out.blocks[0].text == "I WONDER IF SHE KNOWS"


def test_free_text_outside_balloons_is_sfx_or_other() -> None:
    img = Image.new("RGB", (W, H), "white")  # no balloon: the light region is the whole page
    d = ImageDraw.Draw(img)
    big, small, number = (100, 100, 400, 200), (500, 400, 700, 425), (380, 560, 420, 580)
    for b in (big, small, number):
        _letters(d, b)
    lines = [
        _line(1, big, "BLAM!"),
        _line(2, small, "EXIT"),
        _line(3, number, "12"),
        _line(4, (500, 440, 690, 465), "ROAD"),
    ]
    out = _run(img, _analysis(lines))
    kinds = {b.text: b.kind for b in out.blocks}
    assert kinds["BLAM!"] is BalloonKind.SFX
    assert "12" not in kinds  # a page number (digits in no panel) is not lettering: not spoken
    assert not kinds["BLAM!"].essential
    assert all(b.polygon is None for b in out.blocks)


def test_stage_does_not_mutate_and_handles_no_text() -> None:
    img, _ = _page()
    before = _analysis([])
    out = _run(img, before)
    assert out.blocks == () and before.blocks == ()
    assert out.stages == ("balloons",)


def test_cluster_keeps_side_by_side_columns_apart() -> None:
    left = [_line(1, (0, 0, 100, 20), "A"), _line(2, (0, 25, 100, 45), "B")]
    right = [_line(3, (130, 0, 230, 20), "C"), _line(4, (130, 25, 230, 45), "D")]
    groups = cluster_lines(left + right)
    assert sorted(sorted(ln.id for ln in g) for g in groups) == [["t1", "t2"], ["t3", "t4"]]


def test_vertical_columns_read_right_to_left() -> None:
    cols = [
        TextLine(
            id=f"c{i}",
            bbox=BBox(x, 0, x + 30, 150),
            text=t,
            confidence=1,
            stage="text",
            vertical=True,
            script="japanese",
        )
        for i, (x, t) in enumerate([(100, "二"), (140, "一"), (60, "三")])
    ]
    assert [c.text for c in reading_order(cols)] == ["一", "二", "三"]


def _col(i: int, x: float, y0: float, y1: float) -> TextLine:
    return TextLine(
        id=f"v{i}",
        bbox=BBox(x, y0, x + 30, y1),
        text="あいう",
        confidence=1,
        stage="text",
        vertical=True,
        script="japanese",
    )


def test_vertical_columns_starting_lower_begin_another_block() -> None:
    # two top-aligned columns, then two columns whose tops sit two characters lower:
    # two text blocks in one joined balloon, as manga letters them
    first = [_col(1, 300, 50, 250), _col(2, 260, 52, 200)]
    second = [_col(3, 220, 115, 300), _col(4, 180, 113, 260)]
    groups = cluster_lines(first + second, gap=1.6)
    assert sorted(sorted(ln.id for ln in g) for g in groups) == [["v1", "v2"], ["v3", "v4"]]


def test_drop_capital_stays_with_its_caption() -> None:
    # a first line made twice as thick by a drop capital is still the same block
    lines = [
        _line(1, (100, 100, 500, 146), "SUDDENLY, FROM A DARK"),
        _line(2, (100, 140, 500, 165), "THICKET"),
    ]
    assert len(cluster_lines(lines)) == 1


def test_small_words_set_among_a_titles_large_letters_are_part_of_it() -> None:
    # "RESCUE / in the / DARK": the small words lie within the large words' boxes
    lines = [
        _line(1, (118, 132, 747, 303), "RESCUE"),
        _line(2, (267, 266, 519, 345), "IN THE"),
        _line(3, (108, 284, 679, 504), "DARK"),
    ]
    groups = cluster_lines(lines)
    assert len(groups) == 1
    assert [ln.text for ln in reading_order(groups[0])] == ["RESCUE", "IN THE", "DARK"]
    # a small line beside a large one, not within its box, stays apart (speech by a sound)
    apart = [_line(1, (100, 100, 500, 200), "BLAM"), _line(2, (520, 150, 700, 175), "LOOK OUT")]
    assert len(cluster_lines(apart)) == 2
    # a speck within a line's box read as a digit is no word of it
    speck = [_line(1, (198, 961, 296, 984), "JOE... HERE"), _line(2, (290, 966, 296, 972), "1")]
    assert len(cluster_lines(speck, size_ratio=3.0)) == 2


def test_fill_leaking_out_of_an_open_caption_is_not_taken_as_its_outline() -> None:
    # a light panel whose caption has no lower border: the fill spreads over the panel
    img, d = _page()
    d.rectangle((100, 50, 400, 580), fill=(235, 225, 150), outline=(0, 0, 0), width=3)
    boxes = [(120, 70, 380, 92), (120, 100, 380, 122)]
    for b in boxes:
        _letters(d, b)
    out = _run(img, _analysis([_line(1, boxes[0], "I LIKED HIM BUT"), _line(2, boxes[1], "NOT THAT MUCH")]))
    assert len(out.blocks) == 1
    block = out.blocks[0]
    assert block.polygon is None  # no outline was traced ...
    assert block.bbox.y1 < 200  # ... so the block is its text, not the whole panel


def test_short_exclamation_outside_a_traced_balloon_is_spoken() -> None:
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    box = (300, 300, 380, 322)
    _letters(d, box)
    out = _run(img, _analysis([_line(1, box, "HUH!"), _line(2, (300, 400, 380, 422), "EXIT")]))
    kinds = {b.text: b.kind for b in out.blocks}
    assert kinds["HUH!"] is BalloonKind.SPEECH
    assert kinds["EXIT"] is BalloonKind.OTHER


def _dented_caption(script: str = "latin") -> PageAnalysis:
    """A caption box inside the art whose letters touch its top and bottom frame lines."""
    img, d = _page()
    d.rectangle((200, 200, 520, 262), fill="white", outline="black", width=3)
    boxes = [(215, 198, 505, 231), (215, 231, 505, 264)]
    for x0, y0, x1, y1 in boxes:  # thin strokes, as real lettering, from frame to frame
        for x in range(x0, x1 - 4, 14):
            d.rectangle((x, y0 + 1, x + 3, y1 - 3), fill=(20, 20, 20))
    lines = [
        TextLine(f"t{i}", BBox(*b), t, 0.9, "text", script=script)
        for i, (b, t) in enumerate(zip(boxes, ["THAT NIGHT, IN THE", "VALLEY OF DOOM..."], strict=True))
    ]
    return _run(img, _analysis(lines))


def test_caption_whose_lettering_touches_its_frame_is_a_caption() -> None:
    # the letters bite into the box's fill, so the fill is no clean rectangle; its hull is
    assert [b.kind for b in _dented_caption().blocks] == [BalloonKind.CAPTION]
    # manga draws rectangular balloons for dialogue too: Japanese lettering keeps its balloon
    assert [b.kind for b in _dented_caption("japanese").blocks] == [BalloonKind.SPEECH]


def test_lettering_on_the_page_margin_is_a_caption_and_a_title_is_the_title() -> None:
    # white paper round one framed panel; narration written on the margin, a big title above
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    art = np.asarray(_page()[0])[150:560, 40:760]
    img.paste(Image.fromarray(art), (40, 150))
    d.rectangle((40, 150, 760, 560), outline="black", width=4)
    title, cap1, cap2 = (60, 20, 700, 80), (60, 100, 600, 118), (60, 122, 500, 140)
    for b in (title, cap1, cap2):
        _letters(d, b)
    lines = [
        _line(1, title, "MYSTERIOUS"),
        _line(2, cap1, "CHAD AND KALA ENJOY A GOOD DINNER"),
        _line(3, cap2, "ON SHORE AND HEAD BACK"),
    ]
    panel = Panel(id="p1", bbox=BBox(40, 150, 761, 561), confidence=1.0, stage="panels")
    words = WordList.from_lines(["mysterious"])
    out = BalloonsStage(words=words)(np.asarray(img.convert("RGB")), _analysis(lines, (panel,)))
    kinds = {b.text: b.kind for b in out.blocks}
    assert kinds["CHAD AND KALA ENJOY A GOOD DINNER ON SHORE AND HEAD BACK"] is BalloonKind.CAPTION
    # big display lettering of a word at the top: the story's title, said once before the page
    assert [(b.text, b.kind) for b in out.blocks if b.title] == [("MYSTERIOUS", BalloonKind.CAPTION)]
    assert all(b.bbox.area < 0.2 * W * H for b in out.blocks)  # never the whole page's box


def test_untraced_lettering_against_a_panel_border_is_a_caption_unless_a_cry() -> None:
    # a caption box filled to its frame by its words: no outline is traced, so where the
    # text sits tells it: against the panel's top border narration, a short cry or words
    # addressed to someone dialogue
    img, d = _page()
    d.rectangle((20, 20, 780, 580), outline="black", width=5)
    narration, cry, hello = [(28, 26, 400, 44), (28, 46, 380, 64)], (28, 552, 300, 570), (480, 552, 770, 570)
    for b in (*narration, cry, hello):
        _letters(d, b)
    lines = [
        _line(1, narration[0], "SEVERAL HOURS BEFORE DAWN,"),
        _line(2, narration[1], "ON THE ROOF OF THE ARROW BUILDING"),
        _line(3, cry, "HOW WONDERFUL! TERRIFIC!"),
        _line(4, hello, "HELLO MR. HAVCASH"),
    ]
    panel = Panel(id="p1", bbox=BBox(20, 20, 781, 581), confidence=1.0, stage="panels")
    kinds = {b.text: b.kind for b in _run(img, _analysis(lines, (panel,))).blocks}
    assert kinds == {
        "SEVERAL HOURS BEFORE DAWN, ON THE ROOF OF THE ARROW BUILDING": BalloonKind.CAPTION,
        "HOW WONDERFUL! TERRIFIC!": BalloonKind.SPEECH,
        "HELLO MR. HAVCASH": BalloonKind.SPEECH,
    }


def _balloon_with_a_solid_line(middle: tuple[int, int, int, int]) -> PageAnalysis:
    """A traced balloon of three lines whose middle one is drawn solid (bold letters that
    touch): no seed of the balloon's inside falls in its box."""
    img, d = _page()
    d.ellipse((150, 60, 500, 350), fill="black")
    d.polygon([(225, 320), (200, 420), (290, 330)], fill="black")
    d.ellipse((154, 64, 496, 346), fill="white")
    d.polygon([(232, 325), (203, 410), (280, 332)], fill="white")
    boxes = [(220, 150, 430, 175), middle, (230, 240, 420, 265)]
    _letters(d, boxes[0])
    d.rectangle(boxes[1], fill=(20, 20, 20))
    _letters(d, boxes[2])
    lines = [_line(1, boxes[0], "HELLO"), _line(2, boxes[1], "THERE"), _line(3, boxes[2], "FRIEND")]
    return _run(img, _analysis(lines))


def test_line_with_no_light_between_its_letters_joins_the_balloon_it_lies_in() -> None:
    out = _balloon_with_a_solid_line((225, 195, 425, 220))
    assert [b.text for b in out.blocks] == ["HELLO THERE FRIEND"]
    assert out.blocks[0].polygon is not None and out.blocks[0].tail is not None


def test_lettering_of_another_size_inside_a_balloon_is_not_joined_to_it() -> None:
    # twice the balloon's lettering: a sound drawn over it, not one of its lines
    out = _balloon_with_a_solid_line((270, 180, 380, 235))
    assert "THERE" in [b.text for b in out.blocks]


def test_two_balloons_joined_by_their_outlines_are_cut_apart() -> None:
    # one speaker's two balloons joined by a neck (one traced region): the second's lettering
    # starts a line and a half below the first's last line, at the same leading
    rows = [(80, 102), (104, 126), (128, 150), (180, 202), (204, 226)]
    lines = [_line(i, (230, y0, 370, y1), "X") for i, (y0, y1) in enumerate(rows)]
    assert cluster_lines(lines, gap=1.6, size_ratio=3.0) == [lines]  # one group by distance
    assert split_at_gaps(lines) == [lines[:3], lines[3:]]
    # lettering set loosely but evenly in one balloon stays whole
    even = [_line(i, (230, y, 370, y + 22), "X") for i, y in enumerate((100, 150, 200))]
    assert split_at_gaps(even) == [even]


def _two_lobes(second: tuple[int, int, int, int], lines: list[TextLine]) -> PageAnalysis:
    """A balloon at the left and, drawn over its right end, a second outline ``second``
    (the stroke between them is covered: one traced region with a waist)."""
    img, d = _page()
    d.ellipse((100, 200, 400, 330), fill="black")
    d.ellipse(second, fill="black")
    d.ellipse((104, 204, 396, 326), fill="white")
    x0, y0, x1, y1 = second
    d.ellipse((x0 + 4, y0 + 4, x1 - 4, y1 - 4), fill="white")
    for ln in lines:
        _letters(d, (int(ln.bbox.x0), int(ln.bbox.y0), int(ln.bbox.x1), int(ln.bbox.y1)))
    return _run(img, _analysis(lines))


def test_two_overlapping_balloons_traced_as_one_region_are_two_blocks() -> None:
    # "HAR-UMPH!" and "KER-CHOO!": two speakers' balloons, the second over the first's end
    lines = [_line(1, (150, 250, 375, 275), "HELLO"), _line(2, (365, 280, 600, 305), "THERE")]
    out = _two_lobes((370, 230, 680, 360), lines)
    assert [b.text for b in out.blocks] == ["HELLO", "THERE"]
    assert out.blocks[0].lines == ("t1",)


def test_a_line_across_the_waist_keeps_the_region_one_balloon() -> None:
    # the same outline, lettered across the neck: one balloon, one block
    lines = [_line(1, (150, 250, 620, 275), "HELLO THERE"), _line(2, (440, 290, 620, 315), "FRIEND")]
    out = _two_lobes((370, 230, 680, 360), lines)
    assert [b.text for b in out.blocks] == ["HELLO THERE FRIEND"]


def test_a_rule_between_two_rows_of_lettering_parts_them() -> None:
    # "THAT NIGHT..." in a caption box whose lower edge touches the balloon below it: the
    # frame runs between the rows; rows with only paper between them stay one block
    light = np.ones((H, W), np.uint8)
    lines = [_line(1, (40, 30, 150, 55), "THAT NIGHT"), _line(2, (38, 62, 200, 87), "JANE")]
    lines.append(_line(3, (38, 90, 200, 115), "THERE"))
    assert split_at_rules(lines, light) == [lines]
    light[58:60, 20:160] = 0  # the caption box's lower edge
    assert split_at_rules(lines, light) == [lines[:1], lines[1:]]
    light[58:60, 20:160] = 1
    light[58:60, 60:90] = 0  # an underline under one word is no frame
    assert split_at_rules(lines, light) == [lines]


def test_a_line_in_a_tinted_box_joins_the_untraced_lettering_its_box_overlaps() -> None:
    # narration on the paper round a panel whose middle row sits in a hatched, tinted box:
    # the row's seeds find only the gaps of its hatching and letters, its neighbours' the
    # paper, and the three rows' boxes overlap (as a tilted caption's do)
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    art = np.asarray(_page()[0])[150:560, 40:760]
    img.paste(Image.fromarray(art), (40, 150))
    d.rectangle((40, 150, 760, 560), outline="black", width=4)
    d.rectangle((55, 44, 305, 80), fill=(230, 130, 60))
    for x in range(55, 306, 3):
        d.line((x, 44, x, 80), fill=(60, 30, 10))
    top, middle, bottom = (60, 20, 300, 50), (60, 48, 300, 76), (60, 74, 300, 104)
    for b in (top, middle, bottom):
        _letters(d, b)
    lines = [_line(1, top, "AND WHEN"), _line(2, middle, "THE TWO WERE"), _line(3, bottom, "THROUGH")]
    panel = Panel(id="p1", bbox=BBox(40, 150, 761, 561), confidence=1.0, stage="panels")
    out = _run(img, _analysis(lines, (panel,)))
    assert [(b.text, b.kind) for b in out.blocks] == [("AND WHEN THE TWO WERE THROUGH", BalloonKind.CAPTION)]


def test_a_rule_parts_rows_that_share_only_a_short_width() -> None:
    # a caption's last row over a small balloon lettered under its right end ("...EVER AFTER"
    # over "NO... PLEASE."): the rows share only the balloon's width, less than two letters
    # high, and the caption's edge runs across all of it
    light = np.ones((H, W), np.uint8)
    caption, balloon = _line(1, (40, 30, 460, 75), "EVER AFTER"), _line(2, (400, 90, 470, 120), "NO...")
    assert split_at_rules([caption, balloon], light) == [[caption, balloon]]
    light[80:83, 30:470] = 0  # the caption box's lower edge
    assert split_at_rules([caption, balloon], light) == [[caption], [balloon]]
