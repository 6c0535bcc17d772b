"""Real speech through pyttsx3's espeak-ng binding: audible, and as long as the text."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from panelvox.export.audio_export import read_wav, write_wav
from panelvox.speech.audio_sink import RecordingSink
from panelvox.speech.backend import SpeechRequest
from panelvox.speech.backends.file_backend import FileBackend
from panelvox.speech.backends.pyttsx3_backend import Pyttsx3Backend, split_sentences
from panelvox.speech.queue import SpeechQueue


def rms(audio: np.ndarray) -> float:
    """Root mean square of int16 audio, as a fraction of full scale."""
    return float(np.sqrt(np.mean((audio.astype(np.float64) / 32768.0) ** 2))) if audio.size else 0.0


pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not Pyttsx3Backend.check_engine(),
    reason="espeak-ng not installed",
)


def test_rendered_wav_is_audible_and_proportional_to_text(tmp_path: Path) -> None:
    backend = Pyttsx3Backend()
    short = backend.render(SpeechRequest("Who are you?"))
    long = backend.render(
        SpeechRequest("Who are you? " * 6 + "I am a friend from the valley, and I came to help.")
    )
    rate = backend.capabilities.sample_rate
    path = write_wav(tmp_path / "long.wav", long, rate)
    audio, read_rate = read_wav(path)
    assert read_rate == rate
    assert rms(audio) > 0.02  # not silent
    short_s, long_s = short.size / rate, long.size / rate
    assert 0.4 < short_s < 3.0
    # Seven times the words takes several times as long.
    assert 4.0 < long_s / short_s < 12.0


def test_rate_changes_duration() -> None:
    backend = Pyttsx3Backend()
    text = "The quick brown fox jumps over the lazy dog, twice."
    normal = backend.render(SpeechRequest(text)).size
    fast = backend.render(SpeechRequest(text, rate=2.0)).size
    assert fast < 0.7 * normal


def test_character_voices_sound_different() -> None:
    backend = Pyttsx3Backend()
    a = backend.render(SpeechRequest("Hello there, friend.", voice="en+m1"))
    b = backend.render(SpeechRequest("Hello there, friend.", voice="en+f3", pitch=1.4))
    assert a.size != b.size or not np.array_equal(a, b)


def test_streams_sentence_by_sentence() -> None:
    backend = Pyttsx3Backend()
    chunks = list(backend.synthesize(SpeechRequest("One. Two! Three?"), threading.Event()))
    assert len(chunks) == len(split_sentences("One. Two! Three?")) == 3


def test_tone_cue_is_prepended() -> None:
    backend = Pyttsx3Backend()
    plain = backend.render(SpeechRequest("Maybe."))
    cued = backend.render(SpeechRequest("Maybe.", tone_before=True))
    assert cued.size > plain.size


def test_interrupt_silences_playback_quickly() -> None:
    sink = RecordingSink(realtime=True)
    backend = Pyttsx3Backend(sink)
    with SpeechQueue([backend]) as q:
        q.say("This is a long sentence that would take several seconds to speak aloud in full.")
        deadline = time.monotonic() + 5
        while not (sink.utterances and sink.utterances[0].first_sample_at) and time.monotonic() < deadline:
            time.sleep(0.005)
        t0 = time.perf_counter()
        q.interrupt()
        assert q.wait_idle(2)
        idle = time.perf_counter() - t0
    utt = sink.utterances[0]
    assert utt.aborted_at is not None and not utt.completed
    assert idle < 1.0  # generous bound; the benchmark measures the real figure


def test_file_backend_collects_with_marks() -> None:
    fb = FileBackend(Pyttsx3Backend())
    ev = threading.Event()
    assert fb.speak(SpeechRequest("First.", tag="b1"), ev)
    assert fb.speak(SpeechRequest("Second.", tag="b2"), ev)
    audio, marks = fb.take()
    assert [m.tag for m in marks] == ["b1", "b2"] and marks[1].sample > 0
    assert rms(audio) > 0.01
