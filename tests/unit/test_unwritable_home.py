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
@pytest.mark.slow
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


@pytest.mark.slow
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


# -- the real pipeline on the sample book, in homes where nothing can be written (issue 32) ----

SAMPLE = UNIT.parents[1] / "assets" / "sample.cbz"
_XDG = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")
#: what turns a fresh folder into each home, run as root in a mount namespace of the child's
#: own (``unshare -m``) so nothing is mounted outside it: a tmpfs mounted read-only, a tmpfs
#: of 512 KiB filled to its last byte (writes fail with ENOSPC, as on a full disk), both
_MOUNTS = {
    "read-only home": 'mount -t tmpfs -o ro,size=1m tmpfs "$H"',
    "full disk": 'mount -t tmpfs -o size=512k tmpfs "$H" && { head -c 1G /dev/zero > "$H/fill" 2>/dev/null; true; }',
    "read-only and full": (
        'mount -t tmpfs -o size=512k tmpfs "$H" && { head -c 1G /dev/zero > "$H/fill" 2>/dev/null; true; }'
        ' && mount -o remount,ro "$H"'
    ),
}
_HOSTILE = (
    "read-only home",
    "XDG folders under /proc",
    "XDG folders are a file",
    "full disk",
    "read-only and full",
)


def _mounting() -> str | None:
    """Why the mounted set-ups cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "mounting a read-only or full tmpfs needs root (a read-only folder is writable for root)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"no tmpfs can be mounted here: {probe.stderr.strip()[:200]}"
    return None


def _narrate_sample(
    home: Path, env_extra: dict[str, str], mount: str | None
) -> subprocess.CompletedProcess[str]:
    """``panelvox narrate assets/sample.cbz --page 1 --text`` with the real pipeline, the
    home ``home`` (also the working folder) and no XDG folder but those in ``env_extra``.
    With ``mount``, the home is /tmp with the tmpfs ``mount`` makes on it, also mounted on
    /var/tmp: a full or read-only home leaves nowhere at all to write, Python's temporary
    folder included."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "PANELVOX_", "TMP"))}
    env |= {"HOME": str(home), "PYTHONPATH": str(APP)} | env_extra
    command = [sys.executable, "-m", "panelvox.cli", "narrate", str(SAMPLE), "--page", "1", "--text"]
    if mount is not None:
        env |= {"HOME": "/tmp", "H": "/tmp"}
        script = f'{mount} && mount --bind /tmp /var/tmp && cd /tmp && exec "$@"'
        command = ["unshare", "-m", "sh", "-c", script, "sh", *command]
    return subprocess.run(
        command, cwd=home, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def writable_reading(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    return _narrate_sample(tmp_path_factory.mktemp("writable-home"), {}, None)


@pytest.mark.slow
@pytest.mark.parametrize("setup", _HOSTILE)
def test_the_sample_page_reads_the_same_where_nothing_can_be_saved(
    setup: str, tmp_path: Path, writable_reading: subprocess.CompletedProcess[str]
) -> None:
    """The real pipeline (text models made on first use, the log, the cache) in five homes
    where nothing can be written, with no cache made before: the same lines as a writable
    home, and one sentence about what could not be saved (issue 32)."""
    home = tmp_path / "home"
    home.mkdir()
    extra: dict[str, str] = {}
    mount = _MOUNTS.get(setup)
    if mount is not None and (why := _mounting()) is not None:
        pytest.skip(why)
    if setup == "XDG folders under /proc":
        extra = {v: f"/proc/panelvox-test/{v.lower()}" for v in _XDG}
    elif setup == "XDG folders are a file":
        (tmp_path / "a-file").write_text("not a folder")
        extra = dict.fromkeys(_XDG, str(tmp_path / "a-file"))
    assert writable_reading.returncode == 0, writable_reading.stderr
    assert writable_reading.stderr == ""
    assert len(writable_reading.stdout.splitlines()) >= 6  # the heading and the page's lines

    result = _narrate_sample(home, extra, mount)
    assert result.returncode == 0, result.stderr
    assert result.stdout == writable_reading.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # no traceback, no "--- Logging error ---"
    assert lines[0].startswith("Could not save ") and lines[0].endswith(NOTICE)
