"""One way to read a page: every consumer calls a person the same thing.

A book with a ComicInfo character and a user's rename, read by `panelvox analyze --json`,
`panelvox narrate --text`, `panelvox names`, `panelvox export`, the reader (controller with a spy backend) and
the eval's scoring of what the listener hears: the same names everywhere. The pipeline is
one fixed stage (the stages are tested elsewhere); everything after it is the real code.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from page_fixtures import exchange
from PIL import Image as PILImage

from panelvox.analysis.cache import PageAnalyzer
from panelvox.books import open_book
from panelvox.cli import main
from panelvox.eval.page_scoring import heard_blocks
from panelvox.model import (
    PageAnalysis,
)
from panelvox.names.book_names import BookNames
from panelvox.names.stores import NameStore
from panelvox.pages import PageService
from panelvox.reader.commands import Command
from panelvox.reader.reader_controller import ReaderController
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.speech.queue import SpeechQueue


class TwoPeopleStage:
    """Two people in one panel: the left calls the right "DOUGAL" (a ComicInfo name)."""

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


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("panelvox.analysis.pipeline.default_stages", lambda: (TwoPeopleStage(),))
    buf = BytesIO()
    PILImage.fromarray(np.full((600, 800, 3), 250, np.uint8)).save(buf, "PNG")
    path = tmp_path / "two.cbz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("001.png", buf.getvalue())
        z.writestr("ComicInfo.xml", "<ComicInfo><Characters>Dougal MacCallum</Characters></ComicInfo>")
    return path


def test_every_consumer_says_the_same_names(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["names", str(book), "--rename", "p1:c1", "Steenie"]) == 0
    capsys.readouterr()

    assert main(["analyze", str(book), "--page", "1", "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    labels = {c["id"]: c["label"] for c in page["characters"]}
    assert labels == {"c1": "Steenie", "c2": "Dougal MacCallum"}

    assert main(["narrate", str(book), "--page", "1", "--text"]) == 0
    narrated = capsys.readouterr().out
    assert "Steenie: Dougal, come here!" in narrated and "Dougal MacCallum: What is it?" in narrated

    assert main(["names", str(book)]) == 0
    listed = capsys.readouterr().out
    assert "p1:c1  Steenie (given by you)" in listed and "p1:c2  Dougal MacCallum (from the text)" in listed

    # the exports: the name the narration says plainly, on the block it says it for; the one it
    # says as "probably" (a name read from the text) is written as the guess it is, never as fact
    out = book.with_name("two-export")
    assert main(["export", str(book), "--format", "divina", "--out", str(out)]) == 0
    assert main(["export", str(book), "--format", "html", "--out", str(out / "two.html")]) == 0
    guided = json.loads((out / "guided.json").read_text(encoding="utf-8"))["guided"][0]
    blocks = guided["children"][0]["children"]
    assert [(b["text"]["plain"], b.get("character")) for b in blocks] == [
        ("Dougal, come here!", ["Steenie"]),
        ("What is it?", ["probably Dougal MacCallum"]),
    ]
    page = (out / "two.html").read_text(encoding="utf-8")
    assert "Steenie: Dougal, come here!" in page and "Probably Dougal MacCallum: What is it?" in page

    spy = SpyBackend()
    queue = SpeechQueue([spy])
    reader = ReaderController(queue, PageAnalyzer((TwoPeopleStage(),), None), persist_settings=False)
    try:
        assert reader.open(book)
        reader.analyze_pending()
        reader.run(Command.NEXT_BALLOON)
        reader.run(Command.NEXT_BALLOON)
        queue.wait_idle(5)
        heard = " ".join(spy.texts(SpyEvent.STARTED))
    finally:
        reader.close()
        queue.close()
    assert "Steenie: Dougal, come here!" in heard and "Dougal MacCallum: What is it?" in heard

    # what `panelvox eval --stage script` scores is what the listener hears of the page
    with open_book(book) as opened:
        service = PageService(
            opened, PageAnalyzer((TwoPeopleStage(),), None), BookNames.for_book(opened, NameStore())
        )
        said = {h.text: h.name for h in heard_blocks(service.read(1))}
    assert said == {"DOUGAL, COME HERE!": "Steenie", "WHAT IS IT?": "Dougal MacCallum"}


def test_a_rename_through_the_readers_store_reaches_the_next_page_read(book: Path, tmp_path: Path) -> None:
    store = NameStore(tmp_path / "elsewhere" / "names.json")  # not the default file
    spy = SpyBackend()
    queue = SpeechQueue([spy])
    reader = ReaderController(
        queue, PageAnalyzer((TwoPeopleStage(),), None), persist_settings=False, names=store
    )
    try:
        assert reader.open(book)
        reader.analyze_pending()
        reader.run(Command.NEXT_BALLOON)
        reader.analyze_pending()
        target = reader.rename_target()
        assert target is not None and target.key == "p1:c1"
        reader.rename_speaker(target, "Mabel")
        reader.analyze_pending()
        assert reader.position_text().startswith("Mabel")
    finally:
        reader.close()
        queue.close()
    with open_book(book) as opened:
        assert store.names(opened.content_hash) == {"p1:c1": "Mabel"}
    assert not NameStore().path.exists()  # the injected store, never a default one
