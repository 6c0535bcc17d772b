"""A caption's display initial misread or lost, put back (analysis/display_initial.py), with
the shipped word list, comics lexicon and word frequencies."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from panelvox.analysis.display_initial import display_initial
from panelvox.analysis.lettering import WordList, as_lettered, narration_words
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.spacing import WordFrequencies


@pytest.fixture(scope="module")
def fix() -> Callable[[str], str]:
    lexicon = LetteringLexicon(WordList.load())

    def run(text: str) -> str:
        return display_initial(text, lexicon, narration_words(), WordFrequencies.load(), as_lettered())

    return run


def test_a_narration_word_whose_initial_was_misread_or_lost(fix: Callable[[str], str]) -> None:
    assert fix("GATER..AT THE HOSPITAL") == "LATER..AT THE HOSPITAL"  # misread: not "WATER"
    assert fix("ATER") == "LATER"  # lost
    assert fix("BUDDENLX ONE OF THE SEARCHERS") == "SUDDENLY ONE OF THE SEARCHERS"  # and an X for Y


def test_a_time_phrase_whose_initial_was_misread_or_lost(fix: Callable[[str], str]) -> None:
    assert fix("HAT NIGHT...") == "THAT NIGHT..."
    assert fix("GATE THAT NIGHT, FILLED WITH DREAD") == "LATE THAT NIGHT, FILLED WITH DREAD"
    assert fix("EXT MORNING") == "NEXT MORNING"
    for kept in (
        "THAT NIGHT",
        "ONE NIGHT",
        "GOOD NIGHT",
        "LATE THAT NIGHT",
        "THE GATE THAT NIGHT",
        "HIS NIGHT",
    ):
        assert fix(kept) == kept


def test_a_long_token_english_does_not_use_becomes_the_one_clear_word(fix: Callable[[str], str]) -> None:
    assert fix("EYERAL DAYS HAVE PASSED") == "SEVERAL DAYS HAVE PASSED"  # S lost, Y for V
    # a word as read stays, however likelier another ("PIPPED" may be "TIPPED", "RIPPED"...)
    assert fix("PIPPED OFF BY FRED") == "PIPPED OFF BY FRED"
    # names and the comics lexicon's spellings stay; a short token may be any name
    for kept in ("JAFARA LOOKS FOR BUSINESS", "KALA SAYS", "WACATION TIME", "ZUN VALLEY", "... AND THEN"):
        assert fix(kept) == kept


def test_a_common_word_a_small_word_list_lacks_is_no_misread() -> None:
    # the frequency table knows "AND": not "END", whatever the word list given
    def unknown(_token: str) -> bool:
        return False

    assert display_initial("AND WHEN", unknown, narration_words(), WordFrequencies.load()) == "AND WHEN"
