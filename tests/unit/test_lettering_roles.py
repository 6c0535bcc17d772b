"""Lettering told as what it is: titles, signs after dialogue, marks that are not lettering,
tilted captions read along their slope, snores never said as numbers."""

from __future__ import annotations

import math

from panelvox.analysis.block_roles import tell_roles
from panelvox.analysis.lettering import WordList, clean_line, letters_for_digits
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.line_groups import reading_order
from panelvox.analysis.order_stage import order_blocks, order_panels
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel, Point, ReadingDirection, TextLine
from panelvox.narration.normalize import normalize_for_speech
from panelvox.narration.prefs import NarrationPrefs
from panelvox.narration.script import script_page

WORDS = WordList.load()
LEXICON = LetteringLexicon(WORDS)


def line(
    i: int, box: tuple[float, float, float, float], text: str, conf: float = 0.95, **kw: object
) -> TextLine:
    return TextLine(f"t{i}", BBox(*box), text, conf, "test", **kw)  # type: ignore[arg-type]


def block(
    i: int, kind: BalloonKind, box: tuple[float, float, float, float], text: str, **kw: object
) -> Balloon:
    return Balloon(f"b{i}", kind, BBox(*box), text, 0.9, "test", lines=(f"t{i}",), **kw)  # type: ignore[arg-type]


def speech_lines(n: int) -> list[TextLine]:
    """``n`` ordinary lines of speech 20 px thick, down the left of a 1000 x 1400 page."""
    return [line(100 + k, (50, 600 + 40 * k, 300, 620 + 40 * k), "WORDS OF A BALLOON") for k in range(n)]


def test_page_numbers_digits_in_the_art_and_scribbles_are_not_lettering() -> None:
    lines = [
        *speech_lines(6),
        line(1, (480, 1360, 500, 1380), "3"),
        line(2, (600, 900, 620, 920), "7"),
        line(3, (700, 1000, 780, 1020), "TER LAM", conf=0.6),
        line(4, (50, 50, 300, 70), "HELLO THERE"),
        line(6, (600, 200, 700, 240), "1000"),
    ]
    blocks = [
        block(1, BalloonKind.OTHER, (480, 1360, 500, 1380), "3"),  # the page number
        block(2, BalloonKind.OTHER, (600, 900, 620, 920), "7", panel="p1"),
        block(3, BalloonKind.OTHER, (700, 1000, 780, 1020), "TER LAM", panel="p1"),
        block(6, BalloonKind.OTHER, (600, 200, 700, 240), "1000", panel="p1"),  # a weight's label
        block(4, BalloonKind.SPEECH, (40, 40, 310, 80), "HELLO THERE", polygon=(Point(40, 40),) * 3),
        # a number inside a traced balloon is said: it is lettering
        block(5, BalloonKind.SPEECH, (40, 400, 310, 440), "1944", polygon=(Point(40, 400),) * 3),
    ]
    kept = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert sorted(b.id for b in kept) == ["b4", "b5", "b6"]


def test_foreign_script_on_a_page_lettered_in_english_is_not_spoken() -> None:
    lines = [*speech_lines(8), line(1, (600, 900, 700, 920), "前見!!商兵", conf=0.95, script="japanese")]
    blocks = [block(1, BalloonKind.OTHER, (600, 900, 700, 920), "前見!!商兵", language="ja")]
    assert tell_roles(blocks, lines, 1400, WORDS, LEXICON) == []
    # on a manga page, Japanese is the lettering
    jp = [
        line(k, (900 - 40 * k, 100, 920 - 40 * k, 300), "ことば", script="japanese", vertical=True)
        for k in range(8)
    ]
    assert len(tell_roles(blocks, jp, 1400, WORDS, LEXICON)) == 1


def test_display_lettering_at_the_top_is_one_title_and_a_sound_is_not() -> None:
    lines = [
        *speech_lines(6),
        line(1, (40, 10, 840, 170), "MYSTERIOUS"),
        line(2, (380, 110, 920, 245), "TREASURE"),
        line(3, (500, 300, 700, 400), "KRAKOOM"),
        line(4, (100, 300, 300, 400), "BANG"),
    ]
    blocks = [
        block(1, BalloonKind.SFX, (40, 10, 840, 170), "MYSTERIOUS"),
        block(2, BalloonKind.SFX, (380, 110, 920, 245), "TREASURE"),
        block(3, BalloonKind.SFX, (500, 300, 700, 400), "KRAKOOM"),
        block(4, BalloonKind.SFX, (100, 300, 300, 400), "BANG"),
    ]
    out = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    title = [b for b in out if b.title]
    assert [(b.text, b.kind) for b in title] == [("MYSTERIOUS TREASURE", BalloonKind.CAPTION)]
    assert {b.text for b in out if not b.title} == {"KRAKOOM", "BANG"}
    # the same lettering low on the page is a sound or a sign, not the story's title
    low = [
        b
        for b in tell_roles(
            [block(2, BalloonKind.SFX, (380, 1110, 920, 1245), "TREASURE")],
            [*speech_lines(6), line(2, (380, 1110, 920, 1245), "TREASURE")],
            1400,
            WORDS,
            LEXICON,
        )
    ]
    assert not low[0].title


def test_the_title_is_said_first_and_signs_after_the_panels_dialogue() -> None:
    ps = order_panels(
        [Panel("p1", BBox(0, 0, 1000, 700), 1.0, "t"), Panel("p2", BBox(0, 710, 1000, 1400), 1.0, "t")],
        ReadingDirection.LTR,
    )
    blocks = [
        block(1, BalloonKind.SPEECH, (600, 300, 900, 400), "LOOK OUT!"),
        block(2, BalloonKind.OTHER, (50, 250, 200, 300), "DANGER THIN ICE"),
        block(3, BalloonKind.SPEECH, (300, 350, 500, 450), "TOO LATE!"),
        block(4, BalloonKind.CAPTION, (40, 10, 900, 240), "MYSTERIOUS TREASURE", title=True),
        block(5, BalloonKind.SPEECH, (50, 800, 300, 900), "LATER."),
    ]
    ordered = sorted(order_blocks(blocks, ps, ReadingDirection.LTR), key=lambda b: b.order or 0)
    assert [b.id for b in ordered] == ["b4", "b3", "b1", "b2", "b5"]
    assert ordered[0].panel is None
    page = PageAnalysis(
        page=1,
        width=1000,
        height=1400,
        direction=ReadingDirection.LTR,
        panels=tuple(ps),
        blocks=tuple(ordered),
    )
    said = [u.text for u in script_page(page, NarrationPrefs())]
    assert said[0] == "Title: Mysterious treasure"
    assert sum("Mysterious" in s for s in said) == 1


def tilted(i: int, x: float, y: float, length: float, text: str, deg: float = 12.0) -> TextLine:
    """A line of lettering 22 px thick starting at (x, y), sloping down by ``deg``."""
    a = math.radians(deg)
    ux, uy = math.cos(a), math.sin(a)
    nx, ny = -uy * 22, ux * 22
    pts = [
        (x, y),
        (x + ux * length, y + uy * length),
        (x + ux * length + nx, y + uy * length + ny),
        (x + nx, y + ny),
    ]
    box = BBox(min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))
    return TextLine(f"t{i}", box, text, 0.9, "test", polygon=tuple(Point(*p) for p in pts))


def test_a_tilted_caption_is_read_along_its_slope() -> None:
    # each row is cut into two pieces; at 12 degrees the right piece of a row sits lower
    # than the left piece of the next row
    rows = [("CHAD BILLOW,", "YOUNG"), ("ADVENTURER,", "AND HIS"), ("YOUNG SIDE-", "KICK, A")]
    lines = []
    for r, (left, right) in enumerate(rows):
        y = 100 + 30 * r / math.cos(math.radians(12))
        x = 100 + 4 * r
        lines.append(tilted(2 * r, x, y, 120, left))
        lines.append(
            tilted(
                2 * r + 1,
                x + 135 * math.cos(math.radians(12)),
                y + 135 * math.sin(math.radians(12)),
                90,
                right,
            )
        )
    shuffled = [lines[k] for k in (3, 0, 5, 2, 1, 4)]
    assert [ln.text for ln in reading_order(shuffled)] == [t for row in rows for t in row]


def test_a_snore_misread_as_digits_is_said_as_written() -> None:
    assert letters_for_digits("ZZZZZZ-22") == "ZZZZZZ-ZZ"
    assert letters_for_digits("2-2-2") == "Z-Z-Z"
    for number in ("B-52", "555-1234", "ROOM 222", "1944", "3.50"):
        assert letters_for_digits(number) == number
    assert clean_line("ZZZZZZ-22", WORDS, "latin") == "ZZZZZZ-ZZ"
    spoken = normalize_for_speech("ZZZZZZ-22")
    assert not any(w in spoken for w in ("two", "hundred", "thousand")), spoken
    assert normalize_for_speech("Z-Z-Z") == "Z-z-z"
    assert "nineteen forty-four" in normalize_for_speech("IN 1944!")


def test_the_lexicon_knows_lettering_words_and_stretched_ones() -> None:
    for word in ("GOING", "AAAAGH", "NOOOOO", "ZZZZZZ", "I'M", "GOIN'", "WHADDAYA", "KABOOM", "WHEREDID"):
        assert LEXICON(word), word
    for token in ("COING", "WACATION", "ZUN", "VILL"):
        assert not LEXICON(token), token


def test_hand_lettered_question_marks_and_lone_ones_read_as_letters_are_restored() -> None:
    assert clean_line("WHAT IS ITZ", WORDS, "latin") == "WHAT IS IT?"
    assert clean_line("HAVE YOU SEEN MIDNIGHT2", WORDS, "latin") == "HAVE YOU SEEN MIDNIGHT?"
    for word in ("BUZZ", "ZZZ", "JAZZ", "WHIZ"):
        assert clean_line(word, WORDS, "latin") == word
    assert clean_line("1 CAN'T LOOK", WORDS, "latin") == "I CAN'T LOOK"
    assert clean_line("BUT I 1 THINK", WORDS, "latin") == "BUT I I THINK"
    for numbered in ("THE R3Y 1 TURBOPROP", "ROOM 1", "A 1000 POUND WEIGHT"):
        assert clean_line(numbered, WORDS, "latin") == numbered


def test_spaces_are_neither_lost_nor_invented_inside_a_word_or_a_name() -> None:
    assert clean_line("WHEREDID HE GO", WORDS, "latin") == "WHERE DID HE GO"
    assert clean_line("BARBARA WON'T", WORDS, "latin") == "BARBARA WON'T"  # not BAR BAR A
    assert clean_line("SMART FELLAS", WORDS, "latin") == "SMART FELLAS"  # not FELL AS
    assert clean_line("PASS IN SPECTION", WORDS, "latin") == "PASS INSPECTION"
    assert clean_line("IN THE CAR", WORDS, "latin") == "IN THE CAR"  # two words stay two


def test_a_word_broken_at_a_line_end_comes_back_whole() -> None:
    from panelvox.analysis.lettering import join_lines

    assert (
        join_lines(["LET HIM SLEEP, HE'S HIBER-", "NATING!"], "latin", WORDS)
        == "LET HIM SLEEP, HE'S HIBERNATING!"
    )
    assert join_lines(["A ROUGH VEN-", "TURE"], "latin", WORDS) == "A ROUGH VENTURE"
    # a compound keeps its hyphen: both halves words, or halves that together make no word
    assert join_lines(["HIS YOUNG SIDE-", "KICK"], "latin", WORDS) == "HIS YOUNG SIDE-KICK"
    assert join_lines(["THEIR FORTY-", "FOOTER"], "latin", WORDS) == "THEIR FORTY-FOOTER"


def test_sounds_are_sound_effects_and_cries_are_speech_whatever_their_size() -> None:
    lines = speech_lines(6)
    blocks = [
        block(1, BalloonKind.CAPTION, (500, 700, 700, 760), "CRASH! BANG!", panel="p1"),
        block(2, BalloonKind.SPEECH, (500, 800, 700, 860), "R-RRINGG!", panel="p1"),
        block(3, BalloonKind.SFX, (500, 900, 700, 1000), "OUCH!", panel="p1"),
        block(7, BalloonKind.SFX, (100, 900, 300, 1000), "YEEOWW!!", panel="p1"),  # a stretched cry
        block(8, BalloonKind.OTHER, (100, 1250, 300, 1280), "SOCK", panel="p1"),  # a blow
        block(4, BalloonKind.SFX, (500, 1100, 700, 1200), "WHAMMM!", panel="p1"),
        block(6, BalloonKind.SFX, (500, 1250, 700, 1350), "PCHKE", panel="p1"),  # a misread: no word
        # a creature's voice in a traced balloon is its line, even spelt as a sound
        block(5, BalloonKind.SPEECH, (100, 1100, 300, 1200), "ARF! ARF!", polygon=(Point(1, 1),) * 3),
    ]
    kinds = {b.id: b.kind for b in tell_roles(blocks, lines, 1400, WORDS, LEXICON)}
    assert kinds == {
        "b1": BalloonKind.SFX,
        "b2": BalloonKind.SFX,
        "b3": BalloonKind.SPEECH,
        "b4": BalloonKind.SFX,
        "b5": BalloonKind.SPEECH,
        "b6": BalloonKind.SFX,
        "b7": BalloonKind.SPEECH,
        "b8": BalloonKind.SFX,
    }


def test_lettering_that_moves_the_story_on_is_narration() -> None:
    lines = speech_lines(6)
    blocks = [
        block(1, BalloonKind.OTHER, (500, 700, 700, 730), "LATER", panel="p1"),
        block(2, BalloonKind.SPEECH, (500, 800, 900, 830), "AND MEANWHILE...", panel="p1"),
        block(3, BalloonKind.OTHER, (500, 900, 700, 930), "THE END", panel="p1"),
        block(4, BalloonKind.SPEECH, (500, 1000, 700, 1030), "SUDDENLY! LOOK!", panel="p1"),  # a cry
        block(5, BalloonKind.OTHER, (500, 1100, 700, 1130), "BEAUTY PARLOR", panel="p1"),  # a sign
        # the detector lost the first letter: given back where one narration word results
        block(6, BalloonKind.OTHER, (500, 1150, 700, 1180), "UDDENLY...", panel="p1"),
        block(7, BalloonKind.OTHER, (500, 1200, 700, 1230), "ATER", panel="p1"),
        block(
            8, BalloonKind.OTHER, (500, 1250, 700, 1280), "ORRY...", panel="p1"
        ),  # SORRY, WORRY: no narration
        # a narration word opening a later sentence
        block(9, BalloonKind.SPEECH, (50, 1300, 400, 1330), "SHE ASKS A MOUSE... SUDDENLY SHE SEES A HOUSE"),
        block(10, BalloonKind.SPEECH, (50, 1350, 400, 1380), "WE RAN. SUDDENLY IT ROARED!"),  # a cry
        # lettering already told as a caption (by its place) gets its letter back too
        block(11, BalloonKind.CAPTION, (500, 1390, 700, 1398), "ATER... AT THE HOSPITAL", panel="p1"),
    ]
    out = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert [b.kind for b in out] == [
        BalloonKind.CAPTION,
        BalloonKind.CAPTION,
        BalloonKind.CAPTION,
        BalloonKind.SPEECH,
        BalloonKind.OTHER,
        BalloonKind.CAPTION,
        BalloonKind.CAPTION,
        BalloonKind.OTHER,
        BalloonKind.CAPTION,
        BalloonKind.SPEECH,
        BalloonKind.CAPTION,
    ]
    assert [b.text for b in out[5:8]] == ["SUDDENLY...", "LATER", "ORRY..."]
    assert out[10].text == "LATER... AT THE HOSPITAL"


def test_stacked_lines_whose_loose_outlines_overlap_are_two_rows() -> None:
    # a balloon's first line drawn with a tall outline reaching into the second line's
    quick = line(1, (513, 31, 674, 68), "QUICK, KALA,")
    go = line(2, (512, 51, 665, 81), "GO OVER TO")
    road = line(3, (515, 71, 679, 98), "THE ROAD AND")
    assert [ln.text for ln in reading_order([road, go, quick])] == [
        "QUICK, KALA,",
        "GO OVER TO",
        "THE ROAD AND",
    ]


def test_display_lettering_of_sounds_is_a_sound_effect_even_inside_a_traced_outline() -> None:
    # speech lines are 20 px thick; "BOP!" is 60 px (the art round it traced as an outline),
    # "WOOF!" is lettered at the dialogue's size in a dog's balloon: a line of speech
    traced = {"polygon": (Point(1, 1),) * 3}
    lines = [*speech_lines(6), line(1, (500, 700, 640, 760), "BOP!"), line(2, (500, 900, 580, 922), "WOOF!")]
    blocks = [
        block(1, BalloonKind.SPEECH, (480, 680, 660, 780), "BOP!", panel="p1", **traced),
        block(2, BalloonKind.SPEECH, (480, 880, 600, 940), "WOOF!", panel="p1", **traced),
    ]
    kinds = [b.kind for b in tell_roles(blocks, lines, 1400, WORDS, LEXICON)]
    assert kinds == [BalloonKind.SFX, BalloonKind.SPEECH]


def test_a_sound_made_by_a_thing_is_a_sound_effect_in_an_outline_and_a_voice_is_a_line() -> None:
    # all lettered at the dialogue's size (20 px): the light ground round "CLAP" or
    # "CRASH! BANG!" in the art was traced as an outline (with a "tail": a spike of it)
    traced = {"polygon": (Point(1, 1),) * 3}
    texts = ["CLAP", "CRASH! BANG!", "CHOP CHOP CHOP CHOP!", "WOOF!", "MEOWWW!", "BANG! YOU'RE DEAD!"]
    lines = [*speech_lines(6)]
    blocks = []
    for k, text in enumerate(texts, start=1):
        lines.append(line(k, (500, 100 * k, 700, 100 * k + 20), text))
        blocks.append(block(k, BalloonKind.SPEECH, (480, 100 * k - 20, 720, 100 * k + 40), text, **traced))
    kinds = [b.kind for b in tell_roles(blocks, lines, 1400, WORDS, LEXICON)]
    assert kinds == [BalloonKind.SFX] * 3 + [BalloonKind.SPEECH] * 3


def test_a_title_may_be_traced_round_or_a_name_but_is_read_surely() -> None:
    traced = {"polygon": (Point(1, 1),) * 3}
    big = [line(1, (100, 20, 700, 80), "THE LEATHERN CORD"), line(2, (100, 20, 300, 80), "WILLIE")]
    # the art round the title traced as an outline; a name as the story's title
    for ln, kind, kw in ((big[0], BalloonKind.SPEECH, traced), (big[1], BalloonKind.SFX, {})):
        b = block(int(ln.id[1:]), kind, (90, 10, 710, 90), ln.text, **kw)
        out = tell_roles([b], [*speech_lines(6), ln], 1400, WORDS, LEXICON)
        assert [(x.title, x.kind) for x in out] == [(True, BalloonKind.CAPTION)]
    # a large misread ("HE ALLED MY", read at 0.75) is not announced as the title
    unsure = line(3, (100, 300, 500, 340), "HE ALLED MY", conf=0.75)
    b = block(3, BalloonKind.OTHER, (100, 300, 500, 340), unsure.text)
    assert not tell_roles([b], [*speech_lines(6), unsure], 1400, WORDS, LEXICON)[0].title


def test_lettering_far_smaller_than_the_logo_and_outside_it_is_a_sign_not_the_title() -> None:
    # speech 20 px thick; the logo "SNIFFY" 200 px, a shop's sign 55 px under it
    logo = line(1, (0, 0, 900, 200), "SNIFFY")
    sign = [line(2, (700, 240, 1000, 295), "POOCH"), line(3, (700, 300, 1000, 355), "PALACE")]
    subtitle = line(4, (300, 120, 600, 175), "THE WONDER DOG")  # lettered within the logo
    blocks = [
        block(1, BalloonKind.SFX, (0, 0, 900, 200), "SNIFFY"),
        Balloon(
            "b2", BalloonKind.OTHER, BBox(700, 240, 1000, 355), "POOCH PALACE", 0.9, "t", lines=("t2", "t3")
        ),
    ]
    out = tell_roles(blocks, [*speech_lines(6), logo, *sign], 1400, WORDS, LEXICON)
    assert [(b.text, b.kind, b.title) for b in out] == [
        ("SNIFFY", BalloonKind.CAPTION, True),  # the logo is the story's title
        ("POOCH PALACE", BalloonKind.OTHER, False),
    ]
    # without the logo the same lettering is the page's largest, taken for its title
    alone = tell_roles(blocks[1:], [*speech_lines(6), *sign], 1400, WORDS, LEXICON)
    assert [(b.text, b.title) for b in alone] == [("POOCH PALACE", True)]
    # a subtitle lettered within the logo's letters is part of the title still
    within = block(4, BalloonKind.OTHER, (300, 120, 600, 175), subtitle.text)
    out = tell_roles([blocks[0], within], [*speech_lines(6), logo, subtitle], 1400, WORDS, LEXICON)
    assert [(b.text, b.title) for b in out] == [("SNIFFY THE WONDER DOG", True)]


def test_a_logo_far_larger_than_all_lettering_is_the_title_though_no_word() -> None:
    def told(
        text: str, box: tuple[float, float, float, float], kind: BalloonKind = BalloonKind.SFX
    ) -> Balloon:
        ln = line(1, box, text)
        return tell_roles([block(1, kind, box, text)], [*speech_lines(6), ln], 1400, WORDS, LEXICON)[0]

    # speech is 20 px thick: a name 120 px high at the top, read as a sound or as speech
    assert told("GUNGA", (70, 10, 700, 130)).title
    assert told("TONFISH", (70, 10, 700, 130), BalloonKind.SPEECH).title
    # a sound or a cry as large is no title, nor a name lettered only three times as large
    assert not told("BLAMMM", (70, 10, 700, 130)).title
    assert not told("GUNGA!", (70, 10, 700, 130)).title
    assert not told("GUNGA", (70, 10, 400, 70)).title


def test_a_box_running_the_panels_width_told_in_the_past_is_a_caption() -> None:
    panel = Panel("p1", BBox(0, 0, 1000, 700), 1.0, "t")
    traced = {"polygon": (Point(1, 1),) * 3, "panel": "p1"}
    texts = [
        "IT OCCURRED TO THE PROFESSOR THAT A WALK MIGHT BE HELPFUL, AND SO...",  # narration
        "THAT DOES IT. NOW TO SLEEP TILL SPRING",  # dialogue: the present
        "WHO OPENED THE DOOR?",  # a question
    ]
    lines, blocks = speech_lines(6), []
    for k, text in enumerate(texts, start=1):
        lines.append(line(k, (20, 10, 980, 30), text))
        blocks.append(block(k, BalloonKind.SPEECH, (5, 2, 995, 60), text, **traced))
    # the same narration in a balloon amid the panel is dialogue
    lines.append(line(4, (300, 300, 700, 320), texts[0]))
    blocks.append(block(4, BalloonKind.SPEECH, (280, 280, 720, 340), texts[0], **traced))
    kinds = [b.kind for b in tell_roles(blocks, lines, 1400, WORDS, LEXICON, panels=[panel])]
    assert kinds == [BalloonKind.CAPTION, BalloonKind.SPEECH, BalloonKind.SPEECH, BalloonKind.SPEECH]


def test_unsure_unworded_lettering_or_very_unsure_display_lettering_is_not_spoken_and_a_lone_2_is_a_question() -> (
    None
):
    lines = [
        *speech_lines(6),
        line(1, (500, 700, 640, 760), "PCHKE", conf=0.6),
        line(2, (500, 800, 640, 860), "QHO", conf=0.5),
        line(3, (500, 900, 640, 960), "KRAKOOM", conf=0.95),  # a sound of the artist's making
        line(4, (100, 900, 300, 920), "DAT'S DE WAY, BUB", conf=0.75),  # dialect: words
        line(5, (100, 1000, 130, 1030), "2"),
        line(6, (300, 1000, 330, 1030), "2"),
        line(7, (100, 1100, 400, 1120), "SEVERAL HOURS BEFORE DAWN", conf=0.65),  # unsure, words
        line(8, (700, 700, 900, 750), "ARIA", conf=0.55),  # display-size marks of the art, a word
        line(9, (700, 800, 900, 850), "BANG", conf=0.75),  # a sound read unsurely, still a sound
    ]
    traced = {"polygon": (Point(1, 1),) * 3, "panel": "p1"}
    blocks = [
        block(1, BalloonKind.SFX, (500, 700, 640, 760), "PCHKE", panel="p1"),
        block(2, BalloonKind.SPEECH, (500, 800, 640, 860), "QHO", panel="p1"),
        block(3, BalloonKind.SFX, (500, 900, 640, 960), "KRAKOOM", panel="p1"),
        block(4, BalloonKind.SPEECH, (100, 900, 300, 920), "DAT'S DE WAY, BUB", panel="p1"),
        block(5, BalloonKind.THOUGHT, (90, 990, 140, 1040), "2", **traced),  # a "?" in a balloon
        block(6, BalloonKind.OTHER, (300, 1000, 330, 1030), "2", panel="p1"),  # a digit in the art
        block(7, BalloonKind.CAPTION, (100, 1100, 400, 1120), "SEVERAL HOURS BEFORE DAWN", panel="p1"),
        block(8, BalloonKind.SFX, (700, 700, 900, 750), "ARIA", panel="p1"),
        block(9, BalloonKind.SFX, (700, 800, 900, 850), "BANG", panel="p1"),
    ]
    out = tell_roles(blocks, lines, 1400, WORDS, LEXICON)
    assert [b.id for b in out] == ["b3", "b4", "b5", "b7", "b9"]
    assert out[2].text == "?"


def test_one_unsure_word_in_an_outline_is_a_mark_of_the_art_and_a_sure_one_is_said() -> None:
    traced = {"polygon": (Point(1, 1),) * 3, "panel": "p1"}
    lines = [
        *speech_lines(6),
        line(1, (500, 700, 640, 760), "NIIVK", conf=0.55),  # motion lines over a head
        line(2, (500, 800, 640, 820), "HUH?", conf=0.95),
        line(3, (100, 900, 300, 920), "I CAN'T MAKE IT", conf=0.55),
    ]
    blocks = [
        block(1, BalloonKind.SPEECH, (480, 680, 660, 780), "NIIVK", **traced),
        block(2, BalloonKind.SPEECH, (480, 780, 660, 840), "HUH?", **traced),
        block(3, BalloonKind.SPEECH, (80, 880, 320, 940), "I CAN'T MAKE IT", **traced),  # said, unsure
    ]
    assert [b.id for b in tell_roles(blocks, lines, 1400, WORDS, LEXICON)] == ["b2", "b3"]
