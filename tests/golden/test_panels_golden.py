"""Golden pages: panels and their order must stay what tests/golden/panels/*.json says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from panelvox.model import BBox

HERE = Path(__file__).resolve().parent
#: boxes may move this much (share of the page's longer side) before the test fails
TOLERANCE = 0.01


def _cases() -> list[Path]:
    return sorted((HERE / "panels").glob("*.json"))


@pytest.mark.golden
@pytest.mark.parametrize("expected_path", _cases(), ids=lambda p: p.stem)
def test_golden_page(expected_path: Path, shared_data: Path) -> None:
    import sys

    sys.path.insert(0, str(HERE))
    from regenerate import analyse

    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    if not (shared_data / expected["image"]).is_file():
        pytest.skip(f"{expected['image']} is not present")
    got = analyse(expected["image"], expected["direction"])
    from PIL import Image

    with Image.open(shared_data / expected["image"]) as im:
        tol = TOLERANCE * max(im.size)
    assert len(got["panels"]) == len(expected["panels"]), got["panels"]
    for g, e in zip(got["panels"], expected["panels"], strict=True):
        assert g["order"] == e["order"]
        gb, eb = BBox.from_list(g["bbox"]), BBox.from_list(e["bbox"])
        assert max(abs(a - b) for a, b in zip(gb.to_list(), eb.to_list(), strict=True)) <= tol, (g, e)
