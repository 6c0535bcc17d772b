"""Golden-script metrics on tiny made-up scripts, and the real cib scripts where present."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import GoldenScript, LineKind, ScriptLine
from panelvox.eval.loaders.script_loader import load_script, load_scripts
from panelvox.eval.script_metrics import (
    HeardBlock,
    aggregate_scores,
    name_fits,
    name_words,
    normalize_text,
    score_script_page,
)
from panelvox.eval.script_report import format_script_report

CAST = {"Kala": ("the kid",), "Chad Billow": ("Chad", "Billow"), "Jasper": (), "Wilbur": ()}


def line(text: str, speaker: str | None = None, kind: str = "speech", sure: bool = True) -> ScriptLine:
    return ScriptLine(panel=1, kind=LineKind(kind), text=text, speaker=speaker, speaker_sure=sure)


def script(*lines: ScriptLine) -> GoldenScript:
    return GoldenScript(page="p1", cast=CAST, lines=lines)


def heard(*texts: str, kind: str = "speech") -> list[HeardBlock]:
    return [HeardBlock(id=f"b{i}", text=t, kind=kind) for i, t in enumerate(texts)]


def said(text: str, speaker: str | None, name: str | None = None, guess: bool = False) -> HeardBlock:
    return HeardBlock(id=text, text=text, kind="speech", speaker=speaker, name=name, guess=guess)


# ---------------------------------------------------------------- finding lines


def test_normalisation_keeps_letters_and_digits_in_capitals() -> None:
    assert normalize_text("  Doggone good dinner, hey, Chad?  Me glad... 'board") == (
        "DOGGONE GOOD DINNER HEY CHAD ME GLAD BOARD"
    )
    assert normalize_text("?!") == ""
    assert normalize_text("snake_case -- 42") == "SNAKE CASE 42"


def test_normalisation_keeps_letters_of_every_script() -> None:
    # a Japanese line was emptied by "outside A-Z and 0-9", so it could never be found
    assert normalize_text("そんな借金なんて!") == "そんな借金なんて"
    assert normalize_text("レーネ...") == "レーネ"  # the long-vowel mark is a letter
    assert normalize_text("ガンマンだって...?") == "ガンマンだって"
    assert normalize_text("Café, señor!") == "CAFÉ SEÑOR"
    # NFKC: full-width Latin and digits, half-width kana, circled digits
    assert normalize_text("ＯＫ！　１２３") == "OK 123"
    assert normalize_text("ｼｵﾗ") == "シオラ"
    assert normalize_text("②") == "2"


def test_a_japanese_line_is_found_and_ordered() -> None:
    s = script(line("だからっ"), line("知らないって言ってるだろっ"), line("そんな借金なんて!"))
    score = score_script_page(s, heard("そんな借金なんて!", "だからっ", "知らないって言ってるだろ"))
    assert (score.lines, score.found, score.exact) == (3, 3, 2)
    assert score.positions == (1, 2, 0)
    assert score.in_order == 2


def test_exact_match_is_found_and_read_exactly() -> None:
    s = script(line("LOOK, CHAD!"), line("WE'LL HELP HIM!"))
    score = score_script_page(s, heard("Look chad", "we'll help him"))
    assert (score.lines, score.found, score.exact, score.in_order) == (2, 2, 2, 2)
    assert score.positions == (0, 1)
    assert score.junk == 0


def test_a_line_split_over_two_blocks_is_found_at_its_first_block() -> None:
    s = script(line("I WANT MY WATTA HORSE!"))
    score = score_script_page(s, heard("OH", "I WANT MY", "WATTA HORSE!"))
    assert score.found == 1
    assert score.positions == (1,)
    assert score.exact == 1  # joined with a space, the normalised texts are equal


def test_a_line_inside_a_longer_block_is_found_by_partial_ratio() -> None:
    s = script(line("HELLO THERE"), line("HOW ARE YOU?"))
    score = score_script_page(s, heard("HELLO THERE, FRIEND! HOW ARE YOU?"))
    assert score.found == 2
    assert score.positions == (0, 0)
    # one block for both lines: the chain of first blocks must be strictly increasing
    assert score.in_order == 1
    assert score.junk == 0


def test_partial_needs_a_block_more_than_three_characters_longer() -> None:
    s = script(line("HELLO"))
    assert score_script_page(s, heard("HELLO YO")).found == 0  # 3 longer: Levenshtein only, 0.625
    assert score_script_page(s, heard("HELLO YOU")).found == 1


def test_a_block_matching_no_line_is_junk_and_empty_blocks_are_ignored() -> None:
    s = script(line("LOOK, CHAD!"))
    score = score_script_page(s, heard("LOOK CHAD", "ZQXJ VWKP", "?!", ""))
    assert score.blocks == 2
    assert score.junk == 1
    assert score.junk_rate == 0.5


def test_lines_without_letters_or_digits_are_not_scored() -> None:
    s = script(line("?"), line("HEY!"))
    score = score_script_page(s, heard("?", "HEY"))
    assert (score.lines, score.found) == (1, 1)


def test_a_tie_goes_to_the_earliest_window() -> None:
    s = script(line("ARF!"), line("ARF!"))
    assert score_script_page(s, heard("ARF", "ARF")).positions == (0, 0)


def test_found_in_reading_order_is_the_longest_increasing_chain() -> None:
    s = script(line("FIRST LINE HERE"), line("SECOND LINE NOW"), line("THIRD ONE LAST"))
    score = score_script_page(s, heard("SECOND LINE NOW", "FIRST LINE HERE", "THIRD ONE LAST"))
    assert score.positions == (1, 0, 2)
    assert (score.found, score.in_order) == (3, 2)
    assert score.in_order_rate == pytest.approx(2 / 3)


def test_kind_groups() -> None:
    s = script(
        line("MYSTERIOUS TREASURE", kind="title"),
        line("FOR SALE CHEAP", kind="sign"),
        line("KA-BLAM", kind="sfx"),
        line("I WONDER WHY", kind="thought"),
    )
    blocks = [
        HeardBlock("b0", "MYSTERIOUS TREASURE", "caption"),
        HeardBlock("b1", "FOR SALE CHEAP", "speech"),
        HeardBlock("b2", "KA-BLAM", "sfx"),
        HeardBlock("b3", "I WONDER WHY", "speech"),
    ]
    assert score_script_page(s, blocks).kind_right == 3


def test_an_unknown_block_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        HeardBlock("b0", "HI", "balloon")


# ---------------------------------------------------------------- speakers


def test_name_words_drop_short_words_and_the_stop_list() -> None:
    assert name_words("The man in the blue shirt") == {"blue", "shirt"}
    assert name_words("Al") == frozenset()
    s = script()
    assert name_fits(s, "Sergeant Bates", "unnamed: the sergeant")
    assert not name_fits(s, "The Man", "unnamed: the man in the blue shirt")
    assert name_fits(s, "Mr. Billow", "Chad Billow")
    assert not name_fits(s, "The Sergeant", "Kala")  # "the" of the alias "the kid" is no name word
    assert name_fits(s, "Wilbur", "Jasper and Wilbur")
    assert not name_fits(s, "Kala", None)


DIALOGUE = ("KALA SAYS ONE", "KALA SAYS TWO", "CHAD SAYS THREE")


def test_hungarian_mapping_without_names_maximises_agreement() -> None:
    s = script(line(DIALOGUE[0], "Kala"), line(DIALOGUE[1], "Kala"), line(DIALOGUE[2], "Chad Billow"))
    blocks = [said(DIALOGUE[0], "c1"), said(DIALOGUE[1], "c1"), said(DIALOGUE[2], "c2")]
    assert score_script_page(s, blocks).speakers.attribution_right == 3


def test_a_wrong_name_forbids_the_mapping() -> None:
    s = script(line(DIALOGUE[0], "Kala"), line(DIALOGUE[1], "Kala"), line(DIALOGUE[2], "Chad Billow"))
    # c1 says Kala's lines but is named Chad: it may only map to Chad Billow, who it never voices
    blocks = [said(DIALOGUE[0], "c1", "Chad"), said(DIALOGUE[1], "c1", "Chad"), said(DIALOGUE[2], "c2")]
    counts = score_script_page(s, blocks).speakers
    assert (counts.attribution_right, counts.attribution_total) == (1, 3)


def test_attribution_counts_only_sure_named_speakers_and_missing_ids_are_wrong() -> None:
    s = script(
        line(DIALOGUE[0], "Kala"),
        line(DIALOGUE[1], "Kala", sure=False),
        line(DIALOGUE[2], None),
        line("WHERE IS CHAD", "Kala"),
    )
    blocks = [
        said(DIALOGUE[0], "c1"),
        said(DIALOGUE[1], "c1"),
        said(DIALOGUE[2], "c1"),
        said("WHERE IS CHAD", None),
    ]
    counts = score_script_page(s, blocks).speakers
    assert (counts.attribution_right, counts.attribution_total) == (1, 2)


def test_turns_compare_same_speaker_as_before() -> None:
    texts = ("ONE LINE A", "TWO LINE A", "THREE LINE B", "FOUR LINE B")
    s = script(
        line(texts[0], "Kala"), line(texts[1], "Kala"), line(texts[2], "Jasper"), line(texts[3], "Jasper")
    )
    blocks = [said(texts[0], "c1"), said(texts[1], "c1"), said(texts[2], "c2"), said(texts[3], None)]
    counts = score_script_page(s, blocks).speakers
    # same/same right, different/different right, same vs "None is never the same" wrong
    assert (counts.turns_right, counts.turns_total) == (2, 3)


def test_named_precision_and_recall_with_a_guess() -> None:
    texts = ("FIRST BY KALA", "SECOND BY CHAD", "THIRD BY CHAD", "FOURTH BY SARGE", "FIFTH NARRATED")
    s = script(
        line(texts[0], "Kala"),
        line(texts[1], "Chad Billow"),
        line(texts[2], "Chad Billow", sure=False),
        line(texts[3], "unnamed: the sergeant"),
        line(texts[4], None),
    )
    blocks = [
        said(texts[0], "c1", "Kala"),
        said(texts[1], "c2", "Kala", guess=True),
        said(texts[2], "c2", "Chad", guess=True),
        said(texts[3], "c3", "Sergeant"),
        said(texts[4], "c4", "Wilbur"),
    ]
    c = score_script_page(s, blocks).speakers
    assert (c.names_said, c.names_right) == (5, 3)
    assert (c.sure_names_said, c.sure_names_right) == (3, 2)
    assert (c.guesses_said, c.guesses_right) == (2, 1)
    # recall counts cast speakers only (not "unnamed:", not null), sure or not
    assert (c.recall_right, c.recall_total) == (2, 3)
    assert c.named_precision == pytest.approx(3 / 5)
    assert c.named_recall == pytest.approx(2 / 3)


def test_the_constant_baseline_is_one_speaker_without_names() -> None:
    texts = ("ONE LINE A", "TWO LINE A", "THREE LINE B")
    s = script(line(texts[0], "Kala"), line(texts[1], "Kala"), line(texts[2], "Jasper"))
    blocks = [said(texts[0], "c1", "Kala"), said(texts[1], "c1", "Kala"), said(texts[2], "c2", "Jasper")]
    score = score_script_page(s, blocks)
    assert (score.speakers.attribution_right, score.speakers.turns_right) == (3, 2)
    b = score.baseline
    assert (b.attribution_right, b.attribution_total) == (2, 3)
    assert (b.turns_right, b.turns_total) == (1, 2)
    assert (b.names_said, b.recall_right, b.recall_total) == (0, 0, 3)


# ---------------------------------------------------------------- totals and report


def test_aggregate_is_a_ratio_of_sums_and_the_report_has_a_row_per_page() -> None:
    s1 = script(line("LOOK, CHAD!", "Kala"), line("NOT READ AT ALL", "Kala"))
    s2 = GoldenScript(page="p2", cast=CAST, lines=(line("HELLO THERE", "Jasper"),))
    scores = [
        score_script_page(s1, [said("LOOK CHAD", "c1", "Kala")]),
        score_script_page(s2, [said("HELLO THERE", "c1"), said("ZQXJ VWKP", None)]),
    ]
    agg = aggregate_scores(scores)
    assert (agg["pages"], agg["lines"], agg["found"], agg["blocks"], agg["junk"]) == (2, 3, 2, 3, 1)
    assert agg["found_rate"] == pytest.approx(2 / 3)
    assert (agg["attribution_right"], agg["attribution_total"]) == (2, 2)
    assert math.isnan(agg["guess_precision"])
    report = format_script_report(scores)
    assert "| p1 | 2 | 1 | 1 | 1 | 1 | 1 / 0 | 1/1 |" in report
    assert "| p2 | 1 | 1 | 1 | 1 | 1 | 2 / 1 | 1/1 |" in report
    assert "| **total** | 3 | 2 | 2 | 2 | 2 | 3 / 1 | 2/2 |" in report


# ---------------------------------------------------------------- loading


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "page.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


GOOD_LINE = {"panel": 1, "kind": "speech", "text": "HI", "speaker": "Kala", "speaker_sure": True}


def test_load_script_reads_a_golden_script(tmp_path: Path) -> None:
    path = _write(tmp_path, {"page": "p", "cast": {"Kala": ["the kid"]}, "lines": [GOOD_LINE], "notes": "n"})
    s = load_script(path)
    assert s.page == "p"
    assert s.cast == {"Kala": ("the kid",)}
    assert s.lines == (ScriptLine(1, LineKind.SPEECH, "HI", "Kala", True),)


@pytest.mark.parametrize(
    "data",
    [
        "{not json",
        [],
        {"page": "p", "cast": {}},
        {"page": "p", "cast": {"Kala": "the kid"}, "lines": []},
        {"page": "p", "cast": {}, "lines": [{**GOOD_LINE, "kind": "balloon"}]},
        {"page": "p", "cast": {}, "lines": [{**GOOD_LINE, "speaker_sure": "yes"}]},
        {"page": "p", "cast": {}, "lines": [{**GOOD_LINE, "text": None}]},
        {"page": "p", "cast": {}, "lines": [{**GOOD_LINE, "panel": "1"}]},
    ],
)
def test_a_malformed_script_raises_dataset_error(tmp_path: Path, data: Any) -> None:
    with pytest.raises(DatasetError) as info:
        load_script(_write(tmp_path, data))
    assert info.value.message
    assert "page.json" in info.value.detail


def test_the_cib_scripts_load_and_name_their_speakers(shared_data: Path) -> None:
    folder = shared_data / "cib" / "script"
    if not folder.is_dir():
        pytest.skip("cib/script is not present")
    scripts = load_scripts(folder)
    assert len(scripts) == 67
    # the data README's 733 lines are those with a letter or digit; 11 more are "?" or "!"
    assert sum(len(s.lines) for s in scripts) == 744
    assert sum(1 for s in scripts for ln in s.lines if normalize_text(ln.text)) == 733
    for s in scripts:
        for ln in s.lines:
            if ln.kind not in (LineKind.SPEECH, LineKind.THOUGHT) or ln.speaker is None:
                continue
            ok = (
                ln.speaker in s.cast
                or ln.speaker.startswith("unnamed: ")
                or all(part in s.cast for part in ln.speaker.split(" and "))
            )
            assert ok, (s.page, ln.speaker)
