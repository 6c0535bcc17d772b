"""iabc/: pages as SVG polygons with panels, balloons (text, tail, rank, voice) and characters.

Each page SVG holds, in document order, one ``<svg class="Panel">`` followed by the
``Character`` and ``Balloon`` groups of that panel. A balloon's polygon carries
``onclick="setBalloonData(VOICE, 'TEXT')"`` and ``<metadata tailTip="x,y"
tailDirection="S" rank="N">``; a character's ``setCharacterData(_, 'NAME', ...)``.

Speakers are derived, not given: a voice index is a TTS voice, not a person. For each voice
we take the character whose box (in the balloon's panel) holds — or lies nearest to — the
human-annotated tail tips of that voice's balloons, by majority over the page. A balloon
with a tail is speech and gets that character as speaker; a balloon without a tail is a
caption, with the narrator (None) as speaker, matching the pipeline's convention.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import (
    Dataset,
    Fact,
    GTBalloon,
    GTCharacter,
    GTPage,
    GTPanel,
    TextLevel,
)
from panelvox.eval.loaders.common import clip_box, image_size, parse_points
from panelvox.i18n import _
from panelvox.model import BalloonKind, BBox, Point, ReadingDirection

_SVG = "{http://www.w3.org/2000/svg}"
_XLINK = "{http://www.w3.org/1999/xlink}"
_BALLOON_DATA = re.compile(r"setBalloonData\(\s*(\d+)\s*,\s*'(.*)'\s*\)\s*;?\s*$", re.DOTALL)
_CHARACTER_DATA = re.compile(r"setCharacterData\(\s*\d+\s*,\s*'([^']*)'")


def _pages_dir(root: Path) -> Path | None:
    for cand in (root / "data" / "svg" / "page", root / "svg" / "page"):
        if cand.is_dir():
            return cand
    return None


def is_iabc(root: Path) -> bool:
    return _pages_dir(root) is not None


def load_iabc(root: Path, name: str = "iabc") -> Dataset:
    pages_dir = _pages_dir(root)
    if pages_dir is None:
        raise DatasetError(
            # Translators: printed when a folder given as evaluation data has no page annotations.
            _("No page annotations were found in this folder."),
            detail=f"{root}: no data/svg/page",
        )
    pages = tuple(load_iabc_page(svg, name) for svg in sorted(pages_dir.rglob("*.svg")))
    return Dataset(name=name, root=root, pages=pages)


def _meta(poly: ET.Element) -> dict[str, str]:
    meta = poly.find(f"{_SVG}metadata")
    return dict(meta.attrib) if meta is not None else {}


def load_iabc_page(svg: Path, dataset: str = "iabc") -> GTPage:
    try:
        tree = ET.parse(svg)
    except (OSError, ET.ParseError) as exc:
        raise DatasetError(
            # Translators: printed when a ground-truth file of an evaluation dataset cannot be read.
            _("An annotation file of the evaluation data cannot be read."),
            detail=f"{svg}: {exc!r}",
        ) from exc
    root = tree.getroot()
    href = next((im.get(f"{_XLINK}href") for im in root.iter(f"{_SVG}image")), None)
    if not href:
        raise DatasetError(
            _("An annotation file of the evaluation data cannot be read."), detail=f"{svg}: no image"
        )
    image = (svg.parent / href).resolve()
    width, height = image_size(image)
    meta = next((m.attrib for m in root.iter(f"{_SVG}metadata") if "readingDirection" in m.attrib), {})
    direction = (
        ReadingDirection.RTL if meta.get("readingDirection") == "rightToLeft" else ReadingDirection.LTR
    )
    book = svg.parent.name

    panels: list[tuple[int, GTPanel]] = []
    balloons: list[GTBalloon] = []
    characters: list[GTCharacter] = []
    current_panel: str | None = None
    for group in root.findall(f"{_SVG}svg"):
        kind = group.get("class")
        for poly in group.findall(f"{_SVG}polygon"):
            points = parse_points(poly.get("points", ""))
            if len(points) < 3:
                continue
            bbox = clip_box(BBox.from_points(points), width, height)
            pid = poly.get("id") or f"{kind}{len(panels) + len(balloons) + len(characters)}"
            onclick = poly.get("onclick", "")
            m = _meta(poly)
            if kind == "Panel":
                current_panel = pid
                rank = int(m["rank"]) if m.get("rank", "").isdigit() else len(panels) + 1
                panels.append((rank, GTPanel(id=pid, bbox=bbox, polygon=points)))
            elif kind == "Balloon":
                data = _BALLOON_DATA.search(onclick)
                tip = m.get("tailTip", "").strip()
                tail_tip = Point.from_list([float(v) for v in tip.split(",")]) if tip else None
                tail_dir = m.get("tailDirection") or None
                balloons.append(
                    GTBalloon(
                        id=pid,
                        bbox=bbox,
                        text=data.group(2).strip() if data else None,
                        kind=BalloonKind.SPEECH if tail_tip else BalloonKind.CAPTION,
                        polygon=points,
                        tail_tip=tail_tip,
                        tail_direction=None if tail_dir in (None, "none") else tail_dir,
                        rank=int(m["rank"]) if m.get("rank", "").isdigit() else None,
                        voice=int(data.group(1)) if data else None,
                        panel=current_panel,
                    )
                )
            elif kind == "Character":
                cm = _CHARACTER_DATA.search(onclick)
                label = cm.group(1).strip() if cm else None
                characters.append(
                    GTCharacter(
                        id=pid,
                        bbox=bbox,
                        identity=f"{book}:{label.casefold()}" if label else None,
                        name=label,
                        panel=current_panel,
                        polygon=points,
                    )
                )
    balloons = _with_speakers(balloons, characters)
    balloons.sort(key=lambda b: b.rank if b.rank is not None else 1 << 30)
    facts = {Fact.PANELS, Fact.PANEL_ORDER, Fact.BALLOONS, Fact.TEXT_ORDER, Fact.CHARACTERS}
    if any(b.text for b in balloons):
        facts |= {Fact.TEXTS, Fact.TEXT_CONTENT}
    if any(b.speaker for b in balloons):
        facts.add(Fact.SPEAKERS)
    return GTPage(
        dataset=dataset,
        page_id=f"{book}/{svg.stem}",
        image_path=image,
        width=width,
        height=height,
        direction=direction,
        annotated=frozenset(facts),
        panels=tuple(p for _, p in sorted(panels, key=lambda rp: rp[0])),
        balloons=tuple(balloons),
        text_level=TextLevel.BLOCK,
        characters=tuple(characters),
        book=book,
        language="en",  # American comics of the 1950s
    )


def _distance(p: Point, box: BBox) -> float:
    dx = max(box.x0 - p.x, 0.0, p.x - box.x1)
    dy = max(box.y0 - p.y, 0.0, p.y - box.y1)
    return float((dx * dx + dy * dy) ** 0.5)


def _with_speakers(balloons: list[GTBalloon], characters: list[GTCharacter]) -> list[GTBalloon]:
    votes: dict[int, Counter[str]] = defaultdict(Counter)
    for b in balloons:
        if b.tail_tip is None or b.voice is None:
            continue
        tip = b.tail_tip
        candidates = [c for c in characters if c.panel == b.panel and c.identity] or [
            c for c in characters if c.identity
        ]
        if candidates:
            best = min(candidates, key=lambda c: _distance(tip, c.bbox))
            assert best.identity is not None
            votes[b.voice][best.identity] += 1
    voice_to_identity = {v: c.most_common(1)[0][0] for v, c in votes.items()}
    out = []
    for b in balloons:
        speaker = voice_to_identity.get(b.voice) if b.tail_tip is not None and b.voice is not None else None
        out.append(
            GTBalloon(
                id=b.id,
                bbox=b.bbox,
                text=b.text,
                kind=b.kind,
                polygon=b.polygon,
                tail_tip=b.tail_tip,
                tail_direction=b.tail_direction,
                rank=b.rank,
                speaker=speaker,
                voice=b.voice,
                panel=b.panel,
            )
        )
    return out
