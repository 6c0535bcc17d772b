"""With a screen reader running, it is the one channel: say all, the welcome and every message
are handed to it (never spoken beside it by Panelvox's own voice); without one, Panelvox's voice."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from pytestqt.qtbot import QtBot
from reader_fixtures import cheap_analyzer, heard, heard_since

from panelvox.reader.first_launch import welcome_once, welcome_text
from panelvox.reader.position import Level, Position
from panelvox.reader.reader_controller import ReaderController, ReaderListener
from panelvox.reader.screen_reader_pace import ScreenReaderPace, orca_rate, rate_factor
from panelvox.speech.backends.spy_backend import SpyBackend
from panelvox.speech.language_voices import LanguageVoices
from panelvox.speech.queue import SpeechQueue
from panelvox.ui.reader_app import Reader, build_reader


class ScreenReaderView(ReaderListener):
    """A view a screen reader listens to: what it was handed, in order."""

    def __init__(self) -> None:
        self.handed: list[tuple[str, Position | None, str]] = []

    def announce(self, text: str) -> bool:
        self.handed.append(("announce", None, text))
        return True

    def present(self, position: Position, text: str) -> bool:
        self.handed.append(("focus", position, text))
        return True


class Clock:
    """``later`` for the controller: timers kept until the test lets time pass."""

    def __init__(self) -> None:
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def later(self, seconds: float, fn: Callable[[], None]) -> None:
        self.timers.append((seconds, fn))

    def run_one(self) -> float:
        seconds, fn = self.timers.pop(0)
        fn()
        return seconds


def test_say_all_goes_stop_by_stop_through_the_screen_reader(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    clock = Clock()
    pace = ScreenReaderPace(chars_per_second=10.0)
    c = ReaderController(
        queue, cheap_analyzer(), persist_settings=False, moves_by_focus=True, later=clock.later, pace=pace
    )
    view = c.listener = ScreenReaderView()
    c.open(book_path)
    c.analyze_pending()
    mark = len(heard(spy, queue))
    view.handed.clear()
    c.toggle_say_all()
    waits = []
    for _ in range(4):
        waits.append(clock.run_one())
        c.analyze_pending()
    assert [h[1] for h in view.handed] == [
        Position(0),
        Position(0, 0, Level.BALLOON),
        Position(0, 1, Level.BALLOON),
        Position(0, 2, Level.BALLOON),
        Position(0, 3, Level.BALLOON),
    ]
    texts = [h[2] for h in view.handed]
    assert texts[1] == "Page one panel one balloon one."  # the item's name, as said on landing
    assert texts == [c.position_text(h[1]) for h in view.handed if h[1] is not None]
    # each next stop after the time the screen reader takes to say the one before
    assert waits == [pace.seconds(t) for t in texts[:4]]
    assert heard_since(spy, queue, mark) == []  # Panelvox's own voice said nothing beside it
    c.interrupt()  # a key: the timer that fires later is stale and reads nothing more
    stale = len(view.handed)
    clock.run_one()
    assert len(view.handed) == stale
    c.close()


def test_without_a_screen_reader_say_all_stays_with_panelvox_voice(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    clock = Clock()
    c = ReaderController(queue, cheap_analyzer(), persist_settings=False, later=clock.later)
    view = c.listener = ScreenReaderView()
    c.open(book_path)
    c.analyze_pending()
    mark = len(heard(spy, queue))
    c.toggle_say_all()
    queue.wait_idle(5)
    assert heard_since(spy, queue, mark)[0].startswith("Page 1: 2 panels")
    assert view.handed == [] and clock.timers == []
    c.close()


def test_a_view_no_screen_reader_listens_to_leaves_say_all_to_panelvox(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    """A screen reader runs but the window's accessibility is off: Panelvox's voice, not silence."""
    clock = Clock()
    c = ReaderController(
        queue, cheap_analyzer(), persist_settings=False, moves_by_focus=True, later=clock.later
    )
    c.open(book_path)
    c.analyze_pending()
    mark = len(heard(spy, queue))
    c.toggle_say_all()
    queue.wait_idle(5)
    assert heard_since(spy, queue, mark)
    c.close()


def test_the_welcome_goes_to_the_screen_reader(tmp_path: Path) -> None:
    spy = SpyBackend()
    marker = tmp_path / "welcomed"
    handed: list[str] = []
    with SpeechQueue([spy]) as queue:
        assert welcome_once(queue, marker, hand_over=lambda text: handed.append(text) is None)
        assert queue.wait_idle(5)
    assert handed == [welcome_text()] and spy.texts() == []
    assert marker.is_file()  # the screen reader tells no end: handed over counts as heard
    with SpeechQueue([spy]) as queue:  # no screen reader takes it: Panelvox's voice says it
        assert welcome_once(queue, tmp_path / "other", hand_over=lambda _text: False)
        assert queue.wait_idle(5)
    assert spy.texts() == [welcome_text()]


def test_the_pace_follows_orcas_rate(tmp_path: Path) -> None:
    assert orca_rate(tmp_path) == 50  # no settings: Orca's default
    assert rate_factor(50) == 1.0
    assert rate_factor(100) > 2.5 and 0.4 < rate_factor(0) < 0.5
    settings = {
        "general": {"startingProfile": ["Default", "default"], "voices": {"default": {"rate": 40}}},
        "profiles": {"default": {"voices": {"default": {"rate": 75}}}},
    }
    (tmp_path / "user-settings.conf").write_text(json.dumps(settings), encoding="utf-8")
    assert orca_rate(tmp_path) == 75  # the starting profile's voice
    faster = ScreenReaderPace.of_orca(tmp_path)
    assert faster.seconds("x" * 60) < ScreenReaderPace().seconds("x" * 60)
    (tmp_path / "user-settings.conf").write_text("{not json", encoding="utf-8")
    assert orca_rate(tmp_path) == 50


@pytest.fixture
def screen_reader_window(qtbot: QtBot, spy: SpyBackend) -> Iterator[Reader]:
    """The window as a screen reader sees it: AT-SPI on, a screen reader running."""
    was = QAccessible.isActive()
    QAccessible.setActive(True)
    r = build_reader(
        backends=[spy], analyzer_factory=cheap_analyzer, screen_reader=True, persist_settings=False
    )
    r.controller.voice.pace = ScreenReaderPace(chars_per_second=1000.0)  # a fast listener: a short test
    qtbot.addWidget(r.window)
    r.window.show()
    r.window.activateWindow()
    qtbot.waitUntil(r.window.isActiveWindow)
    r.window.tree.setFocus()
    yield r
    r.close()
    QAccessible.setActive(was)


def test_the_window_reads_all_by_moving_the_focus_and_answers_after_it(
    qtbot: QtBot, screen_reader_window: Reader, spy: SpyBackend, book_path: Path
) -> None:
    r = screen_reader_window
    assert r.window.open_path(book_path)
    qtbot.waitUntil(lambda: r.controller.outline(0).ready and r.window.tree.count() > 1, timeout=10_000)
    qtbot.waitUntil(lambda: r.window.announcer.text.startswith("Test Book, 5 pages."))  # the opening words
    seen: list[str] = []
    tree_select = r.window.tree.select

    def select(pos: Position) -> None:  # each item the focus lands on, as the screen reader hears it
        tree_select(pos)
        item = r.window.tree.currentItem()
        seen.append(item.text() if item is not None and r.window.tree.hasFocus() else "")

    r.window.tree.select = select  # type: ignore[method-assign]
    qtbot.keyClick(r.window.tree, Qt.Key.Key_Space)
    assert r.window.announcer.text == "Page 1: 2 panels, 4 balloons."  # the focused item, announced
    qtbot.waitUntil(lambda: r.controller.position.page == 1, timeout=10_000)  # the page turn, read on
    assert seen[:4] == [
        "Page one panel one balloon one.",
        "Page one panel one balloon two.",
        "Page one panel two balloon one.",
        "Page one panel two balloon two.",
    ]
    assert r.window.tree.hasFocus()
    qtbot.keyClick(r.window.tree, Qt.Key.Key_Space)  # stops
    assert not r.controller.saying_all
    assert spy.texts() == []  # nothing in Panelvox's own voice beside the screen reader
    qtbot.keyClick(r.window.tree, Qt.Key.Key_Q)
    dialog = r.window.ask_dialog
    assert dialog is not None
    dialog.setTextValue("How many balloons?")
    dialog.accept()
    answer = "4. From balloons 1, 2, 3 and 1 more."
    # while the dialog is in front it waits, and is said once the window is back (the window
    # manager activates it; offscreen, the test does)
    qtbot.waitUntil(lambda: answer in r.window._unsaid or r.window.announcer.text == answer, timeout=10_000)
    r.window.activateWindow()
    qtbot.waitUntil(lambda: r.window.announcer.text == answer, timeout=10_000)
    assert spy.texts() == []


def test_lettering_the_screen_reader_cannot_say_stays_with_panelvox_voices(book_path: Path) -> None:
    """Orca gives a list item no language: Japanese handed to an espeak-ng speech server would be
    spelled "Japanese letter". Such a stop is said by Panelvox (its Japanese voice, or once that
    none is installed); the stops in the server's languages still go to the screen reader."""
    english_only = SpyBackend(languages=("en",))
    japanese = SpyBackend(languages=("ja",))
    languages = LanguageVoices({"ja": [japanese]}, interface="en")
    clock = Clock()
    with SpeechQueue([english_only], languages=languages) as queue:
        c = ReaderController(
            queue, cheap_analyzer(), persist_settings=False, moves_by_focus=True, later=clock.later
        )
        view = c.listener = ScreenReaderView()
        c.open(book_path)
        c.analyze_pending()
        view.handed.clear()
        c.say_message("そんな借金なんて!")
        queue.wait_idle(5)
        c.say_message("Page 1.")
        queue.wait_idle(5)
        assert [h[2] for h in view.handed] == ["Page 1."]
        assert japanese.texts() == ["そんな借金なんて!"]
        c.close()
