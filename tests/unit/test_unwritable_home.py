"""Nowhere to write: the page is still read (issue 20).

A read-only home, XDG folders under /proc, a full disk, XDG folders that are regular files:
narration prints its text and exits 0; one short sentence says once what could not be
saved; the log falls silent instead of printing tracebacks; the reader's page path reads
every page; the reader says the sentence once.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import replace
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from page_fixtures import exchange
from PIL import Image as PILImage

from panelvox.analysis.cache import AnalysisCache, PageAnalyzer
from panelvox.books import open_book
from panelvox.jsonfile import take_notices
from panelvox.model import PageAnalysis
from panelvox.names.book_names import BookNames
from panelvox.names.stores import NameStore
from panelvox.pages import PageService
from panelvox.reader.analysis_jobs import Job, run_job
from panelvox.reader.commands import Command
from panelvox.reader.listener import ReaderListener
from panelvox.reader.position_store import PositionStore
from panelvox.reader.reader_controller import ReaderController
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.queue import SpeechQueue

UNIT = Path(__file__).resolve().parent
APP = UNIT.parents[1] / "app"
NOTICE = "; the disk may be full or read-only."

# narrate with one fixed stage (the stages are tested elsewhere); the rest is the real CLI
_NARRATE = """
import sys
from dataclasses import replace
from page_fixtures import exchange
import panelvox.analysis.pipeline as pipeline
from panelvox.cli import main


class Fixed:
    name = "fixed"

    def __call__(self, image, analysis):
        page = exchange("DOUGAL, COME HERE!", "WHAT IS IT?", analysis.page)
        return replace(analysis, panels=page.panels, blocks=page.blocks, characters=page.characters,
                       speakers=page.speakers)


pipeline.default_stages = lambda: (Fixed(),)
sys.exit(main(["narrate", sys.argv[1], "--text"]))
"""


def _book(path: Path, pages: int = 2) -> Path:
    buf = BytesIO()
    PILImage.fromarray(np.full((300, 400, 3), 250, np.uint8)).save(buf, "PNG")
    with zipfile.ZipFile(path, "w") as z:
        for n in range(pages):
            z.writestr(f"{n + 1:03d}.png", buf.getvalue())
        z.writestr("ComicInfo.xml", "<ComicInfo><Characters>Dougal MacCallum</Characters></ComicInfo>")
    return path


def _full_disk() -> None:
    # a file-size limit of 0 bytes: every write fails (EFBIG) as on a full disk
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def _setups(tmp: Path) -> dict[str, tuple[dict[str, str], list[str], Callable[[], None] | None]]:
    home = tmp / "home"
    home.mkdir()
    afile = tmp / "a-file"
    afile.write_text("not a folder")
    xdg = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")
    ro_prefix: list[str] = []
    if os.geteuid() == 0:
        # root writes through permissions: mount a read-only tmpfs over the home instead
        ro_prefix = ["unshare", "-m", "sh", "-c", f'mount -t tmpfs -o ro tmpfs "{home}" && exec "$@"', "sh"]
    return {
        "read-only home": ({"HOME": str(home)}, ro_prefix, None),
        "XDG folders under /proc": (
            {"HOME": str(home), **{v: f"/proc/panelvox-test/{v.lower()}" for v in xdg}},
            [],
            None,
        ),
        "full disk": ({"HOME": str(home)}, [], _full_disk),
        "XDG folders are a file": ({"HOME": str(home), **dict.fromkeys(xdg, str(afile))}, [], None),
    }


@pytest.mark.parametrize(
    "setup", ["read-only home", "XDG folders under /proc", "full disk", "XDG folders are a file"]
)
def test_narrate_reads_and_says_once_what_was_not_saved(setup: str, tmp_path: Path) -> None:
    book = _book(tmp_path / "book.cbz")
    extra, prefix, preexec = _setups(tmp_path)[setup]
    if prefix and shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    home = Path(extra["HOME"])
    if not prefix and setup == "read-only home":
        home.chmod(0o500)
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env |= extra | {"PYTHONPATH": os.pathsep.join([str(UNIT), str(APP)])}
    result = subprocess.run(
        [*prefix, sys.executable, "-c", _NARRATE, str(book)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=preexec,  # a resource limit for the child only
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Dougal MacCallum: What is it?" in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # no "--- Logging error ---", no traceback
    assert lines[0].startswith("Could not save ") and lines[0].endswith(NOTICE)


class _Fixed:
    name = "fixed"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        page = exchange("DOUGAL, COME HERE!", "WHAT IS IT?", analysis.page)
        return replace(
            analysis,
            panels=page.panels,
            blocks=page.blocks,
            characters=page.characters,
            speakers=page.speakers,
        )


def test_the_readers_page_path_reads_every_page_with_nowhere_to_write(tmp_path: Path) -> None:
    """reader/analysis_jobs.run_job, the reader's page path: a cache, names and learned
    names that cannot be written cost nothing but the saving."""
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    with open_book(_book(tmp_path / "book.cbz", pages=3)) as book:
        analyzer = PageAnalyzer((_Fixed(),), AnalysisCache(blocked / "cache", "v1"))
        pages = PageService(book, analyzer, BookNames.for_book(book, NameStore(blocked / "names.json")))
        results = [run_job(Job(1, pages, n, book.direction)) for n in range(book.page_count)]
        assert [r.error for r in results] == [None, None, None]
        assert all(r.analysis is not None and r.analysis.blocks for r in results)
        assert not pages.save_names()
    notices = take_notices()
    assert len(notices) == 1 and notices[0].endswith(NOTICE)
    assert take_notices() == []


def _cannot_save(tmp_path: Path, queue: SpeechQueue, **kwargs: Any) -> ReaderController:
    """A reader whose positions and names cannot be saved (their folder is a file)."""
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    return ReaderController(
        queue,
        PageAnalyzer((_Fixed(),), None),
        persist_settings=False,
        store=PositionStore(blocked / "positions.json"),
        names=NameStore(blocked / "names.json"),
        **kwargs,
    )


def test_the_reader_says_once_what_it_could_not_save(tmp_path: Path) -> None:
    spy = SpyBackend()
    queue = SpeechQueue([spy])
    reader = _cannot_save(tmp_path, queue)
    try:
        assert reader.open(_book(tmp_path / "book.cbz"))
        reader.analyze_pending()
        queue.wait_idle(5)  # the opening words and the notice are heard before a key cuts them
        for _ in range(3):
            reader.run(Command.NEXT_PAGE)
            reader.run(Command.PREV_PAGE)
        queue.wait_idle(5)
        heard = spy.texts(SpyEvent.STARTED)
    finally:
        reader.close()
        queue.close()
    said = [t for t in heard if t.endswith(NOTICE)]
    assert said == ["Could not save the reading position; the disk may be full or read-only."]
    assert heard.index(said[0]) > 0  # after the opening words, not instead of them


def test_a_notice_a_key_cut_off_is_offered_again_until_heard(tmp_path: Path) -> None:
    """A key pressed at once cuts the notice queued after the opening words: where-am-I ends
    with it, and the next page turn offers it again, until it was heard to its end."""
    spy = SpyBackend(seconds_per_char=0.01)  # slow enough for a key to land before the notice
    queue = SpeechQueue([spy])
    reader = _cannot_save(tmp_path, queue)
    try:
        assert reader.open(_book(tmp_path / "book.cbz", pages=3))
        reader.analyze_pending()
        reader.run(Command.NEXT_BALLOON)  # at once: the notice is never heard to its end
        queue.wait_idle(10)
        assert not [t for t in spy.texts(SpyEvent.DONE) if t.endswith(NOTICE)]
        reader.run(Command.WHERE_AM_I)
        queue.wait_idle(10)
        heard = spy.texts(SpyEvent.DONE)
        assert heard[-2].startswith("book, page 1 of 3") and heard[-1].endswith(NOTICE)
        for _ in range(2):  # heard now: neither W nor a page turn says it again
            reader.run(Command.NEXT_PAGE)
            reader.analyze_pending()
            queue.wait_idle(10)
            reader.run(Command.WHERE_AM_I)
            queue.wait_idle(10)
        assert len([t for t in spy.texts(SpyEvent.DONE) if t.endswith(NOTICE)]) == 1

        reader.notices.unheard.append("Something else could not be saved.")
        reader.run(Command.PREV_PAGE)  # a page turn offers what is unheard after the page
        reader.run(Command.NEXT_BALLOON)  # ... and a key cuts it again
        queue.wait_idle(10)
        assert reader.notices.unheard == ["Something else could not be saved."]
        reader.run(Command.PREV_PAGE)
        queue.wait_idle(10)
        assert spy.texts(SpyEvent.DONE)[-1] == "Something else could not be saved."
        assert reader.notices.unheard == []
    finally:
        reader.close()
        queue.close()


def test_with_a_screen_reader_where_am_i_ends_with_the_notice(tmp_path: Path) -> None:
    """Whether the screen reader's speech of it was cut is not known: it is handed over
    once, W ends with it in the same message, and page turns do not repeat it."""
    announced: list[str] = []

    class Announcing(ReaderListener):
        def announce(self, text: str) -> bool:
            announced.append(text)
            return True

    spy = SpyBackend()
    queue = SpeechQueue([spy])
    reader = _cannot_save(tmp_path, queue, moves_by_focus=True)
    reader.listener = Announcing()
    try:
        assert reader.open(_book(tmp_path / "book.cbz", pages=3))
        reader.analyze_pending()
        notice = "Could not save the reading position; the disk may be full or read-only."
        assert announced[-1] == notice
        for _ in range(2):
            reader.run(Command.NEXT_PAGE)
            reader.analyze_pending()
            reader.run(Command.WHERE_AM_I)
            assert announced[-1].startswith("book, page ") and announced[-1].endswith(" " + notice)
        assert announced.count(notice) == 1
        queue.wait_idle(5)
        assert spy.texts(SpyEvent.STARTED) == []  # all through the screen reader
    finally:
        reader.close()
        queue.close()
