"""Word boundaries chosen by word frequency (panelvox.analysis.spacing), on lines read from
real golden-age pages and on lettering that must stay as printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from panelvox.analysis.lettering import WordList, clean_line, join_lines, restore_spaces
from panelvox.analysis.spacing import GAP_MISREAD, WordFrequencies, respace

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def words() -> WordList:
    return WordList.load()


@pytest.fixture(scope="module")
def freqs() -> WordFrequencies:
    return WordFrequencies.load()


def test_shipped_frequencies_are_real(freqs: WordFrequencies) -> None:
    assert len(freqs.cost) > 60_000
    # "the" is commoner than "every", which is commoner than "stomachache"
    assert freqs.cost["the"] < freqs.cost["every"] < freqs.cost["stomachache"]
    assert freqs.word_cost("xqzt") is None
    assert freqs.word_cost("ta") is None  # a two-letter entry too rare to be cut out of a run
    assert freqs.word_cost("it") is not None


def test_a_wide_gap_inside_a_word_is_closed(words: WordList) -> None:
    # one half is no word, or a rare one beside a common whole
    assert restore_spaces("DIDN'T PASS IN SPEC TION GO BACK", words) == "DIDN'T PASS INSPECTION GO BACK"
    assert (
        restore_spaces("ENGAGED IN IMPORT ANT MILITARY MATTERS", words)
        == "ENGAGED IN IMPORTANT MILITARY MATTERS"
    )
    assert restore_spaces("I MADE HER DIS APPEAR", words) == "I MADE HER DISAPPEAR"
    assert restore_spaces("FOR OPERA TING THE MACHINE", words) == "FOR OPERATING THE MACHINE"


def test_both_halves_words_joined_only_where_the_whole_is_far_likelier(words: WordList) -> None:
    # "every thing" is rarely written apart; "girl friend" and "hair cut" often are
    assert restore_spaces("WE'VE DONE EVERY THING HUMANLY POSSIBLE", words) == (
        "WE'VE DONE EVERYTHING HUMANLY POSSIBLE"
    )
    assert restore_spaces("WHAT A BIRTH DAY PRESENT", words) == "WHAT A BIRTHDAY PRESENT"
    assert restore_spaces("THE PROFESSOR'S GIRL FRIEND", words) == "THE PROFESSOR'S GIRL FRIEND"
    assert restore_spaces("GET A HAIR CUT", words) == "GET A HAIR CUT"
    assert restore_spaces("THE PET OF EVERY ONE IN THE PALACE", words) == "THE PET OF EVERY ONE IN THE PALACE"
    assert restore_spaces("IN TO THE WATER", words) == "IN TO THE WATER"


def test_lost_spaces_with_short_words_and_many_parts(words: WordList) -> None:
    assert restore_spaces("WHO WHAT CANIT BE", words) == "WHO WHAT CAN IT BE"
    assert restore_spaces("KISS WHAT ISTO KISS", words) == "KISS WHAT IS TO KISS"
    assert restore_spaces("AND IT AIN'T A HERIT'S A HIM", words) == "AND IT AIN'T A HER IT'S A HIM"
    assert restore_spaces("HOW DOES THIS NEW A AGADGET WORK", words) == "HOW DOES THIS NEW A A GADGET WORK"
    assert restore_spaces("TO BE RUNNINGACUT RATE", words) == "TO BE RUNNING A CUT RATE"
    assert restore_spaces("THAT GOOFY PRIVATEMY PLANS", words) == "THAT GOOFY PRIVATE MY PLANS"


def test_lettering_that_is_no_word_stays_as_printed(words: WordList) -> None:
    for line in (
        "VE VILL GO TO ZUN VALLEY",  # dialect, a name
        "I CAN'T WE'RE GOIN' TOO FAS AAAGGHHHH",  # a cry
        "UND A LOT OF SCHTUFF ODDER VISE",  # dialect the recogniser split stays split
        "BARBARA WON'T",  # a name is not BAR BAR A
        "SMART FELLAS",  # a plural of the comics lexicon is not FELL AS
        "ARE YOU TIRED? RELAXIN",  # a dropped g is its word: not RELAX IN
        "GOT TOGO AFTER THEM",  # a word (a country) as printed
        "U.S.A. KALA.. ONE",
    ):
        assert restore_spaces(line, words) == line


def test_contraction_tails_single_letters_and_short_tokens_stay(words: WordList) -> None:
    # an apostrophe read as a space, a stammer, an initial: kept as printed
    assert restore_spaces("NUT S I LL GO", words) == "NUT S I LL GO"
    assert restore_spaces("D DONT L LOOK NOW", words) == "D DONT L LOOK NOW"
    assert restore_spaces("O K MEN", words) == "O K MEN"
    # an apostrophe-less contraction is said as printed
    assert restore_spaces("THAT'S WHY IM HERE", words) == "THAT'S WHY IM HERE"
    # a token under four letters is never cut: "AIN" is not "A IN"
    assert restore_spaces("IT AIN T SO", words) == "IT AIN T SO"


def test_a_contraction_ends_its_word(words: WordList) -> None:
    # the space after a contraction's tail was lost: the tail ends the word
    assert restore_spaces("SMILIN ED-VE'RECOMING.", words) == "SMILIN ED-VE'RE COMING."
    assert restore_spaces("YOU'LLSEE!", words) == "YOU'LL SEE!"
    # not a name's apostrophe, nor a tail followed by no word
    assert restore_spaces("O'MALLEY AND O'TOOLE", words) == "O'MALLEY AND O'TOOLE"
    assert restore_spaces("WE'REXQZ", words) == "WE'REXQZ"


def test_words_joined_by_dashes_or_dots_are_each_their_own_run(words: WordList) -> None:
    assert restore_spaces("WHO-WHAT-CANIT BE?", words) == "WHO-WHAT-CAN IT BE?"
    assert restore_spaces("NEW A.AGADGET WORK", words) == "NEW A.A GADGET WORK"
    assert restore_spaces("U.S.A. ZZZZZZ-ZZ", words) == "U.S.A. ZZZZZZ-ZZ"


def test_a_name_is_cut_out_of_a_run_only_when_not_short(words: WordList) -> None:
    assert restore_spaces("OF BANDARA ISLANDDILLON'S MEN", words) == "OF BANDARA ISLAND DILLON'S MEN"
    assert restore_spaces("LOOK GERTIE THE DWAGON", words) == "LOOK GERTIE THE DWAGON"  # not GER TIE


def test_line_breaks_weighed_like_spaces(words: WordList) -> None:
    # a line-end hyphen between two words is dropped where the whole word is far likelier
    assert (
        join_lines(["WE'VE DONE EVERY-", "THING HUMANLY"], "latin", words) == "WE'VE DONE EVERYTHING HUMANLY"
    )
    assert join_lines(["ENGAGED IN IMPORT-", "ANT MATTERS"], "latin", words) == "ENGAGED IN IMPORTANT MATTERS"
    # and where the word before it is the word's first part
    assert join_lines(["DIDN'T PASS IN SPEC-", "TION. GO"], "latin", words) == "DIDN'T PASS INSPECTION. GO"
    # a word broken at a line end with its hyphen lost; a line break weighs more than a
    # space: two words on two lines stay two ("TOOL"/"KIT", while "TOOL KIT" on one line
    # is read as the likelier TOOLKIT)
    assert join_lines(["I MADE HER DIS", "APPEAR!"], "latin", words) == "I MADE HER DISAPPEAR!"
    assert join_lines(["LOWER THE TOOL", "KIT, AND I'LL"], "latin", words) == "LOWER THE TOOL KIT, AND I'LL"
    assert restore_spaces("LOWER THE TOOL KIT", words) == "LOWER THE TOOLKIT"
    # a sound's or an interjection's hyphen stays: the whole is no word of the list
    assert join_lines(["TEE-", "HEE!"], "latin", words) == "TEE-HEE!"
    # compounds of two content words written with a hyphen keep it; a word a determiner
    # begins is written closed (the golden script of the page says EVERYONE)
    assert join_lines(["HIS YOUNG SIDE-", "KICK"], "latin", words) == "HIS YOUNG SIDE-KICK"
    assert join_lines(["THE PET OF EVERY-", "ONE"], "latin", words) == "THE PET OF EVERYONE"


def test_punctuation_bounds_a_run(words: WordList) -> None:
    # a space is not removed across punctuation, nor is a word built over it
    assert restore_spaces("EVERY, THING", words) == "EVERY, THING"
    assert restore_spaces("IMPORT-ANT", words) == "IMPORT-ANT"
    assert restore_spaces("\u201cIMPORT ANT\u201d", words) == "\u201cIMPORTANT\u201d"


def test_a_printed_space_goes_only_where_the_whole_beats_its_halves_by_the_gap_odds() -> None:
    halves = {"every": 3.0, "thing": 3.0}
    # the whole word more than a misread gap likelier than the two side by side: joined
    assert (
        respace("EVERY THING", WordFrequencies({**halves, "everything": 6.0 - GAP_MISREAD - 0.1}))
        == "EVERYTHING"
    )
    assert (
        respace("EVERY THING", WordFrequencies({**halves, "everything": 6.0 - GAP_MISREAD + 0.1}))
        == "EVERY THING"
    )
    # and a space is put in only where the token as printed is that much less likely
    assert (
        respace("EVERYTHING", WordFrequencies({**halves, "everything": 6.0 + GAP_MISREAD - 0.1}))
        == "EVERYTHING"
    )
    assert (
        respace("EVERYTHING", WordFrequencies({**halves, "everything": 6.0 + GAP_MISREAD + 0.1}))
        == "EVERY THING"
    )


def test_mixed_case_lettering_keeps_its_case(words: WordList) -> None:
    assert restore_spaces("We did every thing right", words) == "We did everything right"
    assert clean_line("WHAT CANIT BE?", words, "latin") == "WHAT CAN IT BE?"


def test_japanese_is_untouched(words: WordList) -> None:
    assert clean_line("知らない って", words, "japanese") == "知らないって"
    assert restore_spaces("知らないって 言ってる", words) == "知らないって 言ってる"


@pytest.mark.slow
def test_the_shipped_frequencies_are_what_the_script_makes(tmp_path: Path) -> None:
    pytest.importorskip("wordfreq")
    out = tmp_path / "english_freq.txt"
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_wordfreq.py"), str(out)], check=True)
    shipped = REPO / "app" / "panelvox" / "analysis" / "data" / "english_freq.txt"
    assert out.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
