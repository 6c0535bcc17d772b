"""The loaders on the real evaluation data in ../shared/data (skipped where it is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelvox.eval.ground_truth import Fact, TextLevel
from panelvox.eval.loaders import KNOWN_DATASETS, load_dataset
from panelvox.eval.loaders.common import image_size
from panelvox.model import BalloonKind, ReadingDirection

pytestmark = pytest.mark.golden


@pytest.mark.parametrize("name", KNOWN_DATASETS)
def test_every_page_has_its_image_and_boxes_inside_it(shared_data: Path, name: str) -> None:
    ds = load_dataset(shared_data / name)
    assert ds.pages
    for page in ds.pages:
        assert page.image_path.is_file(), page.image_path
        assert image_size(page.image_path) == (page.width, page.height)
        boxes = (
            [p.bbox for p in page.panels]
            + [t.bbox for t in page.text_units()]
            + [c.bbox for c in page.characters]
        )
        for b in boxes:
            assert 0 <= b.x0 <= b.x1 <= page.width and 0 <= b.y0 <= b.y1 <= page.height


def test_cib(shared_data: Path) -> None:
    ds = load_dataset(shared_data / "cib")
    assert len(ds.pages) == 67
    with_panels = [p for p in ds.pages if p.has(Fact.PANELS)]
    assert len(with_panels) == 27
    assert all(p.has(Fact.NARRATION) and p.narration for p in ds.pages)
    assert all(p.dialogue and p.direction is ReadingDirection.LTR for p in with_panels)


def test_openmantra(shared_data: Path) -> None:
    ds = load_dataset("openmantra", data_dir=shared_data)
    assert len(ds.pages) == 214
    assert {p.book for p in ds.pages} == {
        "tojime_no_siora",
        "balloon_dream",
        "boureisougi",
        "rasetugari",
        "tencho_isoro",
    }
    page = ds.pages[1]
    assert page.direction is ReadingDirection.RTL and page.text_level is TextLevel.BLOCK
    assert page.texts[0].text == "だからっ" and dict(page.texts[0].translations)["en"] == "I'm telling you!!"
    assert page.has(Fact.PANEL_ORDER, Fact.TEXT_ORDER, Fact.TEXT_CONTENT)
    # folders of images with no ComicInfo: Panelvox decides direction and language itself
    assert not any(p.declared for p in ds.pages)


def test_openmantra_golden_scripts(shared_data: Path) -> None:
    if not (shared_data / "openmantra" / "script").is_dir():
        pytest.skip("openmantra/script is not present")
    ds = load_dataset("openmantra", data_dir=shared_data)
    scripted = [p for p in ds.pages if p.has(Fact.SCRIPT)]
    # tojime_no_siora's first 16 images (page_index 1-16), one line per annotation box
    assert [p.image_path.name for p in scripted] == [f"{k:03d}.jpg" for k in range(16)]
    assert {p.book for p in scripted} == {"tojime_no_siora"}
    assert all(p.script is not None and len(p.script.lines) == len(p.texts) for p in scripted)
    assert sum(len(p.script.lines) for p in scripted if p.script is not None) == 151
    first = scripted[1].script
    assert first is not None and first.page == "openmantra_tojime_no_siora_001"
    assert first.lines[0].text == scripted[1].texts[0].text == "だからっ"


def test_iabc_svg_structure(shared_data: Path) -> None:
    ds = load_dataset(shared_data / "iabc")
    assert len(ds.pages) == 2
    fox = next(p for p in ds.pages if p.book == "fox")
    assert len(fox.panels) == 6 and len(fox.balloons) == 14 and len(fox.characters) == 12
    assert [b.rank for b in fox.balloons] == list(range(1, 15))
    assert all(b.text for b in fox.balloons)
    second = fox.balloons[1]
    assert second.text == "AYE! I AM LOST! MY HOME WILL BE TAKEN--IS ME!"
    assert second.tail_direction == "SW" and second.tail_tip is not None and second.kind is BalloonKind.SPEECH
    assert fox.balloons[0].kind is BalloonKind.CAPTION and fox.balloons[0].speaker is None
    assert {c.name for c in fox.characters} == {"STEENIE", "A Stranger", "DOUGAL"}
    assert fox.has(Fact.SPEAKERS) and second.speaker == "fox:steenie"


def test_comic_ocr_unknown_text_is_kept_for_detection(shared_data: Path) -> None:
    ds = load_dataset(shared_data / "comic-ocr")
    assert len(ds.pages) == 5
    by_id = {p.page_id: p for p in ds.pages}
    assert by_id["normal_02"].texts and all(t.text is None for t in by_id["normal_02"].texts)
    assert not by_id["normal_02"].has(Fact.TEXT_CONTENT)
    p4 = by_id["normal_04"]
    assert sum(t.text is None for t in p4.texts) == 3 and p4.text_level is TextLevel.LINE
