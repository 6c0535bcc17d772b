"""The reader controller's collaborators alone, and the one interrupt that stops them all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reader_fixtures import cheap_analyzer, heard, heard_since

from panelvox.reader.position import Position, page_index, page_number
from panelvox.reader.reader_controller import ReaderController
from panelvox.reader.say_all import SayAll
from panelvox.speech.backends.spy_backend import SpyBackend
from panelvox.speech.queue import SpeechQueue


def test_page_numbers_and_indices_meet_in_one_place() -> None:
    assert [page_number(0), page_index(1)] == [1, 0]
    assert Position.at_number(3) == Position(2)
    assert Position(4).number == 5


class _Reading:
    """A book of ``stops`` stops whose first one waits for its page until ``ready``."""

    def __init__(self, stops: int) -> None:
        self.stops, self.at, self.ready = stops, 0, False
        self.said: list[int] = []
        self.done: list[Callable[[bool], None]] = []

    def read_here(self, on_done: Callable[[bool], None]) -> bool:
        if not self.ready:
            return False
        self.said.append(self.at)
        self.done.append(on_done)
        return True

    def read_on(self) -> bool:
        self.at += 1
        return self.at < self.stops


def test_say_all_waits_for_its_page_and_ignores_a_stopped_run() -> None:
    book, ended = _Reading(3), []
    say_all = SayAll(book.read_here, book.read_on, lambda: ended.append(True))
    say_all.start()
    assert say_all.active and book.said == []  # the page is still being analysed
    book.ready = True
    assert say_all.page_arrived() and book.said == [0]
    stale = book.done[-1]
    say_all.stop()
    say_all.start()  # a new run, at once: the page is ready
    stale(True)  # the stopped run's "done" arrives late: nothing moves
    assert book.said == [0, 0] and book.at == 0
    book.done[-1](True)
    book.done[-1](True)
    book.done[-1](True)
    assert book.said == [0, 0, 1, 2] and ended == [True] and not say_all.active


def test_interrupt_drops_the_waiting_page_announcement_and_a_pending_answer(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    c = ReaderController(queue, cheap_analyzer(), persist_settings=False)
    assert c.open(book_path)
    c.interrupt()  # before page 1 is analysed: its announcement is dropped
    c.analyze_pending()
    assert not [t for t in heard(spy, queue) if t.startswith("Page 1:")]
    mark = len(heard(spy, queue))
    c.ask("How many panels?")
    c.interrupt()  # the answer being worked on is never spoken
    c.describe_pending(c.describe_worker())
    assert heard_since(spy, queue, mark) == []
    c.ask("How many panels?")
    c.describe_pending(c.describe_worker())
    assert heard_since(spy, queue, mark) == ["2. From panels 1, 2."]
