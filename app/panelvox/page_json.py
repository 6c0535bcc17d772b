"""The page JSON: the interchange format outside tools can rely on (DESIGN.md, "The page JSON").

Field names and meanings are stable; new fields may be added; a change of meaning bumps
:data:`panelvox.model.SCHEMA`. :meth:`PageAnalysis.to_json` and
:meth:`PageAnalysis.from_json` call these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panelvox.errors import SchemaError
from panelvox.i18n import _
from panelvox.model import (
    READABLE_SCHEMAS,
    SCHEMA,
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    Point,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
    Tail,
    TextLine,
    json_number,
)


def page_to_json(page: PageAnalysis) -> dict[str, Any]:
    """``page`` as the page JSON."""
    speaker_by_block = {s.balloon: s for s in page.speakers}
    return {
        "schema": SCHEMA,
        "page": page.page,
        "width": page.width,
        "height": page.height,
        "direction": page.direction.value,
        "stages": list(page.stages),
        "notices": list(page.notices),
        **({"failed": list(page.failed)} if page.failed else {}),
        **({"language": page.language} if page.language else {}),
        "panels": [
            {
                "id": p.id,
                "bbox": p.bbox.to_list(),
                "order": p.order,
                "confidence": json_number(p.confidence),
                "order_confidence": json_number(p.order_confidence),
                "stage": p.stage,
                "polygon": _poly(p.polygon),
            }
            for p in page.panels
        ],
        "lines": [
            {
                "id": ln.id,
                "bbox": ln.bbox.to_list(),
                "text": ln.text,
                "confidence": json_number(ln.confidence),
                "stage": ln.stage,
                "polygon": _poly(ln.polygon),
                "script": ln.script,
                "vertical": ln.vertical,
                "ruby": ln.ruby,
            }
            for ln in page.lines
        ],
        "blocks": [_block_json(b, speaker_by_block.get(b.id)) for b in page.blocks],
        "characters": [
            {
                "id": c.id,
                "bbox": c.bbox.to_list(),
                "panel": c.panel,
                "name": c.name,
                "name_confidence": json_number(c.name_confidence),
                "label": c.label,
                "cluster": c.cluster,
                "person": c.person,
                **({"look": [round(x, 4) for x in c.look]} if c.look else {}),
                "confidence": json_number(c.confidence),
                "stage": c.stage,
                "kind": c.kind,
            }
            for c in page.characters
        ],
    }


def page_from_json(data: Mapping[str, Any]) -> PageAnalysis:
    """Read the JSON form; refuses unknown schema versions with :class:`SchemaError`."""
    schema = data.get("schema") if isinstance(data, Mapping) else None
    if schema not in READABLE_SCHEMAS:
        raise SchemaError(
            # Translators: spoken when a saved page analysis comes from another version.
            _("This page analysis was saved by a different version of Panelvox and cannot be read."),
            detail=f"schema {schema!r}, this version reads {sorted(READABLE_SCHEMAS)}",
        )
    try:
        speakers = []
        blocks = []
        for b in data.get("blocks", []):
            blocks.append(_block_from_json(b))
            if "speaker_reason" in b:
                speakers.append(
                    SpeakerLink(
                        balloon=b["id"],
                        character=b.get("speaker"),
                        confidence=float(b.get("speaker_confidence", 0.0)),
                        reason=SpeakerReason(b["speaker_reason"]),
                        stage=b.get("speaker_stage", ""),
                        figure=b.get("speaker_figure"),
                    )
                )
        return PageAnalysis(
            page=int(data["page"]),
            width=int(data["width"]),
            height=int(data["height"]),
            direction=ReadingDirection(data["direction"]),
            panels=tuple(
                Panel(
                    id=p["id"],
                    bbox=BBox.from_list(p["bbox"]),
                    confidence=float(p.get("confidence", 1.0)),
                    stage=p.get("stage", ""),
                    polygon=_poly_from(p.get("polygon")),
                    order=p.get("order"),
                    order_confidence=float(p.get("order_confidence", 1.0)),
                )
                for p in data.get("panels", [])
            ),
            lines=tuple(
                TextLine(
                    id=ln["id"],
                    bbox=BBox.from_list(ln["bbox"]),
                    text=ln["text"],
                    confidence=float(ln.get("confidence", 1.0)),
                    stage=ln.get("stage", ""),
                    polygon=_poly_from(ln.get("polygon")),
                    script=ln.get("script", "latin"),
                    vertical=bool(ln.get("vertical", False)),
                    ruby=bool(ln.get("ruby", False)),
                )
                for ln in data.get("lines", [])
            ),
            blocks=tuple(blocks),
            characters=tuple(
                Character(
                    id=c["id"],
                    bbox=BBox.from_list(c["bbox"]),
                    confidence=float(c.get("confidence", 1.0)),
                    stage=c.get("stage", ""),
                    panel=c.get("panel"),
                    kind=c.get("kind", "body"),
                    name=c.get("name"),
                    name_confidence=float(c.get("name_confidence", 1.0)),
                    label=c.get("label"),
                    cluster=c.get("cluster"),
                    person=c.get("person"),
                    look=tuple(float(x) for x in c.get("look", ())),
                )
                for c in data.get("characters", [])
            ),
            speakers=tuple(speakers),
            stages=tuple(data.get("stages", ())),
            notices=tuple(data.get("notices", ())),
            language=str(data["language"]) if data.get("language") else None,
            failed=tuple(str(name) for name in data.get("failed", ())),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SchemaError(
            # Translators: spoken when a saved page analysis file is damaged.
            _("This page analysis is damaged and cannot be read."),
            detail=repr(exc),
        ) from exc


def _poly(poly: tuple[Point, ...] | None) -> list[list[float]] | None:
    return None if poly is None else [p.to_list() for p in poly]


def _poly_from(data: Sequence[Sequence[float]] | None) -> tuple[Point, ...] | None:
    return None if data is None else tuple(Point.from_list(p) for p in data)


def _block_json(b: Balloon, link: SpeakerLink | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": b.id,
        "kind": b.kind.value,
        "bbox": b.bbox.to_list(),
        "panel": b.panel,
        "order": b.order,
        "text": b.text,
        "confidence": json_number(b.confidence),
        "speaker": link.character if link else None,
        "stage": b.stage,
        "lines": list(b.lines),
        "polygon": _poly(b.polygon),
        "tail": None
        if b.tail is None
        else {
            "tip": b.tail.tip.to_list(),
            "direction_deg": json_number(b.tail.direction_deg),
            "confidence": json_number(b.tail.confidence),
        },
        "order_confidence": json_number(b.order_confidence),
        "essential": b.essential,
        "language": b.language,
        "title": b.title,
    }
    if link is not None:
        out["speaker_confidence"] = json_number(link.confidence)
        out["speaker_reason"] = link.reason.value
        out["speaker_stage"] = link.stage
        out["speaker_figure"] = link.figure
    return out


def _block_from_json(b: Mapping[str, Any]) -> Balloon:
    tail = b.get("tail")
    return Balloon(
        id=b["id"],
        kind=BalloonKind(b["kind"]),
        bbox=BBox.from_list(b["bbox"]),
        text=b.get("text", ""),
        confidence=float(b.get("confidence", 1.0)),
        stage=b.get("stage", ""),
        lines=tuple(b.get("lines", ())),
        polygon=_poly_from(b.get("polygon")),
        tail=None
        if tail is None
        else Tail(
            tip=Point.from_list(tail["tip"]),
            direction_deg=float(tail["direction_deg"]),
            confidence=float(tail.get("confidence", 1.0)),
        ),
        panel=b.get("panel"),
        order=b.get("order"),
        order_confidence=float(b.get("order_confidence", 1.0)),
        language=b.get("language"),
        title=bool(b.get("title", False)),
    )
