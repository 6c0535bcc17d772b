"""With a screen reader whose voice cannot say Japanese (espeak-ng spells it "Japanese letter"),
a Japanese balloon's item carries the interface-language frame only ("Character 1: Japanese.")
and Panelvox's Japanese voice says the lettering after the screen reader's time for it; where
the screen reader's voice says every run, nothing changes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtGui import QAccessible
from pytestqt.qtbot import QtBot
from reader_fixtures import make_book

from panelvox.analysis.cache import PageAnalyzer
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    SpeakerLink,
    SpeakerReason,
)
from panelvox.reader.commands import Command
from panelvox.reader.position import Level, Position
from panelvox.reader.reader_controller import ReaderController, ReaderListener
from panelvox.reader.screen_reader_lettering import split_for_screen_reader
from panelvox.reader.screen_reader_pace import ScreenReaderPace
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.language_voices import LanguageVoices
from panelvox.speech.queue import SpeechQueue
from panelvox.ui.reader_app import build_reader

LINES = ("そんな借金なんて!", "レーネさん、大丈夫?")


class JapaneseSpeakersStage:
    """One panel, two Japanese balloons, each said by a figure of its own."""

    name = "layout-ja-speakers"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        w, h = analysis.width, analysis.height
        panel = Panel("p1", BBox(0, 0, w, h), 0.9, self.name, order=1)
        blocks = tuple(
            Balloon(
                f"b{k}",
                BalloonKind.SPEECH,
                BBox(w - 60 * k, 20, w - 60 * k + 50, 200),
                text,
                0.95,
                self.name,
                panel="p1",
                order=k,
            )
            for k, text in enumerate(LINES, 1)
        )
        figures = tuple(
            Character(f"c{k}", BBox(w - 60 * k, 210, w - 60 * k + 50, h), 0.9, self.name, panel="p1")
            for k in (1, 2)
        )
        links = tuple(SpeakerLink(f"b{k}", f"c{k}", 0.9, SpeakerReason.TAIL, self.name) for k in (1, 2))
        return replace(
            analysis,
            panels=(panel,),
            blocks=blocks,
            characters=figures,
            speakers=links,
            stages=(*analysis.stages, self.name),
        )


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
        deadline = time.monotonic() + 5  # a "done" comes back from the speech thread
        while not self.timers and time.monotonic() < deadline:
            time.sleep(0.01)
        seconds, fn = self.timers.pop(0)
        fn()
        return seconds


def test_the_frame_names_what_the_voice_cannot_say() -> None:
    english = ("en",).__contains__
    split = split_for_screen_reader("Character 1: そんな借金なんて!", english, "en")
    assert split.frame == "Character 1: Japanese."
    assert split.lettering == (("そんな借金なんて!", "ja"),)
    assert split.own_words
    panel = split_for_screen_reader("Panel 1. Character 1: そんな借金なん。 Character 2: て", english, "en")
    assert panel.frame == "Panel 1. Character 1: Japanese. Character 2: Japanese"
    assert [p for p, _ in panel.lettering] == ["そんな借金なん。", "て"]
    alone = split_for_screen_reader("そんな", english, "en")
    assert alone.frame == "Japanese" and not alone.own_words
    # a voice that says Japanese (or any language): the text as it is
    same = split_for_screen_reader("Character 1: そんな借金なんて!", ("en", "ja").__contains__, "en")
    assert same.frame == "Character 1: そんな借金なんて!" and same.lettering == ()
    assert split_for_screen_reader("Page 1: 2 panels.", english, "en").frame == "Page 1: 2 panels."


def _reader(
    queue: SpeechQueue, tmp_path: Path, clock: Clock, pace: ScreenReaderPace
) -> tuple[ReaderController, ScreenReaderView]:
    c = ReaderController(
        queue,
        PageAnalyzer((JapaneseSpeakersStage(),), cache=None),
        persist_settings=False,
        moves_by_focus=True,
        later=clock.later,
        pace=pace,
    )
    view = ScreenReaderView()
    c.listener = view
    assert c.open(make_book(tmp_path / "manga.cbz", pages=2, broken=None))
    c.analyze_pending()
    queue.wait_idle(5)
    return c, view


def test_a_move_onto_japanese_gives_orca_the_frame_and_the_japanese_voice_the_words(tmp_path: Path) -> None:
    english_only, japanese = SpyBackend(languages=("en",)), SpyBackend(languages=("ja",))
    clock, pace = Clock(), ScreenReaderPace(chars_per_second=10.0)
    with SpeechQueue([english_only], languages=LanguageVoices({"ja": [japanese]}, interface="en")) as queue:
        c, view = _reader(queue, tmp_path, clock, pace)
        balloon = Position(0, 0, Level.BALLOON)
        assert c.position_text(balloon) == "Character 1: Japanese."  # the item's accessible name
        assert c.position_shown(balloon) == f"Character 1: {LINES[0]}"  # what the list shows
        assert c.position_text(Position(0, 0, Level.PANEL)) == (
            "Panel 1. Character 1: Japanese. Character 2: Japanese."
        )
        clock.timers.clear()
        view.handed.clear()
        mark = len(english_only.texts())
        c.run(Command.NEXT_BALLOON)
        assert view.handed == []  # the screen reader says the focused item itself
        assert japanese.texts() == []  # nothing over the screen reader saying the frame
        assert clock.run_one() == pace.seconds("Character 1: Japanese.")
        queue.wait_idle(5)
        assert japanese.texts(SpyEvent.DONE) == [LINES[0]]
        assert english_only.texts()[mark:] == []  # the frame was the screen reader's alone
        # a key before the screen reader is done: the lettering is never said
        c.run(Command.NEXT_BALLOON)
        c.interrupt()
        clock.run_one()
        queue.wait_idle(5)
        assert japanese.texts() == [LINES[0]]
        c.close()


def test_read_all_hands_orca_each_frame_and_reads_on_after_the_japanese_voice(tmp_path: Path) -> None:
    english_only, japanese = SpyBackend(languages=("en",)), SpyBackend(languages=("ja",))
    clock, pace = Clock(), ScreenReaderPace(chars_per_second=10.0)
    with SpeechQueue([english_only], languages=LanguageVoices({"ja": [japanese]}, interface="en")) as queue:
        c, view = _reader(queue, tmp_path, clock, pace)
        view.handed.clear()
        clock.timers.clear()
        c.toggle_say_all()
        for _ in range(3):  # the page, then each balloon's frame and its lettering
            clock.run_one()
            queue.wait_idle(5)
            c.analyze_pending()
        stops = [h for h in view.handed if h[1] is not None]
        assert [h[2] for h in stops[:3]] == [
            "Page 1: 1 panel, 2 balloons, 2 speakers: character 1, character 2.",
            "Character 1: Japanese.",
            "Character 2: Japanese.",
        ]
        assert japanese.texts(SpyEvent.DONE)[:2] == list(LINES)
        assert not [t for t in english_only.texts() if "Japanese" in t or "Character" in t]
        c.interrupt()
        c.close()


def test_a_voice_that_says_japanese_keeps_the_item_whole(tmp_path: Path) -> None:
    """Where the screen reader's voice says every run, nothing changes."""
    every = SpyBackend(languages=("en", "ja"))
    with SpeechQueue([every]) as queue:
        c, _view = _reader(queue, tmp_path, Clock(), ScreenReaderPace())
        balloon = Position(0, 0, Level.BALLOON)
        assert c.position_text(balloon) == c.position_shown(balloon) == f"Character 1: {LINES[0]}"
        c.close()


def test_the_list_shows_the_lettering_and_names_the_item_by_its_frame(qtbot: QtBot, tmp_path: Path) -> None:
    english_only, japanese = SpyBackend(languages=("en",)), SpyBackend(languages=("ja",))
    r = build_reader(
        backends=[english_only],
        analyzer_factory=lambda: PageAnalyzer((JapaneseSpeakersStage(),), cache=None),
        screen_reader=True,
        persist_settings=False,
        languages=LanguageVoices({"ja": [japanese]}, interface="en"),
    )
    qtbot.addWidget(r.window)
    try:
        assert r.window.open_path(make_book(tmp_path / "manga.cbz", pages=1, broken=None))
        qtbot.waitUntil(lambda: r.window.tree.count() == 4, timeout=10_000)
        tree = r.window.tree
        assert [name for _level, name in tree.names()][1:] == [
            "Panel 1. Character 1: Japanese. Character 2: Japanese.",
            "Character 1: Japanese.",
            "Character 2: Japanese.",
        ]
        shown = [tree.item(i).text() for i in range(tree.count())]
        assert shown[2:] == [f"Character 1: {LINES[0]}", f"Character 2: {LINES[1]}"]
        # what a screen reader reads of the item (Qt's accessible interface of the list's child)
        iface = QAccessible.queryAccessibleInterface(tree)
        assert iface is not None
        names = [iface.child(i).text(QAccessible.Text.Name) for i in range(iface.childCount())]
        assert "Character 1: Japanese." in names and not [n for n in names if LINES[0] in n], names
    finally:
        r.close()
