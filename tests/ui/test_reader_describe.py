"""Describe (D) and ask (Q) in the reader window, offscreen, by what the spy backend hears.

The model test registers the tiny random-weight VLM that scripts/make_tiny_vlm.py writes
(the same helper as tests/unit/vlm_fixtures.py) in this test's own XDG_DATA_HOME, so the
window's worker really loads it with llama.cpp, describes the panel and runs the verifier.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from reader_fixtures import cheap_analyzer, make_book

from panelvox.models.registry import ModelRegistry
from panelvox.narration.describe import DescribeConfig
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.ui.reader_app import Reader, build_reader

UNIT_TESTS = Path(__file__).resolve().parents[1] / "unit"
SMALL = DescribeConfig(samples=3, max_characters=2, max_objects=2, short_chars=16, long_chars=32)
QUOTES = '"“”«»„'


@pytest.fixture
def spy() -> SpyBackend:
    return SpyBackend()


@pytest.fixture
def reader(qtbot: QtBot, spy: SpyBackend) -> Iterator[Reader]:
    r = build_reader(
        backends=[spy], analyzer_factory=cheap_analyzer, screen_reader=False, persist_settings=False
    )
    r.controller.describe_ask.config = SMALL
    qtbot.addWidget(r.window)
    r.window.show()
    r.window.tree.setFocus()
    yield r
    r.close()


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("gguf")
    sys.path.insert(0, str(UNIT_TESTS))
    try:
        from vlm_fixtures import make_tiny_vlm
    finally:
        sys.path.remove(str(UNIT_TESTS))
    return make_tiny_vlm(tmp_path_factory.mktemp("tinyvlm"))


def _heard(r: Reader, spy: SpyBackend) -> list[str]:
    r.speech.wait_idle(5)
    return spy.texts(SpyEvent.STARTED)


def _open(qtbot: QtBot, r: Reader, path: Path) -> None:
    assert r.window.open_path(path)
    qtbot.waitUntil(lambda: r.controller.outline(r.controller.position.page).ready, timeout=10_000)


def _key(qtbot: QtBot, r: Reader, key: Qt.Key) -> None:
    qtbot.keyClick(r.window.tree, key)
    r.speech.wait_idle(5)


def _ask(qtbot: QtBot, r: Reader, question: str) -> None:
    _key(qtbot, r, Qt.Key.Key_Q)
    dialog = r.window.ask_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue(question)
    dialog.accept()


def test_describe_without_a_model_says_so_and_starts_nothing_heavy(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_D)
    assert _heard(reader, spy)[-1] == "No description model is configured."
    worker = reader.window._describe_worker
    assert worker is not None and worker._backend is None  # nothing was loaded


def test_ask_answers_from_the_structure_with_a_citation_or_cant_tell(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _ask(qtbot, reader, "Who says page 1 panel 2 balloon 1?")
    # the cheap layout knows no speakers: the balloon is found and cited, the speaker is not guessed
    expected = "Balloon 3 says that, but I can't tell who speaks it. From balloon 3."
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == expected, timeout=5000)
    _ask(qtbot, reader, "How many panels are there?")
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "2. From panels 1, 2.", timeout=5000)
    _ask(qtbot, reader, "What colour is the sky?")
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "I can't tell from this page.", timeout=5000)
    _key(qtbot, reader, Qt.Key.Key_R)  # repeat says the answer again
    assert _heard(reader, spy)[-1] == "I can't tell from this page."
    assert reader.window.tree.hasFocus() or not reader.window.isActiveWindow()


def _register(tiny_vlm: tuple[Path, Path], into: Path) -> tuple[Path, Path]:
    model, mmproj = (Path(shutil.copy(f, into / f.name)) for f in tiny_vlm)
    ModelRegistry().add(model, mmproj, name="tiny")  # this test's own XDG_DATA_HOME
    return model, mmproj


@pytest.mark.slow
def test_describe_with_the_tiny_vlm_speaks_only_verified_uncertain_claims(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path, tiny_vlm: tuple[Path, Path]
) -> None:
    _register(tiny_vlm, tmp_path)
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_Down)  # panel 1
    mark = len(_heard(reader, spy))
    _key(qtbot, reader, Qt.Key.Key_D)
    assert _heard(reader, spy)[mark] == "Describing panel 1…"
    worker = reader.window._describe_worker
    assert worker is not None
    qtbot.waitUntil(lambda: len(_heard(reader, spy)) > mark + 1, timeout=120_000)
    said = _heard(reader, spy)[mark + 1 :]
    # random weights: no claim agrees across samples nor names a known character, so every
    # sentence carries the uncertainty cue; quotes of text are never spoken
    assert said and all(s.startswith("Uncertain:") for s in said), said
    assert not any(q in s for s in said for q in QUOTES), said
    backend = worker._backend
    assert backend is not None and backend._llm is not None

    # another panel: the same loaded model is reused; Escape drops a description in progress
    _key(qtbot, reader, Qt.Key.Key_Down)
    mark = len(_heard(reader, spy))
    _key(qtbot, reader, Qt.Key.Key_D)
    _key(qtbot, reader, Qt.Key.Key_Escape)
    assert _heard(reader, spy)[mark:] == ["Describing panel 2…"]
    qtbot.waitUntil(lambda: reader.controller.describe_jobs.pending() == 0)
    qtbot.wait(300)
    _key(qtbot, reader, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1].startswith("Uncertain:"), timeout=120_000)
    assert worker._backend is backend


@pytest.mark.slow
def test_a_model_that_cannot_load_is_one_plain_sentence(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path, tiny_vlm: tuple[Path, Path]
) -> None:
    model, _mmproj = _register(tiny_vlm, tmp_path)
    model.write_bytes(b"GGUF but not a model")  # damaged after it was added
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] != "Describing panel 1…", timeout=30_000)
    said = _heard(reader, spy)[-1]
    assert said.endswith(".") and len(said.split()) < 20 and "Traceback" not in said, said
    assert "model" in said.casefold(), said


def test_the_first_answer_after_read_all_is_heard(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    """Without a screen reader: Space reads on in Panelvox's voice; Q stops it and its answer,
    from the page as narrated, is heard, the first time as every time."""
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    spy.seconds_per_char = 0.02  # a voice that takes its time: Q comes while say all reads
    qtbot.keyClick(reader.window.tree, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: "Page one panel two balloon two." in spy.texts(SpyEvent.STARTED), timeout=10_000)
    assert reader.controller.saying_all
    _ask(qtbot, reader, "What does balloon 2 say?")
    # the page say all had reached: its words as narrated, the second balloon as counted
    expected = re.compile(r"Balloon 2: “Page \w+ panel one balloon two\.” From balloon 2\.")
    qtbot.waitUntil(lambda: any(expected.fullmatch(s) for s in _heard(reader, spy)), timeout=5000)
    assert not reader.controller.saying_all
