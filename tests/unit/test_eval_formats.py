"""Loaders of the public formats and our own JSON, on small hand-made files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import Fact, TextLevel
from panelvox.eval.loaders import load_dataset
from panelvox.eval.loaders.json_loader import dump_gt_json, load_gt_json
from panelvox.model import BalloonKind, BBox, Point, ReadingDirection

MANGA109_XML = """<?xml version="1.0" encoding="utf-8"?>
<book title="TinyBook">
  <characters>
    <character id="c1" name="Hero"/>
    <character id="c2" name="Rival"/>
  </characters>
  <pages>
    <page index="0" width="200" height="100">
      <frame id="f1" xmin="100" ymin="0" xmax="200" ymax="100"/>
      <frame id="f2" xmin="0" ymin="0" xmax="100" ymax="100"/>
      <text id="t1" xmin="150" ymin="10" xmax="180" ymax="60">おはよう</text>
      <face id="fa1" xmin="110" ymin="50" xmax="130" ymax="70" character="c1"/>
      <body id="b1" xmin="105" ymin="40" xmax="150" ymax="100" character="c1"/>
      <body id="b2" xmin="10" ymin="40" xmax="50" ymax="100" character="c2"/>
    </page>
    <page index="1" width="200" height="100"/>
  </pages>
</book>
"""


def _image(path: Path, size: tuple[int, int] = (200, 100)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, "white").save(path)


def test_manga109_layout(tmp_path: Path) -> None:
    (tmp_path / "annotations").mkdir()
    (tmp_path / "annotations" / "TinyBook.xml").write_text(MANGA109_XML, encoding="utf-8")
    (tmp_path / "books.txt").write_text("TinyBook\n", encoding="utf-8")
    _image(tmp_path / "images" / "TinyBook" / "000.jpg")
    ds = load_dataset(tmp_path)
    assert len(ds.pages) == 2
    page = ds.pages[0]
    assert page.page_id == "TinyBook/000" and page.direction is ReadingDirection.RTL
    assert page.image_path == tmp_path / "images" / "TinyBook" / "000.jpg"
    assert [p.bbox for p in page.panels] == [BBox(100, 0, 200, 100), BBox(0, 0, 100, 100)]
    assert page.texts[0].text == "おはよう" and page.text_level is TextLevel.BLOCK
    assert [c.identity for c in page.characters] == ["TinyBook:c1", "TinyBook:c2"]
    assert page.faces[0].name == "Hero" and page.faces[0].kind == "face"
    assert page.has(Fact.PANELS, Fact.TEXTS, Fact.TEXT_CONTENT, Fact.CHARACTERS, Fact.FACES)
    assert not page.has(Fact.PANEL_ORDER)  # Manga109 gives no reading order
    assert not ds.pages[1].has(Fact.TEXT_CONTENT)


def test_coco_json(tmp_path: Path) -> None:
    coco = {
        "images": [{"id": 7, "file_name": "p1.png", "width": 200, "height": 100}],
        "categories": [
            {"id": 1, "name": "frame"},
            {"id": 2, "name": "Speech Bubble"},
            {"id": 3, "name": "face"},
            {"id": 4, "name": "tree"},
        ],
        "annotations": [
            {"id": 1, "image_id": 7, "category_id": 1, "bbox": [0, 0, 100, 100]},
            {"id": 2, "image_id": 7, "category_id": 2, "bbox": [10, 10, 30, 20], "text": "Hi"},
            {"id": 3, "image_id": 7, "category_id": 3, "bbox": [50, 50, 10, 10]},
            {"id": 4, "image_id": 7, "category_id": 4, "bbox": [0, 0, 5, 5]},
        ],
    }
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(coco), encoding="utf-8")
    _image(tmp_path / "images" / "p1.png")
    ds = load_dataset(path)
    (page,) = ds.pages
    assert page.image_path == tmp_path / "images" / "p1.png"
    assert [p.bbox for p in page.panels] == [BBox(0, 0, 100, 100)]
    assert page.texts[0].bbox == BBox(10, 10, 40, 30) and page.texts[0].text == "Hi"
    assert len(page.faces) == 1 and page.characters == ()
    assert page.has(Fact.PANELS, Fact.TEXTS, Fact.FACES) and not page.has(Fact.CHARACTERS)


def test_own_json_round_trip(tmp_path: Path) -> None:
    _image(tmp_path / "img" / "a.png")
    data = {
        "schema": "panelvox.gt/1",
        "name": "mine",
        "pages": [
            {
                "id": "a",
                "image": "img/a.png",
                "direction": "rtl",
                "panels": [{"id": "p1", "bbox": [100, 0, 200, 100]}, {"id": "p2", "bbox": [0, 0, 100, 100]}],
                "balloons": [
                    {
                        "id": "b1",
                        "bbox": [120, 10, 180, 40],
                        "kind": "speech",
                        "text": "Hello",
                        "tail_tip": [150, 60],
                        "tail_direction": "S",
                        "rank": 1,
                        "speaker": "hero",
                    }
                ],
                "characters": [{"id": "c1", "bbox": [120, 50, 190, 100], "identity": "hero", "name": "Hero"}],
                "dialogue": ["Hello"],
            }
        ],
    }
    path = tmp_path / "gt.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    ds = load_dataset(tmp_path)  # found in the folder by its schema
    (page,) = ds.pages
    assert ds.name == "mine" and (page.width, page.height) == (200, 100)  # size from the image
    assert page.direction is ReadingDirection.RTL
    b = page.balloons[0]
    assert b.kind is BalloonKind.SPEECH and b.tail_tip == Point(150, 60) and b.speaker == "hero"
    assert page.has(
        Fact.PANELS, Fact.PANEL_ORDER, Fact.BALLOONS, Fact.SPEAKERS, Fact.DIALOGUE, Fact.CHARACTERS
    )
    assert page.text_units()[0].text == "Hello"
    again_path = tmp_path / "again.json"
    again_path.write_text(json.dumps(dump_gt_json(ds, again_path)), encoding="utf-8")
    again = load_gt_json(again_path)
    assert again.pages[0] == page


def test_unknown_and_damaged_inputs_raise_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError):
        load_dataset(tmp_path / "missing")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DatasetError):
        load_dataset(bad)
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        load_dataset(other)
    assert exc.value.message.endswith(".") and "\n" not in exc.value.message
