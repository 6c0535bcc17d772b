"""The audio exports of the sample books: an audiobook with a chapter per page (inside the OGG
and in its CUE sheet), and a DiViNa whose blocks point into per-page audio files."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import readium_gn
from export_env import SAMPLES, module_home

from panelvox.cli import main
from panelvox.speech.backends.file_backend import FileBackend

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=sorted(SAMPLES))
def audio_export(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not FileBackend.check():
        pytest.skip("no voice that writes audio files (espeak-ng through pyttsx3, or Piper) is installed")
    if shutil.which("sox") is None:
        pytest.skip("SoX is not installed (scripts/setup installs it)")
    root = tmp_path_factory.mktemp(request.param)
    book = SAMPLES[request.param]
    with module_home(root / "home"):
        assert main(["export", str(book), "--format", "audiobook", "--out", str(root / "book.ogg")]) == 0
        assert (
            main(["export", str(book), "--format", "divina", "--audio", "--out", str(root / "divina")]) == 0
        )
    pages = json.loads((root / "divina" / "manifest.json").read_text(encoding="utf-8"))["metadata"][
        "numberOfPages"
    ]
    yield root, pages


def _decoded(path: Path, tmp: Path) -> np.ndarray:
    wav = tmp / (path.stem + ".wav")
    subprocess.run(["sox", str(path), "-b", "16", "-c", "1", str(wav)], check=True, capture_output=True)
    with wave.open(str(wav)) as wf:
        return np.frombuffer(wf.readframes(wf.getnframes()), dtype="<i2").astype(np.float64)


def test_audiobook_has_a_chapter_per_page_and_sound(audio_export: Any, tmp_path: Path) -> None:
    root, pages = audio_export
    comments = subprocess.run(
        ["soxi", "-a", str(root / "book.ogg")], capture_output=True, text=True, check=True
    ).stdout
    starts = re.findall(r"^CHAPTER(\d{3})=(\d\d):(\d\d):(\d\d\.\d{3})$", comments, re.MULTILINE)
    names = re.findall(r"^CHAPTER\d{3}NAME=(.*)$", comments, re.MULTILINE)
    assert len(starts) == pages and names == [f"Page {n}" for n in range(1, pages + 1)]
    seconds = [int(h) * 3600 + int(m) * 60 + float(s) for _n, h, m, s in starts]
    assert seconds[0] == 0 and seconds == sorted(seconds) and len(set(seconds)) == pages
    cue = (root / "book.cue").read_text(encoding="utf-8")
    assert cue.count("TRACK ") == pages and 'FILE "book.ogg" OGG' in cue
    samples = _decoded(root / "book.ogg", tmp_path)
    duration = float(
        subprocess.run(["soxi", "-D", str(root / "book.ogg")], capture_output=True, text=True).stdout
    )
    assert duration > seconds[-1]
    # every chapter holds speech, not silence
    bounds = [*seconds, duration]
    for a, b in itertools.pairwise(bounds):
        part = samples[int(a / duration * samples.size) : int(b / duration * samples.size)]
        assert np.sqrt(np.mean(part**2)) > 300, (a, b)


def test_divina_audio_refs_point_into_sounding_page_files(audio_export: Any, tmp_path: Path) -> None:
    root, pages = audio_export
    folder = root / "divina"
    guided = json.loads((folder / "guided.json").read_text(encoding="utf-8"))
    if readium_gn.available() is None:
        assert readium_gn.errors(guided) == []
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert (
        manifest["metadata"]["duration"] > 0
        and "auditory" in manifest["metadata"]["accessibility"]["accessMode"]
    )
    refs = []

    def walk(obj: dict[str, Any]) -> None:
        if "audioref" in obj:
            refs.append(obj["audioref"])
        for child in obj.get("children", []):
            walk(child)

    for page in guided["guided"]:
        walk(page)
    assert refs
    files = {r.split("#")[0] for r in refs}
    assert len(files) <= pages
    for name in files:
        samples = _decoded(folder / name, tmp_path)
        assert np.sqrt(np.mean(samples**2)) > 300
        length = float(
            subprocess.run(["soxi", "-D", str(folder / name)], capture_output=True, text=True).stdout
        )
        spans = [tuple(map(float, r.split("#t=")[1].split(","))) for r in refs if r.startswith(name + "#")]
        assert all(0 <= a < b <= length + 0.05 for a, b in spans)
        assert [a for a, _b in spans] == sorted(a for a, _b in spans)  # in reading order


def test_audio_files_are_said_by_the_best_installed_voice() -> None:
    """Piper's neural voice where it is installed, espeak-ng only without it (the order of
    reading aloud); the page's English text is said by it, never by a language voice."""
    from panelvox.export.page_audio import PageRenderer, heading
    from panelvox.narration.prefs import NarrationPrefs
    from panelvox.speech.backends.piper_backend import PiperBackend
    from panelvox.speech.backends.pyttsx3_backend import Pyttsx3Backend

    if not FileBackend.check():
        pytest.skip("no voice that writes audio files (espeak-ng through pyttsx3, or Piper) is installed")
    best = "piper" if PiperBackend.check_engine() else "pyttsx3"
    if best == "piper" and not Pyttsx3Backend.check_engine():
        pytest.skip("only one voice is installed: nothing to choose between")
    renderer = PageRenderer(NarrationPrefs())
    try:
        audio = renderer.render([heading("Page 1: 2 panels, 3 balloons.")])
    finally:
        renderer.close()
    assert audio.samples.size > 0
    assert {h.backend for h in audio.heard} == {best}
