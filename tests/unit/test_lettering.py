"""Comic lettering post-processing: hyphen joins, lost spaces, capitals, script, furigana."""

from __future__ import annotations

import pytest

from panelvox.analysis.lettering import (
    LineGeometry,
    WordList,
    clean_line,
    is_caps,
    join_lines,
    normalize_caps,
    restore_spaces,
    ruby_lines,
    script_of,
    segment,
)


@pytest.fixture(scope="module")
def words() -> WordList:
    return WordList.load()


def test_shipped_word_list_is_real(words: WordList) -> None:
    assert len(words.words) > 30_000
    assert "venture" in words and "where" in words and "did" in words
    assert "xqzt" not in words


def test_hyphenated_line_break_is_joined(words: WordList) -> None:
    assert join_lines(["WHAT AN AD-", "VENTURE THIS IS!"], words=words) == "WHAT AN ADVENTURE THIS IS!"
    assert join_lines(["A GREAT VEN-", "TURE!"], words=words) == "A GREAT VENTURE!"


def test_real_compound_keeps_its_hyphen(words: WordList) -> None:
    assert join_lines(["HIS YOUNG SIDE-", "KICK, A BOY"], words=words) == "HIS YOUNG SIDE-KICK, A BOY"
    assert join_lines(["A GOOD WATCH-", "DOG!"], words=words) == "A GOOD WATCH-DOG!"


def test_a_dash_after_a_short_word_is_a_pause_where_no_word_is_made(words: WordList) -> None:
    assert join_lines(["MY HEAD! GOT TO-", "GO AFTER THEM!"], words=words) == "MY HEAD! GOT TO-GO AFTER THEM!"
    # a short word's syllable broken off with a hyphen joins its word
    assert join_lines(["AND THEN WE GO A-", "WAY HOME"], words=words) == "AND THEN WE GO AWAY HOME"
    assert join_lines(["IT'S AL-", "WAYS SO"], words=words) == "IT'S ALWAYS SO"


def test_a_word_a_function_word_begins_is_written_closed(words: WordList) -> None:
    # a determiner or a preposition makes no hyphenated compound: the hyphen broke the word
    assert join_lines(["THE PET OF EVERY-", "ONE IN THE PALACE"], words=words) == (
        "THE PET OF EVERYONE IN THE PALACE"
    )
    assert join_lines(["YOU NEVER WRITE ANY-", "MORE!"], words=words) == "YOU NEVER WRITE ANYMORE!"
    assert join_lines(["GO ON WITH-", "OUT ME"], words=words) == "GO ON WITHOUT ME"
    # ... but only into a word: two words stay apart with their hyphen
    assert join_lines(["ANY-", "HORSE"], words=words) == "ANY-HORSE"


def test_dashes_and_plain_lines_join_with_spaces(words: WordList) -> None:
    assert join_lines(["WAIT--", "LISTEN!"], words=words) == "WAIT-- LISTEN!"
    assert join_lines(["HELLO", "", "THERE"], words=words) == "HELLO THERE"


def test_japanese_lines_join_without_spaces() -> None:
    assert join_lines(["知らないって", "言ってるだろっ"], "japanese") == "知らないって言ってるだろっ"


def test_lost_spaces_are_restored_with_the_word_list(words: WordList) -> None:
    assert restore_spaces("WHEREDID HE GO?", words) == "WHERE DID HE GO?"
    assert restore_spaces("THEREISNO WAY", words) == "THERE IS NO WAY"
    assert segment("WHEREDID", words) == ["WHERE", "DID"]


def test_known_words_names_and_dropped_g_are_left_alone(words: WordList) -> None:
    assert restore_spaces("EATIN' LIKE THAT", words) == "EATIN' LIKE THAT"
    assert restore_spaces("KALA AND BINNACLE", words) == "KALA AND BINNACLE"
    assert restore_spaces("SHAZAM!", words) == "SHAZAM!"  # unknown, but not two words


def test_space_after_punctuation_run_into_a_word(words: WordList) -> None:
    assert restore_spaces("KALA..ONE OF THESE", words) == "KALA.. ONE OF THESE"
    assert restore_spaces("U.S.A.", words) == "U.S.A."


def test_caps_lettering_is_made_consistent() -> None:
    assert is_caps("DOGGONE GOOD DINNER")
    assert not is_caps("Doggone good dinner")
    assert normalize_caps("G0OD DiNNER, HEY") == "GOOD DINNER, HEY"
    assert normalize_caps("Page 10 of 12") == "Page 10 of 12"
    assert normalize_caps("ROOM 101!") == "ROOM 101!"  # a number stays a number


def test_clean_line_applies_everything(words: WordList) -> None:
    assert clean_line("  WHEREDID  HE G0?", words, "latin") == "WHERE DID HE GO?"
    assert clean_line("だから っ", words, "japanese") == "だからっ"


def test_script_detection() -> None:
    assert script_of("HELLO THERE!") == "latin"
    assert script_of("知らないって") == "japanese"
    assert script_of("レーネ…") == "japanese"
    assert script_of("...") == "latin"


def test_furigana_beside_a_vertical_column_is_ruby() -> None:
    column = LineGeometry(181, 319, 214, 436, True, "japanese")
    ruby = LineGeometry(207, 322, 223, 378, True, "japanese")  # thin, right of the column
    neighbour = LineGeometry(140, 320, 173, 430, True, "japanese")  # same thickness: not ruby
    assert ruby_lines([column, ruby, neighbour]) == {1}


def test_latin_lines_are_never_ruby() -> None:
    big = LineGeometry(0, 0, 200, 30, False, "latin")
    small = LineGeometry(0, -14, 100, 0, False, "latin")
    assert ruby_lines([big, small]) == set()
