"""The loop Kokoro, Open JTalk and Piper share (speech/backend.py: ChunkedPcmBackend): pieces in order with the
pause between them, each made only after the one before reached the sink, and a key press
stopping the utterance before another piece is made."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest

from panelvox.speech.audio_sink import RecordingSink
from panelvox.speech.backend import Capabilities, CheckResult, ChunkedPcmBackend, SpeechRequest

RATE = 1000


class CountingVoice(ChunkedPcmBackend):
    """Says each word of the text as that many samples of its number (word 2 → [2, 2])."""

    name = "counting"
    description = "test voice"
    pause_s = 0.003  # three zero samples between words

    def __init__(self, sink: RecordingSink, *, press_key_on: int = 0) -> None:
        super().__init__(sink)
        self.recorder = sink
        self.press_key_on = press_key_on
        self.cancel = threading.Event()
        self.made: list[int] = []
        self.heard_before_asking: list[int] = []  # chunks in the sink when each piece was asked for

    @classmethod
    def check_engine(cls) -> CheckResult:
        return CheckResult(True)

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(can_stream=True, writes_files=True, sample_rate=RATE)

    def pieces(self, request: SpeechRequest) -> Iterator[int]:
        # lazy, like Piper (whose generator synthesises): a piece exists when the loop asks
        for word in request.text.split():
            utterances = self.recorder.utterances
            self.heard_before_asking.append(len(utterances[-1].chunks) if utterances else -1)
            yield int(word)

    def samples(self, piece: int, request: SpeechRequest) -> np.ndarray:
        self.made.append(piece)
        if piece == self.press_key_on:  # the reader's key press arrives while this piece is made
            self.cancel.set()
        return np.full(piece, piece, dtype=np.int16)


def test_pieces_in_order_with_pauses_between_each_made_after_the_one_before_is_heard() -> None:
    voice = CountingVoice(RecordingSink())
    assert voice.speak(SpeechRequest("1 2 3"), voice.cancel)
    heard = voice.recorder.utterances[-1]
    assert heard.completed and heard.sample_rate == RATE
    assert heard.audio.tolist() == [1, 0, 0, 0, 2, 2, 0, 0, 0, 3, 3, 3]  # no pause after the last
    # each piece and its pause are in the sink before the next piece is asked for
    assert voice.heard_before_asking == [0, 1, 3]
    assert voice.render(SpeechRequest("2")).tolist() == [2, 2]
    assert voice.render(SpeechRequest("  ")).size == 0


def test_a_key_press_stops_the_utterance_before_another_piece_is_made() -> None:
    voice = CountingVoice(RecordingSink(), press_key_on=2)
    assert not voice.speak(SpeechRequest("1 2 3 4"), voice.cancel)
    heard = voice.recorder.utterances[-1]
    assert voice.made == [1, 2]  # 3 and 4 are never synthesised
    assert heard.audio.tolist() == [1, 0, 0, 0]  # the piece made during the key press is dropped
    assert heard.aborted_at is not None and not heard.completed
    voice.cancel.set()
    assert list(voice.synthesize(SpeechRequest("5 6"), voice.cancel)) == []


def test_without_an_audio_player_it_can_still_write_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("panelvox.speech.backend.find_player", lambda: None)
    assert not CountingVoice.check() and CountingVoice.check_engine()
