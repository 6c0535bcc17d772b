"""`panelvox narrate` end to end on a small book the test draws."""

from __future__ import annotations

import sys
import wave
import zipfile
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from panelvox.cli import main
from panelvox.speech.backends.pyttsx3_backend import Pyttsx3Backend


def _page(seed: int) -> bytes:
    img = Image.new("RGB", (600, 800), "white")
    draw = ImageDraw.Draw(img)
    for row in range(2):
        for col in range(2):
            x0, y0 = 30 + col * 280, 30 + row * 380
            draw.rectangle([x0, y0, x0 + 250, y0 + 350], outline="black", width=5)
            draw.ellipse([x0 + 40, y0 + 40, x0 + 200, y0 + 120], outline="black", width=3)
            draw.text((x0 + 70, y0 + 70), f"HELLO {seed}", fill="black")
    buf = BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "drawn.cbz"
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(1, 4):
            zf.writestr(f"page{i:02d}.png", _page(i))
    return path


@pytest.mark.slow
def test_prints_the_script_by_default(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["narrate", str(book), "--page", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Page 2:")


def test_bad_page_is_one_sentence(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["narrate", str(book), "--page", "9"]) == 1
    assert capsys.readouterr().err.strip() == "This book has pages 1 to 3."


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not Pyttsx3Backend.check_engine(),
    reason="espeak-ng not installed",
)
@pytest.mark.slow
def test_writes_a_wav_of_the_first_page_and_a_book_with_chapters(book: Path, tmp_path: Path) -> None:
    out = tmp_path / "page1.wav"
    assert main(["narrate", str(book), "--page", "1", "--wav", str(out), "--backend", "pyttsx3"]) == 0
    with wave.open(str(out)) as wf:
        frames = np.frombuffer(wf.readframes(wf.getnframes()), dtype="<i2")
        seconds = wf.getnframes() / wf.getframerate()
    assert seconds > 1.0
    assert np.sqrt(np.mean((frames / 32768.0) ** 2)) > 0.01

    whole = tmp_path / "book.wav"
    assert main(["narrate", str(book), "--pages", "1-3", "--wav", str(whole), "--backend", "pyttsx3"]) == 0
    cue = whole.with_suffix(".cue").read_text(encoding="utf-8")
    assert cue.count("TRACK") == 3 and 'TITLE "Page 3"' in cue

    per_page = tmp_path / "pages"
    assert main(["narrate", str(book), "--pages", "2-3", "--audio", str(per_page)]) == 0
    assert sorted(p.name for p in per_page.iterdir()) == ["page-002.wav", "page-003.wav"]


@pytest.mark.slow
def test_speak_with_silence_backend_still_works(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["narrate", str(book), "--page", "1", "--speak", "--backend", "silence"]) == 0
    assert "nothing will be heard" in capsys.readouterr().err
