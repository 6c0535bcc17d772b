"""F2: naming the speaker of a balloon in the reader; the name sticks for the book."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from reader_fixtures import LayoutStage, heard, heard_since

from panelvox.analysis.cache import PageAnalyzer
from panelvox.model import BBox, Character, PageAnalysis, SpeakerLink, SpeakerReason
from panelvox.names.stores import NameStore
from panelvox.reader.commands import Command
from panelvox.reader.reader_controller import ReaderController
from panelvox.speech.backends.spy_backend import SpyBackend
from panelvox.speech.queue import SpeechQueue


class SpeakerStage:
    """One figure in the first panel who says its first balloon; the rest has no speaker."""

    name = "test-speaker"

    def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
        figure = Character("c1", BBox(20, 120, 100, 300), 0.8, self.name, panel="p1", cluster="k1")
        link = SpeakerLink("b11", "c1", 0.8, SpeakerReason.TAIL, self.name)
        return replace(analysis, characters=(figure,), speakers=(link,))


def _analyzer() -> PageAnalyzer:
    return PageAnalyzer((LayoutStage(), SpeakerStage()), cache=None)


def _settle(c: ReaderController) -> None:
    c.speech.wait_idle(5)
    c.analyze_pending()
    c.speech.wait_idle(5)


def test_f2_names_the_speaker_and_the_name_sticks(
    queue: SpeechQueue, spy: SpyBackend, book_path: Path
) -> None:
    c = ReaderController(queue, _analyzer(), persist_settings=False)
    assert c.open(book_path)
    _settle(c)
    c.run(Command.NEXT_BALLOON)
    _settle(c)
    target = c.rename_target()
    assert target is not None
    assert (target.key, target.name) == ("p1:c1", "character 1")  # as the narration calls it

    mark = len(heard(spy, queue))
    c.rename_speaker(target, "  Mabel   Jones ")
    _settle(c)
    said = " ".join(heard_since(spy, queue, mark))
    assert "Character 1 is now called Mabel Jones. Balloons with the name: 1 on this page, 1 in" in said
    assert "Control Z undoes it." in said
    assert NameStore().names(c.book.content_hash if c.book else "") == {"p1:c1": "Mabel Jones"}
    assert c.position_text().startswith("Mabel Jones")

    # Control Z puts back what was there, and says so
    mark = len(heard(spy, queue))
    c.run(Command.UNDO_RENAME)
    _settle(c)
    assert "Undone." in " ".join(heard_since(spy, queue, mark))
    assert NameStore().names(c.book.content_hash if c.book else "") == {}
    assert not c.position_text().startswith("Mabel Jones")
    c.run(Command.UNDO_RENAME)
    assert "There is no name to undo." in " ".join(heard_since(spy, queue, mark))
    c.rename_speaker(target, "Mabel Jones")
    _settle(c)

    # a new session on the same book (the store is the user's file) still knows the name
    c.close()
    again = ReaderController(queue, _analyzer(), persist_settings=False)
    assert again.open(book_path)
    _settle(again)
    again.go_to(again.position)
    assert "Mabel Jones" in again.outline(0).steps[again.position.step].text

    # an empty name forgets it
    forget = again.rename_target()
    assert forget is not None and forget.name == "Mabel Jones"
    again.rename_speaker(forget, "")
    _settle(again)
    assert "Mabel Jones" not in again.position_text()


def test_f2_without_a_speaker_says_why(queue: SpeechQueue, spy: SpyBackend, book_path: Path) -> None:
    c = ReaderController(queue, _analyzer(), persist_settings=False)
    assert c.open(book_path)
    _settle(c)
    for _ in range(2):  # the second balloon has no known speaker
        c.run(Command.NEXT_BALLOON)
        _settle(c)
    mark = len(heard(spy, queue))
    assert c.rename_target() is None
    _settle(c)
    assert heard_since(spy, queue, mark) == ["No character is known to say this, so there is nobody to name."]
