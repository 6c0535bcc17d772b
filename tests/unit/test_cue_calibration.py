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
