"""The Qt-free reader controller, checked by what the spy speech backend hears."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from reader_fixtures import PAGES, cheap_analyzer, heard, heard_since, make_book

from panelvox.books import Book, DirectionOverrides, DirectionSource
from panelvox.model import ReadingDirection
from panelvox.narration.prefs import NarrationPrefs, UncertaintyCue
from panelvox.reader.commands import Command, help_text, key_table, keymap
from panelvox.reader.position import Level, Position
from panelvox.reader.position_store import PositionStore
from panelvox.reader.reader_controller import ReaderController, ReaderListener
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.queue import SpeechQueue


def _open(queue: SpeechQueue, book: Path) -> ReaderController:
    c = ReaderController(queue, cheap_analyzer(), persist_settings=False)
    assert c.open(book)
    c.analyze_pending()
    return c


def _step(c: ReaderController, command: Command) -> None:
    c.run(command)
    c.speech.wait_idle(5)  # a new NOW message interrupts one not yet started
    c.analyze_pending()
    c.speech.wait_idle(5)


def test_open_announces_book_then_page_when_ready(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    _open(queue, book_path)
    assert heard(spy, queue) == ["Test Book, 5 pages. Page 1.", "Page 1: 2 panels, 4 balloons."]


def test_balloon_and_panel_moves(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    c = _open(queue, book_path)
    mark = len(heard(spy, queue))
    _step(c, Command.NEXT_BALLOON)
    _step(c, Command.NEXT_BALLOON)
    assert heard_since(spy, queue, mark) == [
        "Page one panel one balloon one.",
        "Page one panel one balloon two.",
    ]
    mark = len(heard(spy, queue))
    _step(c, Command.NEXT_PANEL)
    assert heard_since(spy, queue, mark) == [
        "Panel 2.",
        "Page one panel two balloon one.",
        "Page one panel two balloon two.",
    ]
    assert c.position == Position(0, 2, Level.PANEL)
    # Right from a panel goes on at its second balloon: the first was said on landing there,
    # and each balloon is heard once (it was said again before, in every panel).
    mark = len(heard(spy, queue))
    _step(c, Command.NEXT_BALLOON)
    assert c.position == Position(0, 3, Level.BALLOON)
    _step(c, Command.PREV_BALLOON)
    _step(c, Command.PREV_PANEL)
    assert heard_since(spy, queue, mark) == [
        "Page one panel two balloon two.",
        "Page one panel two balloon one.",
        "Panel 1.",
        "Page one panel one balloon one.",
        "Page one panel one balloon two.",
    ]


def test_page_turns_and_broken_page_in_the_middle(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    c = _open(queue, book_path)
    mark = len(heard(spy, queue))
    for _ in range(4):
        _step(c, Command.NEXT_PAGE)
    _step(c, Command.NEXT_PAGE)  # past the end
    assert heard_since(spy, queue, mark) == [
        "Page 2: 2 panels, 4 balloons.",
        "Page 3 is not a picture.",
        "Page 4: 2 panels, 4 balloons.",
        "Page 5: 2 panels, 4 balloons.",
        "End of book.",
    ]
    # Balloon by balloon across the broken page: it is announced, then reading goes on.
    _step(c, Command.FIRST_PAGE)
    _step(c, Command.NEXT_PAGE)
    mark = len(heard(spy, queue))
    for _ in range(6):
        _step(c, Command.NEXT_BALLOON)
    assert heard_since(spy, queue, mark) == [
        "Page two panel one balloon one.",
        "Page two panel one balloon two.",
        "Page two panel two balloon one.",
        "Page two panel two balloon two.",
        "Page 3 is not a picture.",
        "Page 4: 2 panels, 4 balloons.",
    ]
    _step(c, Command.PREV_BALLOON)
    _step(c, Command.PREV_BALLOON)
    assert heard(spy, queue)[-2:] == ["Page 3 is not a picture.", "Page two panel two balloon two."]


def test_last_first_go_to_and_bad_input(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    c = _open(queue, book_path)
    _step(c, Command.LAST_PAGE)
    assert heard(spy, queue)[-1] == "Page 5: 2 panels, 4 balloons."
    for text in ("two", "99", " 4 "):  # each waits: a new message interrupts the one before
        c.go_to_page_text(text)
        heard(spy, queue)
    assert heard(spy, queue)[-3:] == [
        "Type a page number, like 5.",
        "There is no page 99. This book has pages 1 to 5.",
        "Page 4: 2 panels, 4 balloons.",
    ]
    assert not c.open(Path("/nonexistent/Missing.cbz"))
    assert heard(spy, queue)[-1] == "Cannot find the book Missing.cbz."
    assert c.book is not None  # the open book stays open


def test_where_am_i_overview_repeat_describe(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    c = _open(queue, book_path)
    _step(c, Command.NEXT_PANEL)
    _step(c, Command.WHERE_AM_I)
    assert heard(spy, queue)[-1] == "Test Book, page 1 of 5, panel 1 of 2. 2 text blocks."
    _step(c, Command.OVERVIEW)
    _step(c, Command.REPEAT)
    assert heard(spy, queue)[-2:] == ["Page 1: 2 panels, 4 balloons."] * 2
    _step(c, Command.DESCRIBE)
    assert heard(spy, queue)[-1] == "No description model is configured."
    assert not c.run(Command.ASK)  # the view asks for the question first
    c.ask("How many panels?")  # the structure answers without a model
    c.describe_pending(c.describe_worker())
    assert heard(spy, queue)[-1] == "2. From panels 1, 2."
    _step(c, Command.HELP)
    assert heard(spy, queue)[-1] == help_text()
    assert "Right arrow or N: next balloon." in help_text()


def test_stop_interrupts_say_all(book_path: Path) -> None:
    spy = SpyBackend(seconds_per_char=0.02)
    with SpeechQueue([spy]) as queue:
        c = _open(queue, book_path)
        queue.wait_idle(10)
        c.run(Command.SAY_ALL)
        assert spy.wait_started(3)
        c.run(Command.STOP)
        queue.wait_idle(5)
        assert spy.texts(SpyEvent.CANCELLED) == ["Page 1: 2 panels, 4 balloons."]
        assert not c.saying_all
        assert spy.stops >= 1
        # Space toggles: a second Space stops as well.
        c.run(Command.SAY_ALL)
        assert spy.wait_started(4)
        c.run(Command.SAY_ALL)
        queue.wait_idle(5)
        assert not c.saying_all
        assert len(spy.texts(SpyEvent.CANCELLED)) == 2


def test_say_all_reads_on_across_pages(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    posted: list[Callable[[], None]] = []  # done callbacks come back to "the UI thread", like Qt
    c = ReaderController(queue, cheap_analyzer(), persist_settings=False, post=posted.append)
    c.open(book_path)
    c.analyze_pending()
    _step(c, Command.NEXT_PAGE)
    mark = len(heard(spy, queue))
    c.run(Command.SAY_ALL)
    for _ in range(60):
        queue.wait_idle(5)
        while posted:
            posted.pop(0)()
        c.analyze_pending()
    texts = heard_since(spy, queue, mark)
    assert texts[:6] == [
        "Page 2: 2 panels, 4 balloons.",
        "Page two panel one balloon one.",
        "Page two panel one balloon two.",
        "Page two panel two balloon one.",
        "Page two panel two balloon two.",
        "Page 3 is not a picture.",
    ]
    assert texts[-2:] == ["Page five panel two balloon two.", "End of book."]
    assert not c.saying_all
    assert c.position == Position(PAGES - 1, 3, Level.BALLOON)


def test_resume_after_restart(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    c = _open(queue, book_path)
    _step(c, Command.NEXT_PAGE)
    _step(c, Command.NEXT_PANEL)
    _step(c, Command.NEXT_PANEL)
    c.close()
    again = _open(queue, book_path)
    assert heard(spy, queue)[-4:] == [
        "Test Book, 5 pages. Resuming at page 2 of 5.",
        "Panel 2.",
        "Page two panel two balloon one.",
        "Page two panel two balloon two.",
    ]
    assert again.position == Position(1, 2, Level.PANEL)
    assert PositionStore().recent()[0].title == "Test Book"


def test_position_survives_a_crash(tmp_path: Path) -> None:
    book = make_book(tmp_path / "Crash.cbz")
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from reader_fixtures import cheap_analyzer
        from panelvox.reader.reader_controller import ReaderController
        from panelvox.speech.backends.spy_backend import SpyBackend
        from panelvox.speech.queue import SpeechQueue
        c = ReaderController(SpeechQueue([SpyBackend()]), cheap_analyzer(), persist_settings=False)
        c.open({str(book)!r})
        c.analyze_pending()
        c.next_page(); c.next_page(); c.next_page()
        os._exit(9)  # a crash: no clean-up, no close
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], env=os.environ.copy(), timeout=120)
    assert proc.returncode == 9
    data = json.loads((Path(os.environ["XDG_STATE_HOME"]) / "panelvox" / "positions.json").read_text())
    assert [v["page"] for v in data["books"].values()] == [3]


def test_damaged_positions_file_is_ignored(queue: SpeechQueue, book_path: Path) -> None:
    store = PositionStore()
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text("{not json", encoding="utf-8")
    c = _open(queue, book_path)
    assert c.position == Position(0)
    _step(c, Command.NEXT_PAGE)
    assert PositionStore().get(c.book.content_hash) == Position(1)  # type: ignore[union-attr]


def test_switch_direction_is_stored_for_the_book(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    c = _open(queue, book_path)
    _step(c, Command.SWITCH_DIRECTION)
    assert heard(spy, queue)[-2:] == [
        "Reading direction: right-to-left, for this book.",
        "Page 1: 2 panels, 4 balloons.",
    ]
    assert c.direction is ReadingDirection.RTL
    assert DirectionOverrides().get(c.book.content_hash) is ReadingDirection.RTL  # type: ignore[union-attr]
    c.close()
    again = _open(queue, book_path)
    assert again.direction is ReadingDirection.RTL


def test_a_book_told_by_its_lettering_reads_right_to_left_and_control_r_still_switches(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    asked: list[Path] = []

    def vertical_japanese(book: Book) -> bool:  # stands for the probe of the text models
        asked.append(book.path)
        return True

    c = ReaderController(queue, cheap_analyzer(), persist_settings=False, lettering=vertical_japanese)
    assert c.open(book_path)
    c.analyze_pending()
    assert c.direction is ReadingDirection.RTL and asked == [book_path]
    assert c.book is not None and c.book.direction_source is DirectionSource.LETTERING
    _step(c, Command.SWITCH_DIRECTION)
    assert heard(spy, queue)[-2] == "Reading direction: top-to-bottom, right column first, for this book."
    c.close()
    again = ReaderController(queue, cheap_analyzer(), persist_settings=False, lettering=vertical_japanese)
    assert again.open(book_path)
    # the user's choice wins; the lettering is not asked again
    assert again.direction is ReadingDirection.TTB_RTL and asked == [book_path]
    again.close()


def test_rate_and_what_to_hear(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    c = _open(queue, book_path)
    _step(c, Command.RATE_UP)
    assert heard(spy, queue)[-1] == "Speech rate 110 percent."
    assert c.prefs.rate == pytest.approx(1.1)
    _step(c, Command.TOGGLE_SPEAKERS)
    _step(c, Command.TOGGLE_SFX)
    assert heard(spy, queue)[-2:] == ["Speaker names off.", "Sound effects off."]
    _step(c, Command.TOGGLE_ZOOM)
    assert c.settings.zoom and heard(spy, queue)[-1] == "Zoom on."


def test_keys_avoid_screen_reader_modifiers_and_are_unique() -> None:
    keys = [k for b in keymap() for k in b.keys]
    assert len(keys) == len(set(keys))
    assert not [k for k in keys if "Ins" in k or "CapsLock" in k]
    assert set(key_table().values()) == set(Command)


def test_readme_lists_every_key() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Keys", 1)[1].split("\n## ", 1)[0]
    for binding in keymap():
        assert f"| {binding.spoken_keys} | {binding.help} |" in section


def test_cli_opens_the_reader(monkeypatch: pytest.MonkeyPatch, book_path: Path) -> None:
    from panelvox import cli
    from panelvox.ui import reader_app

    calls: list[tuple[Path | None, str | None]] = []
    monkeypatch.setattr(
        reader_app, "run_reader", lambda book, backend=None: calls.append((book, backend)) or 0
    )
    assert cli.main([str(book_path)]) == 0
    assert cli.main(["read", str(book_path), "--backend", "silence"]) == 0
    assert cli.main([]) == 0
    assert calls == [(book_path, None), (book_path, "silence"), (None, None)]
    assert cli._book_first(["info", str(book_path)], {"info", "read"}) == ["info", str(book_path)]


def test_with_a_screen_reader_moves_are_left_to_the_focus(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    """Never double-speak: the screen reader speaks the focused tree item, Panelvox does not."""
    moves: list[tuple[Position, bool]] = []

    class Recorder(ReaderListener):
        def position_changed(self, position: Position, *, focus: bool) -> None:
            moves.append((position, focus))

    c = ReaderController(queue, cheap_analyzer(), persist_settings=False, moves_by_focus=True)
    c.listener = Recorder()
    c.open(book_path)
    c.analyze_pending()
    mark = len(heard(spy, queue))
    _step(c, Command.NEXT_BALLOON)
    _step(c, Command.NEXT_PANEL)
    assert heard_since(spy, queue, mark) == []
    assert moves[-2:] == [(Position(0, 0, Level.BALLOON), True), (Position(0, 2, Level.PANEL), True)]
    _step(c, Command.WHERE_AM_I)  # messages still go through the speech output
    assert heard_since(spy, queue, mark) == ["Test Book, page 1 of 5, panel 2 of 2. 2 text blocks."]


def test_with_a_screen_reader_messages_go_through_it(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    """W, F1, O, Repeat and errors are handed to the screen reader when the view can."""
    announced: list[str] = []

    class Announcing(ReaderListener):
        def announce(self, text: str) -> bool:
            announced.append(text)
            return True

    c = ReaderController(queue, cheap_analyzer(), persist_settings=False, moves_by_focus=True)
    c.listener = Announcing()
    c.open(book_path)
    c.analyze_pending()
    mark = len(heard(spy, queue))
    for command in (Command.WHERE_AM_I, Command.HELP, Command.OVERVIEW, Command.REPEAT):
        _step(c, command)
    c.go_to_page(99)
    queue.wait_idle(5)
    assert heard_since(spy, queue, mark) == []  # nothing beside the screen reader
    assert announced[-5:] == [
        "Test Book, page 1 of 5. 4 text blocks.",
        help_text(),
        "Page 1: 2 panels, 4 balloons.",
        "Page 1: 2 panels, 4 balloons.",
        "There is no page 99. This book has pages 1 to 5.",
    ]
    c.say_all.start()  # say all needs the end of each line reported: it stays on the speech output
    queue.wait_idle(5)
    assert heard_since(spy, queue, mark)
    c.close()


def test_the_list_item_carries_the_cue_as_a_word_whatever_the_speech_cue(
    queue: SpeechQueue, book_path: Path
) -> None:
    """A screen reader reads the item's name as written: it cannot play Panelvox's tone."""
    prefs = NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE, text_threshold=0.99)
    c = ReaderController(queue, cheap_analyzer(), prefs=prefs, persist_settings=False)
    c.open(book_path)
    c.analyze_pending()
    balloon = Position(0, 0, Level.BALLOON)
    assert [u.text for u in c.position_utterances(balloon)] == ["Page one panel one balloon one."]
    assert c.position_text(balloon) == "Uncertain: Page one panel one balloon one."
    c.close()
