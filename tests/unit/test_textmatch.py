"""The shared text matcher: one implementation for the eval's metrics and the verifier's quotes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from panelvox import textmatch
from panelvox.eval import text_norm
from panelvox.eval.dialogue_metrics import quote_supported
from panelvox.narration.verify import quote_match


def test_eval_and_verifier_use_the_same_functions() -> None:
    for name in ("normalize", "word_form", "edit_distance", "ned", "partial_distance", "partial_similarity"):
        assert getattr(text_norm, name) is getattr(textmatch, name)
    assert quote_match("It sank last night", "IT SANK LAST NIGHT.") == textmatch.partial_similarity(
        "It sank last night", "IT SANK LAST NIGHT.", words_only=True
    )


def test_word_form_keeps_words_and_inner_apostrophes_only() -> None:
    assert textmatch.word_form("I... DON'T KNOW!") == "i don't know"
    assert textmatch.word_form("the ‘SEA HAWK’ — FOR- TIFIED") == "the sea hawk fortified"
    assert textmatch.word_form("ＡＢＣ？") == "abc"  # full-width forms (NFKC)


def test_partial_similarity_counts_the_edits_of_the_quote() -> None:
    text = "IT SANK LAST NIGHT."
    assert textmatch.partial_similarity("sank last", text) == 1.0
    # two edits in 18 characters
    assert textmatch.partial_similarity("it sunk last nigt", text) == 1 - 2 / 17
    assert textmatch.partial_similarity("the treasure is buried", text) < 0.6
    assert textmatch.partial_similarity("i don't know", "I... DON'T KNOW!", words_only=True) == 1.0


def test_a_quote_the_verifier_keeps_is_one_the_eval_counts_as_there() -> None:
    page = ["WHERE IS THE BOAT?", "IT SANK LAST NIGHT."]
    for quote in ("where is the boat", "It sank last night!", "IT SUNK LAST NIGHT"):
        assert max(quote_match(quote, t) for t in page) >= 0.8
        assert quote_supported(quote, page)


@given(st.text(max_size=30), st.text(max_size=60))
def test_partial_similarity_is_a_score(query: str, text: str) -> None:
    score = textmatch.partial_similarity(query, text)
    assert 0.0 <= score <= 1.0
    if textmatch.normalize(query) and textmatch.normalize(query) in textmatch.normalize(text):
        assert score == 1.0
