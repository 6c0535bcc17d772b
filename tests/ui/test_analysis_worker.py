"""Page analysis in a worker process: the real default pipeline, the cache, crashes, quitting."""

from __future__ import annotations

import io
import os
import signal
import time
import zipfile
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from reader_fixtures import make_book

from panelvox.analysis.cache import PageAnalyzer
from panelvox.analysis.pipeline import default_stages
from panelvox.books import open_book
from panelvox.reader.analysis_worker import ProcessAnalyzer
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.ui.reader_app import build_reader


def _drawn_page() -> bytes:
    """Two framed panels, a balloon with large printed words in the first."""
    im = Image.new("RGB", (800, 600), "white")
    d = ImageDraw.Draw(im)
    d.rectangle((20, 20, 390, 580), outline="black", width=6)
    d.rectangle((410, 20, 780, 580), outline="black", width=6)
    d.ellipse((50, 60, 360, 220), outline="black", fill="white", width=4)
    font = ImageFont.load_default(size=36)
    d.text((95, 115), "HELLO THERE", fill="black", font=font)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _drawn_book(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("001.png", _drawn_page())
    return path


def _pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.slow
def test_worker_process_runs_the_default_pipeline_and_shares_the_cache(tmp_path: Path) -> None:
    book = open_book(_drawn_book(tmp_path / "drawn.cbz"))
    worker = ProcessAnalyzer(tmp_path / "cache")
    try:
        start = time.perf_counter()
        result = worker.analyze_page(book, 1, book.direction)
        first_seconds = time.perf_counter() - start
        pid = worker.pid
        # The same page analysed in this process by the same pipeline: the same analysis.
        here = PageAnalyzer(default_stages(), None).analyze_page(book, 1, book.direction)
        assert result.to_json() == here.to_json()
        assert len(result.panels) == 2
        assert "HELLO" in " ".join(b.text for b in result.blocks).upper()
        # The worker wrote the shared on-disk cache, and answers from it the next time.
        assert list((tmp_path / "cache").rglob("00001-*.json"))
        start = time.perf_counter()
        again = worker.analyze_page(book, 1, book.direction)
        assert again == result and time.perf_counter() - start < first_seconds
        assert worker.pid == pid and worker.started == 1  # one worker, stages built once
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # dies while idle (the out-of-memory killer, say)
        deadline = time.monotonic() + 10
        while worker.pid is not None and time.monotonic() < deadline:  # reaped by the worker's owner
            time.sleep(0.01)
        third = worker.analyze_page(book, 1, book.direction)  # no page is lost: a new worker answers
        assert third == result
        assert worker.started == 2 and worker.pid not in (None, pid)
        last = worker.pid
    finally:
        worker.close()
        book.close()
    assert last is not None and _pid_gone(last)  # closing ends the worker


@pytest.mark.slow
def test_a_killed_worker_costs_one_page_and_a_new_one_takes_over(
    qtbot: QtBot, tmp_path: Path, spy: SpyBackend
) -> None:
    book = make_book(tmp_path / "Test Book.cbz")
    r = build_reader(
        backends=[spy], screen_reader=False, persist_settings=False, cache_dir=tmp_path / "cache"
    )
    qtbot.addWidget(r.window)
    worker = r.analyzer
    assert worker is not None
    try:
        r.window.show()
        assert r.window.open_path(book)
        qtbot.waitUntil(lambda: worker.working_on == 0 and worker.pid is not None, timeout=60_000)
        first = worker.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)  # a crash in native code while page 1 is analysed
        qtbot.waitUntil(lambda: r.controller.outline(0).unreadable, timeout=30_000)
        r.speech.wait_idle(5)
        assert "Page 1 could not be analysed." in " ".join(spy.texts(SpyEvent.STARTED))
        # Reading goes on: the next page is analysed by a new worker.
        qtbot.keyClick(r.window.tree, Qt.Key.Key_PageDown)
        qtbot.waitUntil(lambda: r.controller.outline(1).ready, timeout=120_000)
        assert not r.controller.outline(1).unreadable and r.controller.outline(1).steps
        assert worker.started == 2 and worker.pid not in (None, first)
        second = worker.pid
    finally:
        r.close()
    assert second is not None and _pid_gone(second)  # quitting ends the worker


@pytest.mark.slow
def test_an_idle_worker_ends_to_free_its_memory_and_a_new_one_takes_the_next_page(tmp_path: Path) -> None:
    book = open_book(_drawn_book(tmp_path / "drawn.cbz"))
    worker = ProcessAnalyzer(None, idle_exit_s=1.0)
    try:
        first = worker.analyze_page(book, 1, book.direction)
        assert worker.pid is not None
        deadline = time.monotonic() + 30
        while worker.pid is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert worker.pid is None  # ended by itself: its models' memory is given back
        again = worker.analyze_page(book, 1, book.direction)
        assert worker.started == 2
        assert [b.text for b in again.blocks] == [b.text for b in first.blocks]
    finally:
        worker.close()
        book.close()


def _niceness_after_lowering(queue: object) -> None:
    from panelvox.reader.analysis_worker import lower_priority

    queue.put((os.nice(0), lower_priority()))  # type: ignore[attr-defined]


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities on this platform")
@pytest.mark.slow
def test_the_worker_runs_at_a_lower_priority_than_the_reader() -> None:
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_niceness_after_lowering, args=(queue,))
    proc.start()
    before, after = queue.get(timeout=60)
    proc.join(timeout=30)
    assert after > before and after >= os.nice(0) + 1
