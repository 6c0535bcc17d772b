"""The speech queue, tested by what the spy backend would have said."""

from __future__ import annotations

import threading

from panelvox.errors import BackendUnavailable
from panelvox.speech.backend import Priority, SpeechRequest
from panelvox.speech.backends.silence_backend import SilenceBackend
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.queue import SpeechQueue


def test_normal_items_are_spoken_in_order_with_done_callbacks() -> None:
    spy = SpyBackend()
    done: list[tuple[str, bool]] = []
    with SpeechQueue([spy]) as q:
        for text in ("one", "two", "three"):
            q.say(text, on_done=lambda req, ok: done.append((req.text, ok)))
        assert q.wait_idle(5)
    assert spy.texts() == ["one", "two", "three"]
    assert done == [("one", True), ("two", True), ("three", True)]


def test_next_goes_before_waiting_normal_items() -> None:
    spy = SpyBackend(seconds_per_char=0.02)
    with SpeechQueue([spy]) as q:
        q.say("first and long")
        assert spy.wait_started(1)
        q.say("normal a")
        q.say("normal b")
        q.say("urgent", Priority.NEXT)
        assert q.wait_idle(10)
    assert spy.texts() == ["first and long", "urgent", "normal a", "normal b"]


def test_now_interrupts_current_and_drops_queue() -> None:
    spy = SpyBackend(seconds_per_char=0.05)
    dropped: list[str] = []
    with SpeechQueue([spy]) as q:
        q.say("a very long balloon being read", on_done=lambda r, ok: None if ok else dropped.append(r.text))
        q.say("queued one", on_done=lambda r, ok: None if ok else dropped.append(r.text))
        assert spy.wait_started(1)
        q.say("stop", Priority.NOW)
        assert q.wait_idle(5)
    assert spy.texts(SpyEvent.CANCELLED) == ["a very long balloon being read"]
    assert spy.texts() == ["stop"]
    assert sorted(dropped) == ["a very long balloon being read", "queued one"]
    assert spy.stops >= 1


def test_interrupt_silences_everything() -> None:
    spy = SpyBackend(seconds_per_char=0.05)
    q = SpeechQueue([spy])
    q.say("speaking now for a while")
    q.say("never heard")
    assert spy.wait_started(1)
    q.interrupt()
    assert q.wait_idle(2)
    assert spy.texts() == []
    assert "never heard" not in [r.request.text for r in spy.records]
    q.close()
    assert spy.terminated


def test_failing_backend_falls_back_and_says_the_item_again() -> None:
    broken = SpyBackend(fail_with=BackendUnavailable("The sound output is not working.", detail="x"))
    spy = SpyBackend()
    events: list[tuple[str, str, str]] = []
    with SpeechQueue([broken, spy], on_fallback=lambda *a: events.append(a)) as q:
        q.say("hello")
        assert q.wait_idle(5)
        assert q.backend is spy
    assert spy.texts() == ["hello"]
    assert events == [("spy", "spy", "The sound output is not working.")]
    assert broken.terminated


def test_silence_is_a_real_backend() -> None:
    silence = SilenceBackend()
    assert SilenceBackend.check()
    assert silence.speak(SpeechRequest("x"), threading.Event())
    assert silence.dropped == 1


def test_done_callback_errors_do_not_stop_speech() -> None:
    spy = SpyBackend()

    def bad(_req: SpeechRequest, _ok: bool) -> None:
        raise RuntimeError("listener bug")

    with SpeechQueue([spy]) as q:
        q.say("a", on_done=bad)
        q.say("b")
        assert q.wait_idle(5)
    assert spy.texts() == ["a", "b"]
