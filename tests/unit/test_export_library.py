"""``panelvox export DIR``: a folder of two small books and a hostile file, exported with two
worker processes and on a Dask LocalCluster of two workers; each run killed half-way and
run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from export_env import REPO, SAMPLES

from panelvox.cli import main
from panelvox.export.book_export import ExportFormat, ExportOptions
from panelvox.export.library import export_library, find_books

pytestmark = pytest.mark.slow
HOSTILE_REASON = "This book is damaged and cannot be opened."


@pytest.fixture(scope="module")
def cache_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("export-cache")


@pytest.fixture
def library(tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two small books (two pages, one page) and a hostile file; the analysis cache is the
    module's, so the books are analysed once for all these tests (workers inherit it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "a-late-train.cbz").write_bytes(SAMPLES["sample-rtl"].read_bytes())
    with (
        zipfile.ZipFile(SAMPLES["sample-rtl"]) as src,
        zipfile.ZipFile(folder / "b-one-page.cbz", "w") as dst,
    ):
        pages = sorted(n for n in src.namelist() if n.lower().endswith((".png", ".jpg", ".jpeg")))
        dst.writestr(pages[0], src.read(pages[0]))
    (folder / "c-broken.cbz").write_bytes(b"PK\x03\x04 this is not a zip archive at all " * 40)
    (folder / "notes.txt").write_text("not a book", encoding="utf-8")
    return folder


def _outputs(out: Path) -> dict[str, float]:
    return {p.name: p.stat().st_mtime_ns for p in out.iterdir() if not p.name.startswith(".")}


def _complete(out: Path) -> None:
    assert sorted(_outputs(out)) == ["a-late-train.html", "b-one-page.html"]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no half-written export left
    for name in _outputs(out):
        assert (out / name).read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_the_library_holds_the_books_not_the_notes(library: Path) -> None:
    assert [p.name for p in find_books(library)] == ["a-late-train.cbz", "b-one-page.cbz", "c-broken.cbz"]


def test_two_workers_skip_the_hostile_file_and_never_redo_a_book(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["export", str(library), "--format", "html", "--out", str(out), "--workers", "2"]
    assert main(args) == 1  # a book was skipped
    err = capsys.readouterr().err
    assert f"Skipped c-broken.cbz: {HOSTILE_REASON}" in err
    assert "2 books exported, 0 already done, 1 skipped." in err
    _complete(out)
    before = _outputs(out)
    assert main([*args, "--progress"]) == 1
    err = capsys.readouterr().err
    assert "0 books exported, 2 already done, 1 skipped." in err
    assert "1 of 1 books" in err  # progress only when asked: the one book tried again is the bad one
    assert _outputs(out) == before


def _kill_after_first_book(args: list[str], out: Path) -> None:
    """Run the command in its own process group; kill it (SIGKILL) when a first book is out."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "app")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "panelvox.cli", *args],
        env=env,
        start_new_session=True,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if out.is_dir() and _outputs(out):
            break
        time.sleep(0.05)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def test_worker_batch_resumes_after_a_kill(library: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["export", str(library), "--format", "html", "--out", str(out), "--workers", "2"]
    _kill_after_first_book(args, out)
    survived = _outputs(out)
    assert survived  # the first book finished before the kill
    assert main(args) == 1
    _complete(out)
    assert {k: v for k, v in _outputs(out).items() if k in survived} == survived  # not redone


@pytest.fixture
def cluster(library: Path) -> Any:
    distributed = pytest.importorskip(
        "distributed", reason="Dask's distributed is not installed (extra: cluster)"
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    ) as c:
        yield c


def test_dask_cluster_exports_the_library_and_resumes_after_a_kill(
    library: Path, tmp_path: Path, cluster: Any
) -> None:
    address = cluster.scheduler_address
    out = tmp_path / "out"
    skipped: list[str] = []
    report = export_library(
        library,
        out,
        ExportOptions(ExportFormat.HTML),
        scheduler=address,
        on_skip=lambda r: skipped.append(f"{r.book.name}: {r.error}"),
    )
    assert sorted(r.book.name for r in report.done) == ["a-late-train.cbz", "b-one-page.cbz"]
    assert skipped == [f"c-broken.cbz: {HOSTILE_REASON}"]
    _complete(out)

    again = tmp_path / "again"
    args = ["export", str(library), "--format", "html", "--out", str(again), "--scheduler", address]
    _kill_after_first_book(args, again)
    survived = _outputs(again)
    assert survived
    assert main(args) == 1
    _complete(again)
    assert {k: v for k, v in _outputs(again).items() if k in survived} == survived


def test_a_finished_book_is_kept_and_a_half_written_one_starts_again(library: Path, tmp_path: Path) -> None:
    """What a killed run leaves: one book finished, one half-written under its hidden name."""
    out = tmp_path / "out"
    out.mkdir()
    finished = out / "b-one-page.html"
    finished.write_text("<!-- an earlier run's export -->\n</html>\n", encoding="utf-8")
    half = out / ".a-late-train.html.4242-abcdef.partial"
    half.write_text("<!DOCTYPE html><html><body><h1>The Late", encoding="utf-8")
    report = export_library(library, out, ExportOptions(ExportFormat.HTML))
    assert [r.book.name for r in report.done] == ["a-late-train.cbz"]
    assert [p.name for p in report.already] == ["b-one-page.cbz"]
    assert finished.read_text(encoding="utf-8").startswith("<!-- an earlier run's export -->")
    _complete(out)
