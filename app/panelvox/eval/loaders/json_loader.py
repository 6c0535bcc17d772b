"""Panelvox's own ground-truth JSON ("panelvox.gt/1"), documented in docs/ground-truth-format.md.

One file holds a dataset: ``{"schema": "panelvox.gt/1", "name": ..., "pages": [...]}``.
Image paths are relative to the file. :func:`dump_gt_json` writes what :func:`load_gt_json`
reads, so any loaded dataset can be converted to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import (
    Dataset,
    Fact,
    GTBalloon,
    GTCharacter,
    GTPage,
    GTPanel,
    GTText,
    TextLevel,
)
from panelvox.eval.loaders.common import image_size, read_json
from panelvox.i18n import _
from panelvox.model import BalloonKind, BBox, Point, ReadingDirection

GT_SCHEMA = "panelvox.gt/1"


def is_gt_json(data: Any) -> bool:
    return isinstance(data, dict) and data.get("schema") == GT_SCHEMA


def _poly(data: Sequence[Sequence[float]] | None) -> tuple[Point, ...] | None:
    return None if data is None else tuple(Point.from_list(p) for p in data)


def _poly_out(poly: tuple[Point, ...] | None) -> list[list[float]] | None:
    return None if poly is None else [p.to_list() for p in poly]


def _facts(page: dict[str, Any]) -> frozenset[Fact]:
    if "annotated" in page:
        return frozenset(Fact(f) for f in page["annotated"])
    # default: what is present is annotated; lists are in reading order
    facts: set[Fact] = set()
    if page.get("panels"):
        facts |= {Fact.PANELS, Fact.PANEL_ORDER}
    if page.get("texts") or page.get("balloons"):
        facts |= {Fact.TEXTS, Fact.TEXT_ORDER}
        units = page.get("texts") or page.get("balloons") or []
        if any(t.get("text") for t in units):
            facts.add(Fact.TEXT_CONTENT)
    if page.get("balloons"):
        facts.add(Fact.BALLOONS)
        if any(b.get("speaker") for b in page["balloons"]):
            facts.add(Fact.SPEAKERS)
    if page.get("characters"):
        facts.add(Fact.CHARACTERS)
    if page.get("faces"):
        facts.add(Fact.FACES)
    if page.get("dialogue"):
        facts.add(Fact.DIALOGUE)
    if page.get("narration"):
        facts.add(Fact.NARRATION)
    return frozenset(facts)


def _character(c: dict[str, Any], kind: str) -> GTCharacter:
    return GTCharacter(
        id=str(c["id"]),
        bbox=BBox.from_list(c["bbox"]),
        identity=c.get("identity"),
        kind=c.get("kind", kind),
        name=c.get("name"),
        panel=c.get("panel"),
        polygon=_poly(c.get("polygon")),
    )


def _page(page: dict[str, Any], base: Path, dataset: str) -> GTPage:
    image = base / page["image"]
    if "width" in page and "height" in page:
        width, height = int(page["width"]), int(page["height"])
    else:
        width, height = image_size(image)
    return GTPage(
        dataset=dataset,
        page_id=str(page["id"]),
        image_path=image,
        width=width,
        height=height,
        direction=ReadingDirection(page.get("direction", "ltr")),
        annotated=_facts(page),
        panels=tuple(
            GTPanel(id=str(p["id"]), bbox=BBox.from_list(p["bbox"]), polygon=_poly(p.get("polygon")))
            for p in page.get("panels", [])
        ),
        texts=tuple(
            GTText(
                id=str(t["id"]),
                bbox=BBox.from_list(t["bbox"]),
                text=t.get("text"),
                polygon=_poly(t.get("polygon")),
                language=t.get("language"),
                translations=tuple((str(k), str(v)) for k, v in t.get("translations", {}).items()),
            )
            for t in page.get("texts", [])
        ),
        text_level=TextLevel(page.get("text_level", "block")),
        balloons=tuple(
            GTBalloon(
                id=str(b["id"]),
                bbox=BBox.from_list(b["bbox"]),
                text=b.get("text"),
                kind=BalloonKind(b["kind"]) if b.get("kind") else None,
                polygon=_poly(b.get("polygon")),
                tail_tip=Point.from_list(b["tail_tip"]) if b.get("tail_tip") else None,
                tail_direction=b.get("tail_direction"),
                rank=b.get("rank"),
                speaker=b.get("speaker"),
                voice=b.get("voice"),
                panel=b.get("panel"),
            )
            for b in page.get("balloons", [])
        ),
        characters=tuple(_character(c, "body") for c in page.get("characters", [])),
        faces=tuple(_character(c, "face") for c in page.get("faces", [])),
        dialogue=tuple(str(d) for d in page.get("dialogue", [])),
        narration=page.get("narration"),
        book=page.get("book"),
    )


def load_gt_json(path: Path) -> Dataset:
    data = read_json(path)
    if not is_gt_json(data):
        raise DatasetError(
            # Translators: printed when a file given as evaluation data is not in a known format.
            _("This file is not in an annotation format Panelvox knows."),
            detail=f"{path}: schema {data.get('schema') if isinstance(data, dict) else None!r}, expected {GT_SCHEMA}",
        )
    name = str(data.get("name") or path.stem)
    try:
        pages = tuple(_page(p, path.parent, name) for p in data.get("pages", []))
    except (KeyError, TypeError, ValueError) as exc:
        raise DatasetError(
            # Translators: printed when a ground-truth file of an evaluation dataset cannot be read.
            _("An annotation file of the evaluation data cannot be read."),
            detail=f"{path}: {exc!r}",
        ) from exc
    return Dataset(name=name, root=path.parent, pages=pages)


def _character_out(c: GTCharacter) -> dict[str, Any]:
    return {
        "id": c.id,
        "bbox": c.bbox.to_list(),
        "identity": c.identity,
        "kind": c.kind,
        "name": c.name,
        "panel": c.panel,
        "polygon": _poly_out(c.polygon),
    }


def gt_page_json(page: GTPage, base: Path) -> dict[str, Any]:
    """One page in the own format; the image path is written relative to ``base`` when it can be."""
    try:
        image = page.image_path.relative_to(base).as_posix()
    except ValueError:
        image = page.image_path.as_posix()
    return {
        "id": page.page_id,
        "image": image,
        "width": page.width,
        "height": page.height,
        "direction": page.direction.value,
        "book": page.book,
        "annotated": sorted(f.value for f in page.annotated),
        "text_level": page.text_level.value,
        "panels": [
            {"id": p.id, "bbox": p.bbox.to_list(), "polygon": _poly_out(p.polygon)} for p in page.panels
        ],
        "texts": [
            {
                "id": t.id,
                "bbox": t.bbox.to_list(),
                "text": t.text,
                "polygon": _poly_out(t.polygon),
                "language": t.language,
                "translations": dict(t.translations),
            }
            for t in page.texts
        ],
        "balloons": [
            {
                "id": b.id,
                "bbox": b.bbox.to_list(),
                "text": b.text,
                "kind": b.kind.value if b.kind else None,
                "polygon": _poly_out(b.polygon),
                "tail_tip": b.tail_tip.to_list() if b.tail_tip else None,
                "tail_direction": b.tail_direction,
                "rank": b.rank,
                "speaker": b.speaker,
                "voice": b.voice,
                "panel": b.panel,
            }
            for b in page.balloons
        ],
        "characters": [_character_out(c) for c in page.characters],
        "faces": [_character_out(c) for c in page.faces],
        "dialogue": list(page.dialogue),
        "narration": page.narration,
    }


def dump_gt_json(dataset: Dataset, path: Path) -> dict[str, Any]:
    """The dataset as own-format JSON (image paths relative to ``path``'s folder)."""
    return {
        "schema": GT_SCHEMA,
        "name": dataset.name,
        "pages": [gt_page_json(p, path.parent) for p in dataset.pages],
    }
