"""Small helpers shared by the dataset loaders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from panelvox.errors import DatasetError
from panelvox.i18n import _
from panelvox.model import BBox, Point


def read_json(path: Path) -> Any:
    """Parse a JSON file or raise :class:`DatasetError`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(
            # Translators: printed when a ground-truth file of an evaluation dataset cannot be read.
            _("An annotation file of the evaluation data cannot be read."),
            detail=f"{path}: {exc!r}",
        ) from exc


def image_size(path: Path) -> tuple[int, int]:
    """(width, height) from the image header, without decoding the pixels."""
    try:
        with Image.open(path) as im:
            return int(im.width), int(im.height)
    except (OSError, ValueError) as exc:
        raise DatasetError(
            # Translators: printed when a page image of an evaluation dataset cannot be opened.
            _("A page image of the evaluation data cannot be opened."),
            detail=f"{path}: {exc!r}",
        ) from exc


def xywh(d: dict[str, Any], w: str = "w", h: str = "h") -> BBox:
    return BBox.from_xywh(float(d["x"]), float(d["y"]), max(0.0, float(d[w])), max(0.0, float(d[h])))


def clip_box(box: BBox, width: int, height: int) -> BBox:
    """The box cut to the page (annotations sometimes run a pixel or two past the edge)."""
    x0, y0 = min(max(box.x0, 0.0), width), min(max(box.y0, 0.0), height)
    x1, y1 = min(max(box.x1, x0), width), min(max(box.y1, y0), height)
    return BBox(x0, y0, x1, y1)


def parse_points(text: str) -> tuple[Point, ...]:
    """SVG ``points="x,y x,y ..."``."""
    nums = [float(v) for v in text.replace(",", " ").split()]
    return tuple(Point(nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2))
