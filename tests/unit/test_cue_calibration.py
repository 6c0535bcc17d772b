"""The uncertainty cue's calibration: which heard lines are wrong, and which carried the cue."""

from __future__ import annotations

import math

from panelvox.eval.cue_calibration import CueCounts, cue_metrics, format_cue_report, score_cues
from panelvox.eval.ground_truth import GoldenScript, LineKind, ScriptLine
from panelvox.eval.script_metrics import HeardBlock, score_script_page

CAST = {"Kala": ("the kid",), "Chad Billow": ("Chad", "Billow")}


def line(text: str, speaker: str | None = None, kind: str = "speech", sure: bool = True) -> ScriptLine:
    return ScriptLine(panel=1, kind=LineKind(kind), text=text, speaker=speaker, speaker_sure=sure)


def block(text: str, speaker: str | None = None, **kw: object) -> HeardBlock:
    return HeardBlock(id=text, text=text, kind=str(kw.pop("kind", "speech")), speaker=speaker, **kw)  # type: ignore[arg-type]


def cues(lines: list[ScriptLine], heard: list[HeardBlock]) -> CueCounts:
    script = GoldenScript(page="p1", cast=CAST, lines=tuple(lines))
    return score_cues(script, heard, score_script_page(script, heard))


def test_words_are_right_when_every_word_is_a_golden_run() -> None:
    lines = [line("WHO ARE YOU?", "Kala"), line("A FRIEND. OF YOURS.", "Chad Billow")]
    c = cues(
        lines,
        [
            block("Who are you?", "c1"),  # exact
            block("A friend.", "c2"),  # half a balloon, its words right
            block("You? A friend", "c2"),  # runs over two lines in order: still their words
            block("A FRIEMD.", "c2", unsure=True),  # one wrong letter, said with the cue
            block("Buy bonds", None),  # matches no line: junk is wrong words
        ],
    )
    assert c.lines == 5
    assert (c.text_cued, c.text_cued_wrong, c.text_plain_wrong) == (1, 1, 1)
    assert cue_metrics([c])["cue.text_cued_wrong"] == 1.0
    assert cue_metrics([c])["cue.text_plain_wrong"] == 0.25


def test_a_speaker_is_wrong_only_when_one_is_asserted() -> None:
    lines = [
        line("HELLO THERE", "Kala"),
        line("HI KALA", "Chad Billow"),
        line("HOW ARE YOU", "Kala"),
        line("FINE THANKS", "Chad Billow"),
    ]
    heard = [
        block("Hello there", "c1"),
        block("Hi Kala", "c2"),
        block("How are you", "c2", name="Chad", guess=True),  # the wrong person, said as a guess
        block("Fine thanks", None),  # "someone": asserts nobody
    ]
    c = cues(lines, heard)
    assert c.speaker_checked == 3
    assert (c.speaker_cued, c.speaker_cued_wrong, c.speaker_plain_wrong) == (1, 1, 0)
    assert (c.cued, c.cued_wrong, c.plain_wrong) == (1, 1, 0)


def test_reliability_bins_and_the_report() -> None:
    c = cues(
        [line("ONE"), line("TWO")],
        [block("One", confidence=0.95), block("Twa", confidence=0.35, unsure=True)],
    )
    assert sum(c.bin_lines) == 2 and sum(c.bin_wrong) == 1
    assert c.bin_wrong[1] == 1  # 0.30–0.40
    total = c + c
    assert total.lines == 4 and total.bin_lines[1] == 2
    report = format_cue_report([c, c])
    assert "| words | 0.500 (2 of 4) | 1.000 (2 of 2) | 0.000 (0 of 2) |" in report
    assert "| 0.30–0.40 | 2 | 1.000 (2 of 2) |" in report
    assert math.isnan(cue_metrics([])["cue.cued_wrong"])


def test_order_cues_counted_by_panel_and_page() -> None:
    """A panel whose golden lines are heard out of order is wrong; one heard in order is not;
    a panel of one heard block cannot be checked. A page is wrong when the lines go back to a
    panel heard before."""
    lines = [line("ONE"), line("TWO"), line("THREE"), line("FOUR"), line("FIVE"), line("SIX")]
    heard = [
        block("Two", panel="p1", order_cued=True),  # p1 heard out of order, and cued
        block("One", panel="p1"),
        block("Three", panel="p2", order_cued=True),  # p2 in order, but cued
        block("Four", panel="p2"),
        block("Five", panel="p3"),  # p3: one block heard, nothing to check
        block("Six", panel="p4"),
    ]
    c = cues(lines, heard)
    assert (c.order_panels, c.order_cued, c.order_cued_wrong, c.order_plain_wrong) == (2, 2, 1, 0)
    assert c.order_said == 2
    assert (c.order_pages, c.order_pages_cued, c.order_pages_plain_wrong) == (1, 0, 0)
    m = cue_metrics([c])
    assert m["cue.order_cued_wrong"] == 0.5 and math.isnan(m["cue.order_plain_wrong"])
    # the page's panels out of order: lines of p1 after those of p2; said with the notice
    back = [heard[2], heard[3], heard[1], heard[0], heard[4], heard[5]]
    script = GoldenScript(page="p1", cast=CAST, lines=tuple(lines))
    c = score_cues(script, back, score_script_page(script, back), panels_cued=True)
    assert (c.order_pages, c.order_pages_cued, c.order_pages_cued_wrong) == (1, 1, 1)
    assert "| a panel's balloons" in format_cue_report([c])
