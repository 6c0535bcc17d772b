"""The first launch speaks one welcome sentence, once; tested by what the spy hears."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from panelvox.analysis.cache import PageAnalyzer
from panelvox.reader.first_launch import is_first_launch, marker_path, welcome_once, welcome_text
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.queue import SpeechQueue
from panelvox.ui.reader_app import Reader, build_reader, greet

SAMPLE = Path(__file__).resolve().parents[2] / "assets" / "sample.cbz"
WELCOME = "Welcome to Panelvox. Press F1 to hear the keys."


def _soon(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """The done callback runs on the speech thread just after the queue turns idle."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_welcome_is_said_once_and_the_marker_records_it(tmp_path: Path) -> None:
    spy = SpyBackend()
    marker = tmp_path / "state" / "welcomed"
    with SpeechQueue([spy]) as queue:
        assert is_first_launch(marker)
        assert welcome_once(queue, marker)
        assert queue.wait_idle(5)
        assert spy.texts() == [WELCOME]
        assert _soon(marker.is_file)
        assert not is_first_launch(marker)
        # second launch: nothing said, nothing queued
        assert not welcome_once(queue, marker)
        assert queue.wait_idle(5)
        assert spy.texts(SpyEvent.STARTED) == [WELCOME]


def test_an_interrupted_welcome_comes_again(tmp_path: Path) -> None:
    spy = SpyBackend(seconds_per_char=0.05)  # about 2.4 s for the sentence
    marker = tmp_path / "welcomed"
    with SpeechQueue([spy]) as queue:
        welcome_once(queue, marker)
        assert spy.wait_started(1)
        queue.interrupt()  # the user pressed a key
        assert queue.wait_idle(5)
        assert _soon(lambda: bool(spy.texts(SpyEvent.CANCELLED)))
    assert spy.texts(SpyEvent.CANCELLED) == [WELCOME]
    assert not marker.exists()


def test_marker_lives_in_the_xdg_state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert marker_path() == tmp_path / "panelvox" / "welcomed"
    assert welcome_text() == WELCOME


def test_an_unwritable_state_folder_only_means_the_welcome_comes_again(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    marker = blocker / "welcomed"  # a folder that is a file: mkdir fails
    spy = SpyBackend()
    with SpeechQueue([spy]) as queue:
        assert welcome_once(queue, marker)
        assert queue.wait_idle(5)
        assert _soon(lambda: spy.texts() == [WELCOME])
    assert not marker.exists()


@pytest.fixture
def reader(qtbot: QtBot) -> Iterator[tuple[Reader, SpyBackend]]:
    spy = SpyBackend()
    r = build_reader(
        backends=[spy],
        analyzer_factory=lambda: PageAnalyzer((), cache=None),
        screen_reader=False,
        persist_settings=False,
    )
    qtbot.addWidget(r.window)
    yield r, spy
    r.close()


def test_reader_greets_with_the_welcome_on_first_launch_only(
    reader: tuple[Reader, SpyBackend], tmp_path: Path
) -> None:
    r, spy = reader
    marker = tmp_path / "welcomed"
    greet(r, None, welcome_marker=marker)
    assert r.speech.wait_idle(5)
    assert spy.texts() == [WELCOME]
    assert _soon(marker.is_file)
    greet(r, None, welcome_marker=marker)
    assert r.speech.wait_idle(5)
    second = spy.texts()[1:]
    assert len(second) == 1 and "Control O" in second[0]


def test_with_a_book_the_welcome_follows_the_title(reader: tuple[Reader, SpyBackend], tmp_path: Path) -> None:
    r, spy = reader
    greet(r, SAMPLE, welcome_marker=tmp_path / "welcomed")
    assert r.speech.wait_idle(5)
    heard = spy.texts(SpyEvent.STARTED)
    assert WELCOME in heard
    assert heard.index(WELCOME) >= 1  # the book's title is not cut off by the welcome
    assert "pages" in heard[0]
