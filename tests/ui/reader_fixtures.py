"""Helpers for reader tests: a small drawn CBZ with a corrupt page, and a cheap analyzer.

The cheap analyzer is a real :class:`PageAnalyzer` over one real stage that lays out two
panels with two balloons each, the texts naming page, panel and balloon, so tests can check
what is heard without waiting for OCR. One test uses the real default pipeline.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw
from pytestqt.qtbot import QtBot

from panelvox.analysis.cache import PageAnalyzer
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.queue import SpeechQueue
from panelvox.ui.reader_app import Reader, build_reader

PAGES = 5
BROKEN = 3  # 1-based page whose entry is not an image


class LayoutStage:
    """Two side-by-side panels, two balloons in each, texts from the page number."""

    name = "layout"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        w, h = analysis.width, analysis.height
        p = analysis.page
        panels = (
            Panel("p1", BBox(0, 0, w // 2, h), 0.9, self.name, order=1),
            Panel("p2", BBox(w // 2, 0, w, h), 0.9, self.name, order=2),
        )
        blocks = []
        for k, panel in enumerate(panels, 1):
            for j in (1, 2):
                x0 = panel.bbox.x0 + 10
                y0 = 20 + (j - 1) * (h // 2)
                blocks.append(
                    Balloon(
                        f"b{k}{j}",
                        BalloonKind.SPEECH,
                        BBox(x0, y0, x0 + 60, y0 + 30),
                        f"Page {p} panel {k} balloon {j}.",
                        0.95,
                        self.name,
                        panel=panel.id,
                        order=(k - 1) * 2 + j,
                    )
                )
        return replace(analysis, panels=panels, blocks=tuple(blocks), stages=(*analysis.stages, self.name))


def cheap_analyzer() -> PageAnalyzer:
    return PageAnalyzer((LayoutStage(),), cache=None)


def _page_png(n: int) -> bytes:
    im = Image.new("RGB", (240, 320), "white")
    d = ImageDraw.Draw(im)
    d.rectangle((4, 4, 116, 316), outline="black", width=3)
    d.rectangle((124, 4, 236, 316), outline="black", width=3)
    d.text((20, 150), f"page {n}", fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def make_book(path: Path, pages: int = PAGES, broken: int | None = BROKEN) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for n in range(1, pages + 1):
            data = b"\x89PNG\r\n\x1a\n this entry is damaged" if n == broken else _page_png(n)
            zf.writestr(f"page{n:02d}.png", data)
    return path


@pytest.fixture
def book_path(tmp_path: Path) -> Path:
    return make_book(tmp_path / "Test Book.cbz")


@pytest.fixture
def spy() -> SpyBackend:
    return SpyBackend()


@pytest.fixture
def queue(spy: SpyBackend) -> SpeechQueue:
    q = SpeechQueue([spy])
    yield q
    q.close()


@pytest.fixture
def reader(qtbot: QtBot, spy: SpyBackend) -> Iterator[Reader]:
    """A shown reader window on the cheap stages, speaking to ``spy``, focus on its list."""
    r = build_reader(
        backends=[spy], analyzer_factory=cheap_analyzer, screen_reader=False, persist_settings=False
    )
    qtbot.addWidget(r.window)
    r.window.show()
    r.window.tree.setFocus()
    yield r
    r.close()


def heard(spy: SpyBackend, queue: SpeechQueue) -> list[str]:
    """Texts that started, once the queue is idle."""
    queue.wait_idle(5)
    return spy.texts(SpyEvent.STARTED)


def heard_since(spy: SpyBackend, queue: SpeechQueue, mark: int) -> list[str]:
    return heard(spy, queue)[mark:]
