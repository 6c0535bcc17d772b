"""The word-aware CTC decoder on hand-made probability matrices."""

from __future__ import annotations

import numpy as np

from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.models.ctc_beam import BeamParams, CtcDecoder

CHARSET = ["", "C", "D", "G", "O", "I", "N", "Z", "U", "L", "E", "V", "2", " ", "-"]


def matrix(steps: list[dict[str, float]]) -> np.ndarray:
    """One row per step: the given characters' probabilities, the rest on the blank."""
    out = np.zeros((len(steps), len(CHARSET)), dtype=np.float32)
    for t, step in enumerate(steps):
        for ch, p in step.items():
            out[t, CHARSET.index(ch)] = p
        out[t, 0] = max(0.0, 1.0 - sum(step.values()))
    return out


def spelled(
    word: str, runner_up: dict[int, tuple[str, float]] | None = None, sure: float = 0.95
) -> np.ndarray:
    """``word`` one character per step with a blank step between, some with a runner-up."""
    steps: list[dict[str, float]] = []
    for i, ch in enumerate(word):
        step = {ch: sure}
        if runner_up and i in runner_up:
            alt, p = runner_up[i]
            step = {ch: sure - p, alt: p}
        steps += [step, {}]
    return matrix(steps)


def words(*w: str) -> LetteringLexicon:
    return LetteringLexicon(WordList.from_lines(w), known=lambda word, words: words.knows(word))


def test_greedy_matches_the_best_path_with_repeats_and_blanks() -> None:
    m = matrix([{"L": 0.9}, {"L": 0.9}, {}, {"L": 0.9}, {"E": 0.9}])
    assert CtcDecoder(CHARSET).greedy(m)[0] == "LLE"
    assert CtcDecoder(CHARSET).decode(m, None)[0] == "LLE"


def test_a_close_runner_up_that_makes_a_word_wins() -> None:
    m = spelled("COING", {0: ("G", 0.35)})
    dec = CtcDecoder(CHARSET)
    assert dec.greedy(m)[0] == "COING"
    text, conf = dec.decode(m, words("going"))
    assert text == "GOING"
    assert 0.3 < conf < 0.95  # the confidence of the letters actually chosen


def test_lettering_the_model_is_sure_of_stays_as_read() -> None:
    # "ZUN" is no word, and the word "GUN" is only a faint runner-up: it stays
    m = spelled("ZUN", {0: ("G", 0.01)})
    assert CtcDecoder(CHARSET).decode(m, words("gun"))[0] == "ZUN"
    # and a line whose every token is a word is never searched again
    m = spelled("GUN", {0: ("Z", 0.45)})
    assert CtcDecoder(CHARSET).decode(m, words("gun", "zun"))[0] == "GUN"


def test_the_penalty_bounds_how_much_less_likely_a_word_may_be() -> None:
    m = spelled("COING", {0: ("G", 0.1)})  # G is 8.5 times less likely than C
    lex = words("going")
    assert CtcDecoder(CHARSET, BeamParams(penalty=1.0)).decode(m, lex)[0] == "COING"
    assert CtcDecoder(CHARSET, BeamParams(penalty=3.0)).decode(m, lex)[0] == "GOING"


def test_digits_inside_a_word_are_a_misread_but_numbers_are_not() -> None:
    m = spelled("G2OD".replace("2", "O"), {1: ("2", 0.5)})  # G?OD with O and 2 nearly tied
    dec = CtcDecoder(CHARSET)
    assert dec.decode(m, words("good"))[0] == "GOOD"
    assert not dec.token_penalised("22", words())
    assert dec.token_penalised("G2OD", words("good"))
    assert not dec.token_penalised("Z", words())  # a single letter: a stammer, a snore


def test_a_long_noisy_line_fixes_only_what_the_model_doubts() -> None:
    rng = np.random.default_rng(0)
    m = spelled("COING VIC ZUNZUN LEVEL " * 4, {0: ("G", 0.3)})
    m = m + rng.random(m.shape).astype(np.float32) * 0.01
    m /= m.sum(axis=1, keepdims=True)
    text, _conf = CtcDecoder(CHARSET).decode(m, words("going", "level"))
    assert text.split() == ["GOING", "VIC", "ZUNZUN", "LEVEL", *(["COING", "VIC", "ZUNZUN", "LEVEL"] * 3)]
