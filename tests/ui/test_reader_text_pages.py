"""T: a page announced as a page of text is read in full on request, in the reader window."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from reader_fixtures import make_book
from text_pages import text_page

from panelvox.analysis.cache import pipeline_fingerprint
from panelvox.analysis.pipeline import default_stages
from panelvox.analysis.text_stage import TextStage
from panelvox.books import DirectionOverrides
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, ReadingDirection
from panelvox.narration.prefs import NarrationPrefs
from panelvox.reader.analysis_jobs import JobResult
from panelvox.reader.page_results import PageResults
from panelvox.reader.position import Level, Position
from panelvox.reader.preferences import Preferences
from panelvox.reader.reader_settings import ReaderSettings
from panelvox.reader.text_reading import text_stages
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.ui.reader_app import REMIND_MS, Reader, build_reader

VOCABULARY = Path(__file__).resolve().parents[2] / "app" / "panelvox" / "analysis" / "data"


def _heard(r: Reader, spy: SpyBackend) -> list[str]:
    r.speech.wait_idle(5)
    return spy.texts(SpyEvent.STARTED)


def _key(qtbot: QtBot, r: Reader, key: Qt.Key) -> None:
    qtbot.keyClick(r.window.tree, key)
    r.speech.wait_idle(5)
    qtbot.wait(5)


def test_t_on_a_comic_page_says_briefly_that_it_is_not_a_page_of_text(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    assert reader.window.open_path(make_book(tmp_path / "Test Book.cbz"))
    qtbot.waitUntil(lambda: reader.controller.outline(0).ready, timeout=10_000)
    _key(qtbot, reader, Qt.Key.Key_T)
    assert _heard(reader, spy)[-1] == "This is not a page of text."
    assert reader.controller.position == Position(0)
    _key(qtbot, reader, Qt.Key.Key_F1)
    assert "T: read a page of text (credits, letters) in full." in _heard(reader, spy)[-1]


@pytest.mark.slow
def test_a_user_waiting_for_a_page_of_text_hears_that_the_work_goes_on(
    qtbot: QtBot, reader: Reader, spy: SpyBackend
) -> None:
    reading = reader.controller.text
    assert reader.reminder is not None
    reading.waiting = 0  # T was pressed on page 1 and its text is being recognised
    with qtbot.waitSignal(reader.reminder.timeout, timeout=REMIND_MS + 2_000):
        pass
    qtbot.waitUntil(lambda: "Still reading the page of text." in _heard(reader, spy), timeout=2_000)
    reading.stop()  # a key: the user moved on, no more reminders
    before = len(_heard(reader, spy))
    reading.remind()
    assert len(_heard(reader, spy)) == before


def test_the_text_stage_reading_running_text_is_another_cache_entry_sharing_the_models() -> None:
    stages = default_stages()
    reading = text_stages(stages)
    assert pipeline_fingerprint(reading) != pipeline_fingerprint(stages)
    text, read = (next(s for s in group if isinstance(s, TextStage)) for group in (stages, reading))
    assert not text.read_dense and read.read_dense and read.engine is text.engine
    assert text_stages(reading) == reading  # asked again: nothing more to change


def test_the_announced_page_and_the_read_one_are_kept_apart() -> None:
    results = PageResults(
        Preferences(NarrationPrefs(), ReaderSettings(), DirectionOverrides(), persist=False)
    )
    notice = "A page of text, about 2,000 words."
    announced = PageAnalysis(1, 760, 900, ReadingDirection.LTR, notices=(notice,))
    block = Balloon("b1", BalloonKind.CAPTION, BBox(10, 10, 700, 800), "Dear editor, I write.", 0.9, "t")
    read = replace(announced, notices=(), blocks=(block,))
    assert results.accept(JobResult(results.token, 0, announced, None, 1.0))
    assert results.outline(0).steps[0].text.startswith(f"{notice} Press T to read it. ")
    assert results.accept(JobResult(results.token, 0, None, "Page 1 could not be analysed.", 1.0, text=True))
    assert not results.text_read(0) and results.analysis(0) is announced  # a failed read changes nothing
    assert results.accept(JobResult(results.token, 0, read, None, 9.0, text=True))
    assert results.text_read(0) and results.analysis(0) is read and results.announced(0) is announced
    assert [s.text for s in results.outline(0).steps] == ["Dear editor, I write."]
    results.forget_outlines()  # new preferences: the read page stays the read one
    assert "Dear editor" in results.outline(0).steps[0].text


def _text_book(path: Path) -> tuple[Path, int]:
    pixels, drawn = text_page(300, (760, 900), columns=2, seed=3)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("001.png", buf.getvalue())
    return path, drawn


@pytest.mark.slow
def test_t_reads_a_page_of_text_recognised_in_the_worker(
    qtbot: QtBot, spy: SpyBackend, tmp_path: Path
) -> None:
    """The default pipeline in the worker process: the page is announced with its size and
    the key; T has it read, and what is said is the page's words, block by block."""
    book, drawn = _text_book(tmp_path / "Letters.cbz")
    r = build_reader(
        backends=[spy], screen_reader=False, persist_settings=False, cache_dir=tmp_path / "cache"
    )
    qtbot.addWidget(r.window)
    try:
        r.window.show()
        r.window.tree.setFocus()
        assert r.window.open_path(book)
        qtbot.waitUntil(lambda: r.controller.outline(0).ready, timeout=180_000)
        _key(qtbot, r, Qt.Key.Key_Right)
        announced = _heard(r, spy)[-2:]
        assert re.fullmatch(r"A page of text, about [\d,]+ words\. Press T to read it\.", announced[0]), (
            announced
        )
        mark = len(_heard(r, spy))
        _key(qtbot, r, Qt.Key.Key_T)
        assert _heard(r, spy)[mark] == "Reading the page of text…"
        qtbot.waitUntil(lambda: "End of book." in _heard(r, spy)[mark:], timeout=180_000)
        # on a loaded machine the wait may pass REMIND_MS: the reminder is said, not read
        said = [s for s in _heard(r, spy)[mark + 1 : -1] if s != "Still reading the page of text."]
        outline = r.controller.outline(0)
        assert [s.text for s in outline.steps] == said  # the page's blocks, in reading order
        vocabulary = set((VOCABULARY / "english_words.txt").read_text("utf-8").lower().split())
        words = [w.lower() for w in re.findall(r"[A-Za-z]+", " ".join(said[1:]))]
        assert len(words) >= 0.8 * drawn  # the running text itself, recognised
        assert sum(w in vocabulary for w in words) >= 0.85 * len(words)
        assert r.window.tree.count() == 1 + len(outline.panels) + len(outline.steps)
        _key(qtbot, r, Qt.Key.Key_Left)  # the usual keys move through the blocks
        assert r.controller.position == Position(0, len(outline.steps) - 2, Level.BALLOON)
        assert _heard(r, spy)[-1] == said[-2]
        # both analyses kept: the cache holds the read page under its own fingerprint
        assert r.controller.results.announced(0) is not None and r.controller.results.text_read(0)
        # only the read page is in the cache: an announced page (a page with notices) never
        # is, so its sentence is always in the running language (text_reading relies on it)
        assert len(list((tmp_path / "cache").glob("*/*/00001-ltr-*.json"))) == 1
    finally:
        r.close()
