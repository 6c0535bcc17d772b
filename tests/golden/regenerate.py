"""Regenerate the expected panel JSON of the golden pages from the current detector.

Run after a deliberate change of the panel or order stage, look at the diff, and commit it::

    .venv/bin/python tests/golden/regenerate.py

The pages are read from ../shared/data (never copied); only our own output is stored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent.parent / "shared" / "data"

#: (dataset-relative image path, reading direction)
PAGES: tuple[tuple[str, str], ...] = (
    ("cib/images/BusterBrown_033_Gunga_10_09.jpeg", "ltr"),
    ("cib/images/WeirdAdventures_010_TheManWhoLivedBackwards_06_03.jpeg", "ltr"),
    ("cib/images/LatestComics_002_Bee29_07_04.jpeg", "ltr"),
    ("cib/images/BusterBrown_033_Gunga_10_01.jpeg", "ltr"),
    ("openmantra/images/balloon_dream/ja/005.jpg", "rtl"),
    ("openmantra/images/tencho_isoro/ja/010.jpg", "rtl"),
)


def expected_name(rel: str) -> str:
    return rel.replace("/", "__").rsplit(".", 1)[0] + ".json"


def analyse(rel: str, direction: str) -> dict[str, object]:
    from panelvox.analysis.order_stage import OrderStage
    from panelvox.analysis.panels_stage import PanelStage
    from panelvox.analysis.pipeline import analyze_page
    from panelvox.model import ReadingDirection

    image = np.asarray(Image.open(DATA / rel).convert("RGB"))
    analysis = analyze_page(
        image, page=1, direction=ReadingDirection(direction), stages=(PanelStage(), OrderStage())
    )
    return {
        "image": rel,
        "direction": direction,
        "panels": [
            {"order": p.order, "bbox": [round(v) for v in p.bbox.to_list()]}
            for p in analysis.panels_in_order()
        ],
    }


def main() -> int:
    if not DATA.is_dir():
        print(f"{DATA} is not present", file=sys.stderr)
        return 1
    for rel, direction in PAGES:
        out = HERE / "panels" / expected_name(rel)
        out.write_text(json.dumps(analyse(rel, direction), indent=1) + "\n", encoding="utf-8")
        print(out.relative_to(HERE))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
