"""The reader learns the rest of the book in the background, so it says what the export says."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from pytestqt.qtbot import QtBot
from reader_fixtures import LayoutStage, heard, make_book

from panelvox.analysis.cache import PageAnalyzer
from panelvox.books import open_book
from panelvox.export.book_content import export_prefs, page_lines
from panelvox.model import BBox, Character, PageAnalysis, SpeakerLink, SpeakerReason
from panelvox.names.book_names import BookNames
from panelvox.names.stores import NameStore
from panelvox.narration.prefs import NarrationPrefs
from panelvox.pages import PageService
from panelvox.reader.analysis_jobs import Job
from panelvox.reader.listener import ReaderListener
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Position
from panelvox.reader.reader_controller import ReaderController
from panelvox.reader.reader_settings import ReaderSettings
from panelvox.speech.backends.spy_backend import SpyBackend
from panelvox.speech.queue import SpeechQueue
from panelvox.ui.reader_app import build_reader

#: pages (1-based) where the first figure says its name: once on the pages near page 2, twice
#: more far from it, so only the whole book makes it a name said as fact
INTRODUCED = (2, 8, 9)


class TwoPeopleStage:
    """Two figures, each saying the first balloon of its panel; on :data:`INTRODUCED` pages
    the first says "My name is Anna."."""

    name = "test-two-people"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        first = Character("c1", BBox(20, 120, 100, 300), 0.8, self.name, panel="p1", cluster="k1")
        second = Character("c2", BBox(140, 120, 220, 300), 0.8, self.name, panel="p2", cluster="k2")
        links = (
            SpeakerLink("b11", "c1", 0.8, SpeakerReason.TAIL, self.name),
            SpeakerLink("b21", "c2", 0.8, SpeakerReason.TAIL, self.name),
        )
        blocks = analysis.blocks
        if analysis.page in INTRODUCED:
            blocks = tuple(replace(b, text="My name is Anna.") if b.id == "b11" else b for b in blocks)
        return replace(analysis, blocks=blocks, characters=(first, second), speakers=links)


def _analyzer() -> PageAnalyzer:
    return PageAnalyzer((LayoutStage(), TwoPeopleStage()), cache=None)


class _Seen(ReaderListener):
    def __init__(self) -> None:
        self.focus_moves: list[Position] = []
        self.outlines: list[PageOutline] = []

    def position_changed(self, position: Position, *, focus: bool) -> None:
        if focus:
            self.focus_moves.append(position)

    def outline_changed(self, outline: PageOutline) -> None:
        self.outlines.append(outline)


def _queued(c: ReaderController) -> list[Job]:
    """Every job waiting, most wanted first (taken off the list)."""
    out = []
    while (job := c.jobs.take(timeout=0)) is not None:
        out.append(job)
    return out


def _speakers(analysis: PageAnalysis | None) -> list[str | None]:
    assert analysis is not None
    return [line.character for line in page_lines(analysis, export_prefs(NarrationPrefs()))]


def test_after_the_book_pass_the_reader_says_what_the_export_says(
    queue: SpeechQueue, spy: SpyBackend, tmp_path: Path
) -> None:
    book = make_book(tmp_path / "Anna.cbz", pages=10, broken=None)
    c = ReaderController(queue, _analyzer(), persist_settings=False)
    assert c.open(book)
    c.go_to_page(2)
    c.analyze_pending(limit=len(c.results.wanted(c.position.page, c.page_count)))  # the wanted pages only
    c.speech.wait_idle(5)
    said = " ".join(s.text for s in c.outline(1).steps)
    assert "Character 1: My name is Anna." in said  # said once near here: not a name yet
    assert c.jobs.pending() and all(job.learn for job in _peek(c))

    seen = _Seen()
    c.listener = seen
    mark, where = len(heard(spy, queue)), c.position
    assert c.analyze_pending() == 5  # pages 6 to 10: those not wanted, in reading order
    assert "Anna: My name is Anna." in " ".join(s.text for s in c.outline(1).steps)  # named now
    assert seen.outlines and seen.outlines[-1].index == 1
    assert not seen.focus_moves and c.position == where  # the focus stays where it was
    assert heard(spy, queue)[mark:] == []  # nothing said unasked

    # the export of the same book learns every page first: the same labels on every page
    with open_book(book) as opened:
        export = PageService(opened, _analyzer(), BookNames.for_book(opened, NameStore(tmp_path / "n.json")))
        for n in range(1, opened.page_count + 1):
            export.learn(n)
        expected = {n: _speakers(export.read(n)) for n in range(1, opened.page_count + 1)}
    assert "Anna" in expected[2] and "character 1" in expected[1]
    for n in range(1, c.page_count + 1):
        c.go_to_page(n)
        c.analyze_pending()
        assert _speakers(c.results.analysis(n - 1)) == expected[n], n


def _peek(c: ReaderController) -> list[Job]:
    """The jobs waiting, left waiting."""
    jobs = _queued(c)
    c.jobs.set_wanted(jobs)
    return jobs


def test_a_wanted_page_is_never_queued_behind_the_background_pass(queue: SpeechQueue, tmp_path: Path) -> None:
    book = make_book(tmp_path / "Long.cbz", pages=20, broken=None)
    c = ReaderController(queue, _analyzer(), persist_settings=False)
    assert c.open(book)
    jobs = _peek(c)
    assert [(j.page, j.learn) for j in jobs[:4]] == [(0, False), (1, False), (2, False), (3, False)]
    assert [j.page for j in jobs[4:]] == list(range(4, 20)) and all(j.learn for j in jobs[4:])

    c.analyze_pending(limit=6)  # the four wanted pages and two of the background pass
    assert c.results.learned == {4, 5}
    c.go_to_page(12)  # a move: its pages first, then the rest of the book from there on
    jobs = _queued(c)
    assert [(j.page, j.learn) for j in jobs[:5]] == [
        (11, False),
        (12, False),
        (13, False),
        (14, False),
        (10, False),
    ]
    assert [j.page for j in jobs[5:]] == [15, 16, 17, 18, 19, 6, 7, 8, 9]
    assert all(j.learn for j in jobs[5:])

    # T on a page of text, asked during the pass, goes before everything
    c.jobs.set_wanted(jobs)
    c.results.ask_text(Job(c.results.token, jobs[0].pages, 11, c.direction, text=True))
    assert [(j.page, j.text, j.learn) for j in _queued(c)[:2]] == [(11, True, False), (11, False, False)]


def test_the_pass_stops_when_the_book_closes_and_starts_again_when_it_opens(
    queue: SpeechQueue, tmp_path: Path
) -> None:
    book = make_book(tmp_path / "Again.cbz", pages=10, broken=None)
    c = ReaderController(queue, _analyzer(), persist_settings=False)
    assert c.open(book)
    c.analyze_pending(limit=6)
    assert c.results.learned == {4, 5}
    c.close_book()
    assert c.jobs.pending() == 0 and c.analyze_pending() == 0

    assert c.open(book)  # new book names: the pass starts again (from the disk cache in the reader)
    assert c.results.learned == set()
    c.analyze_pending()
    assert c.results.learned == set(range(4, 10))
    assert c.pages is not None and all(c.pages.named(n) is not None for n in range(5, 11))


def test_a_broken_page_in_the_middle_does_not_stop_the_pass(queue: SpeechQueue, tmp_path: Path) -> None:
    book = make_book(tmp_path / "Broken.cbz", pages=10, broken=7)
    c = ReaderController(queue, _analyzer(), persist_settings=False)
    assert c.open(book)
    c.analyze_pending()
    assert c.results.learned == set(range(4, 10))  # page 7 tried and passed over
    assert c.pages is not None
    assert c.pages.named(7) is None  # nothing learned of the broken page
    assert all(c.pages.named(n) is not None for n in (5, 6, 8, 9, 10))


def test_the_pass_can_be_turned_off(queue: SpeechQueue, tmp_path: Path) -> None:
    book = make_book(tmp_path / "Off.cbz", pages=10, broken=None)
    c = ReaderController(
        queue, _analyzer(), persist_settings=False, settings=ReaderSettings(learn_book=False)
    )
    assert c.open(book)
    assert not any(j.learn for j in _peek(c))
    c.set_settings(ReaderSettings(learn_book=True))
    assert [j.page for j in _peek(c) if j.learn] == list(range(4, 10))


def test_in_the_window_the_pass_runs_on_the_analysis_thread_and_renames_in_place(
    qtbot: QtBot, spy: SpyBackend, tmp_path: Path
) -> None:
    book = make_book(tmp_path / "Window.cbz", pages=10, broken=None)
    r = build_reader(backends=[spy], analyzer_factory=_analyzer, screen_reader=False, persist_settings=False)
    qtbot.addWidget(r.window)
    r.window.show()
    try:
        assert r.window.open_path(book)
        r.controller.go_to_page(2)
        r.window.tree.setFocus()
        qtbot.waitUntil(lambda: set(range(5, 10)) <= r.controller.results.learned, timeout=20_000)
        qtbot.waitUntil(
            lambda: any(
                "Anna: My name is Anna." in r.window.tree.item(i).text() for i in range(r.window.tree.count())
            )
        )
        assert r.controller.position.page == 1 and r.window.tree.hasFocus()
    finally:
        r.close()


def test_a_page_read_earlier_is_named_anew_too(queue: SpeechQueue, tmp_path: Path) -> None:
    book = make_book(tmp_path / "Earlier.cbz", pages=10, broken=None)
    c = ReaderController(queue, _analyzer(), persist_settings=False, lookahead=1)
    assert c.open(book)
    c.go_to_page(2)
    c.analyze_pending(limit=len(c.results.wanted(c.position.page, c.page_count)))
    c.go_to_page(5)  # page 2 stays read, away from the reader
    c.analyze_pending(limit=len(c.results.wanted(c.position.page, c.page_count)))
    assert "Character 1: My name is Anna." in " ".join(s.text for s in c.outline(1).steps)
    c.analyze_pending()  # the rest of the book
    c.go_to_page(2)  # said at once, with the whole book's name, before any page is read again
    assert "Anna: My name is Anna." in " ".join(s.text for s in c.outline(1).steps)
