"""Which language a text is in: the one function voices, narration and exports share."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from panelvox.i18n import interface_language
from panelvox.languages import detect_language, language_runs


def test_kana_and_kanji_are_japanese_latin_is_not() -> None:
    assert detect_language("そんな借金なんて!") == "ja"
    assert detect_language("レーネさん、大丈夫?") == "ja"
    assert detect_language("WHERE IS THE KID?") == "en"
    assert detect_language("!!") == "en"  # no letters: the interface's rules
    assert detect_language("OKだよ") == "ja"  # one Latin word does not make a line English


def test_narration_around_a_japanese_line_is_cut_into_two_runs() -> None:
    assert language_runs("Panel 2. Character 1 says: そんな借金なんて!", "en") == (
        ("Panel 2. Character 1 says: ", "en"),
        ("そんな借金なんて!", "ja"),
    )
    assert language_runs("「大丈夫?」 Sound: ドン", "en") == (
        ("「大丈夫?」 ", "ja"),
        ("Sound: ", "en"),
        ("ドン", "ja"),
    )


def test_latin_letters_written_against_japanese_stay_in_the_japanese_line() -> None:
    assert language_runs("Tシャツを買った", "en") == (("Tシャツを買った", "ja"),)
    assert language_runs("Kala says: OKだよ!", "en") == (("Kala says: ", "en"), ("OKだよ!", "ja"))


def test_text_without_japanese_is_one_run_of_the_interface_language() -> None:
    assert language_runs("Panel 1. Kala says: We help him.", "en") == (
        ("Panel 1. Kala says: We help him.", "en"),
    )
    assert language_runs("3 ... 2", "de") == (("3 ... 2", "de"),)
    assert language_runs("", "en") == ()


@given(st.text(alphabet=st.sampled_from("ab Z1.!:、。あア漢ー「」 \n"), max_size=40))
def test_runs_join_back_to_the_text_and_alternate(text: str) -> None:
    runs = language_runs(text, "en")
    assert "".join(piece for piece, _lang in runs) == text
    assert all(a[1] != b[1] for a, b in itertools.pairwise(runs))
    assert all(piece for piece, _lang in runs)


def test_the_interface_speaks_english_while_no_catalogue_is_installed() -> None:
    assert interface_language() == "en"
