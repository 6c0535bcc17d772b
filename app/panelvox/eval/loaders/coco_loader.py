"""COCO detection JSON: ``images``, ``annotations`` (``bbox`` = x, y, w, h), ``categories``.

Categories are mapped to our classes by name: frame/panel → panels; text/balloon/bubble/
speech/caption → text blocks (line/text_line → text lines); body/character/person →
characters; face → faces. Other categories are ignored. Image files are looked up beside
the JSON file and in an ``images/`` folder next to it. COCO has no reading order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import (
    Dataset,
    Fact,
    GTCharacter,
    GTPage,
    GTPanel,
    GTText,
    TextLevel,
)
from panelvox.eval.loaders.common import read_json
from panelvox.i18n import _
from panelvox.model import BBox, ReadingDirection

_CLASSES = {
    "panel": ("frame", "panel", "panels", "frames"),
    "block": ("text", "balloon", "bubble", "speech", "speech_bubble", "caption", "texts", "balloons"),
    "line": ("line", "text_line", "textline", "lines"),
    "character": ("body", "character", "person", "characters", "bodies"),
    "face": ("face", "faces"),
}


def is_coco(data: Any) -> bool:
    return isinstance(data, dict) and all(
        isinstance(data.get(k), list) for k in ("images", "annotations", "categories")
    )


def _class_of(name: str) -> str | None:
    key = name.strip().casefold().replace(" ", "_").replace("-", "_")
    return next((cls for cls, names in _CLASSES.items() if key in names), None)


def load_coco(
    path: Path, name: str | None = None, direction: ReadingDirection = ReadingDirection.LTR
) -> Dataset:
    data = read_json(path)
    if not is_coco(data):
        raise DatasetError(
            # Translators: printed when a file given as evaluation data is not in a known format.
            _("This file is not in an annotation format Panelvox knows."),
            detail=f"{path}: not COCO (needs images, annotations, categories)",
        )
    classes = {c["id"]: _class_of(str(c.get("name", ""))) for c in data["categories"]}
    by_image: dict[Any, list[dict[str, Any]]] = {}
    for a in data["annotations"]:
        by_image.setdefault(a["image_id"], []).append(a)
    present = {c for c in classes.values() if c}
    pages = []
    for im in data["images"]:
        panels: list[GTPanel] = []
        blocks: list[GTText] = []
        lines: list[GTText] = []
        chars: list[GTCharacter] = []
        faces: list[GTCharacter] = []
        for a in by_image.get(im["id"], []):
            x, y, w, h = (float(v) for v in a["bbox"])
            box = BBox.from_xywh(x, y, max(w, 0.0), max(h, 0.0))
            aid = str(a.get("id", len(panels) + len(blocks) + len(lines) + len(chars) + len(faces)))
            cls = classes.get(a["category_id"])
            if cls == "panel":
                panels.append(GTPanel(id=aid, bbox=box))
            elif cls in ("block", "line"):
                text = a.get("text")
                (blocks if cls == "block" else lines).append(GTText(id=aid, bbox=box, text=text))
            elif cls in ("character", "face"):
                ident = a.get("character_id", a.get("identity"))
                ch = GTCharacter(
                    id=aid,
                    bbox=box,
                    identity=None if ident is None else str(ident),
                    kind=cls if cls == "face" else "body",
                )
                (faces if cls == "face" else chars).append(ch)
        facts: set[Fact] = set()
        if "panel" in present:
            facts.add(Fact.PANELS)
        if present & {"block", "line"}:
            facts.add(Fact.TEXTS)
        if any(t.text for t in (*blocks, *lines)):
            facts.add(Fact.TEXT_CONTENT)
        if "character" in present:
            facts.add(Fact.CHARACTERS)
        if "face" in present:
            facts.add(Fact.FACES)
        file_name = str(im["file_name"])
        image = path.parent / file_name
        if not image.is_file() and (path.parent / "images" / file_name).is_file():
            image = path.parent / "images" / file_name
        pages.append(
            GTPage(
                dataset=name or path.stem,
                page_id=Path(file_name).stem,
                image_path=image,
                width=int(im["width"]),
                height=int(im["height"]),
                direction=direction,
                annotated=frozenset(facts),
                panels=tuple(panels),
                texts=tuple(lines if lines and not blocks else blocks),
                text_level=TextLevel.LINE if lines and not blocks else TextLevel.BLOCK,
                characters=tuple(chars),
                faces=tuple(faces),
            )
        )
    return Dataset(name=name or path.stem, root=path.parent, pages=tuple(pages))
