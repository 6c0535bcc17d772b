"""An evaluation book reads as a user's would: a dataset of plain image folders (no ComicInfo)
gets its direction and language from Panelvox, never from the ground truth."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from panelvox.books import DirectionSource
from panelvox.eval.dataset_book import DatasetBook
from panelvox.eval.ground_truth import GTPage
from panelvox.model import ReadingDirection


def _pages(tmp_path: Path, *, declared: bool) -> list[GTPage]:
    pages = []
    for k in range(2):
        path = tmp_path / f"{k:03d}.png"
        Image.new("RGB", (60, 80), "white").save(path)
        pages.append(
            GTPage(
                dataset="d",
                page_id=f"t/{k:03d}",
                image_path=path,
                width=60,
                height=80,
                direction=ReadingDirection.RTL,
                annotated=frozenset(),
                book="t",
                language="ja",
                declared=declared,
            )
        )
    return pages


class _Probe:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked = 0

    def __call__(self, book: object) -> bool:
        self.asked += 1
        return self.answer


def test_a_folder_book_is_told_by_its_lettering_not_by_the_ground_truth(tmp_path: Path) -> None:
    pages = _pages(tmp_path, declared=False)
    vertical = _Probe(True)
    book = DatasetBook("t", pages, vertical)
    assert book.direction is ReadingDirection.RTL
    assert book.direction_decision.source is DirectionSource.LETTERING
    assert book.language is None  # no ComicInfo tells it
    assert book.direction is ReadingDirection.RTL and vertical.asked == 1  # decided once
    horizontal = _Probe(False)
    assert DatasetBook("t", pages, horizontal).direction is ReadingDirection.LTR
    assert DatasetBook("t", pages).direction is ReadingDirection.LTR  # no probe: the default


def test_a_declared_book_keeps_the_datasets_direction_and_language(tmp_path: Path) -> None:
    probe = _Probe(False)
    book = DatasetBook("t", _pages(tmp_path, declared=True), probe)
    assert book.direction is ReadingDirection.RTL and book.language == "ja"
    assert probe.asked == 0
