from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from panelvox.cli import main


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for command in ("info", "analyze", "narrate", "eval", "read"):
        assert command in out


def test_missing_book_is_one_plain_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(tmp_path / "nope.cbz")]) == 1
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    """`panelvox info BOOK | head` must not print "Something went wrong"."""
    book = tmp_path / "book.cbz"
    # Enough pages that the page list overflows the pipe buffer after head has gone.
    png = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(png, "PNG")
    with zipfile.ZipFile(book, "w") as zf:
        for i in range(3000):
            zf.writestr(f"a-rather-long-page-name-to-fill-the-pipe-{i:05d}.png", png.getvalue())
    env_home = {"XDG_STATE_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        f"'{sys.executable}' -m panelvox.cli info '{book}' | head -c 5",
        shell=True,
        capture_output=True,
        text=True,
        env=env_home,
        check=False,
        timeout=60,
    )
    assert proc.stdout == "Title"  # the book's title line starts the output
    assert proc.stderr == ""


def test_the_command_line_does_not_import_the_describers_modules_until_asked() -> None:
    """`panelvox narrate` starts cold on every call: the description model's modules (the
    registry, the llama backend, the describer and verifier) load only for describe/ask/models."""
    code = (
        "import sys; import panelvox.cli; "
        "print(sorted(m for m in sys.modules if m in ("
        "'panelvox.models.registry', 'panelvox.narration.vlm_backend', "
        "'panelvox.narration.describe', 'panelvox.narration.verify')))"
    )
    app = str(Path(__file__).resolve().parents[2] / "app")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([app, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"


def test_eval_without_the_evaluation_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SciPy, scikit-learn and rapidfuzz are the `eval` extra's, not the app's."""
    for name in [m for m in sys.modules if m.startswith(("panelvox.eval", "scipy", "sklearn", "rapidfuzz"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "scipy", None)  # as if not installed
    assert main(["eval", "cib", "--stage", "script"]) == 2
    assert "panelvox[eval]" in capsys.readouterr().err
