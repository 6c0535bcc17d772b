"""The reader window on Japanese lettering: the words go to a Japanese voice, the reader's
own words ("Page 1", "Panel 2", who speaks) to the interface's voice."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from reader_fixtures import make_book

from panelvox.analysis.cache import PageAnalyzer
from panelvox.languages import detect_language
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.language_voices import LanguageVoices
from panelvox.ui.reader_app import build_reader

LINES = ("そんな借金なんて!", "レーネさん、大丈夫?")


class JapaneseStage:
    """One panel holding two Japanese balloons."""

    name = "layout-ja"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        w, h = analysis.width, analysis.height
        panel = Panel("p1", BBox(0, 0, w, h), 0.9, self.name, order=1)
        blocks = tuple(
            Balloon(
                f"b{k}",
                BalloonKind.SPEECH,
                BBox(w - 60 * k, 20, w - 60 * k + 50, 200),
                text,
                0.95,
                self.name,
                panel="p1",
                order=k,
            )
            for k, text in enumerate(LINES, 1)
        )
        return replace(analysis, panels=(panel,), blocks=blocks, stages=(*analysis.stages, self.name))


def test_reading_a_japanese_panel_gives_the_lettering_to_the_japanese_voice(
    qtbot: QtBot, tmp_path: Path
) -> None:
    main, japanese = SpyBackend(languages=("en",)), SpyBackend(languages=("ja",))
    r = build_reader(
        backends=[main],
        analyzer_factory=lambda: PageAnalyzer((JapaneseStage(),), cache=None),
        screen_reader=False,
        persist_settings=False,
        languages=LanguageVoices({"ja": [japanese]}, interface="en"),
    )
    qtbot.addWidget(r.window)
    r.window.show()
    r.window.tree.setFocus()
    try:
        assert r.window.open_path(make_book(tmp_path / "manga.cbz", pages=1, broken=None))
        qtbot.waitUntil(lambda: r.controller.outline(r.controller.position.page).ready, timeout=10_000)
        for key in (Qt.Key.Key_Right, Qt.Key.Key_N):
            qtbot.keyClick(r.window.tree, key)
            r.speech.wait_idle(5)
            qtbot.wait(5)
        assert japanese.texts(SpyEvent.DONE) == list(LINES)
        english = main.texts(SpyEvent.STARTED)
        assert english and not any(detect_language(t) == "ja" for t in english), english
    finally:
        r.close()
