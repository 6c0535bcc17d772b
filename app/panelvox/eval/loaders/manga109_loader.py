"""Manga109 annotations, read the way ``manga109api`` reads them.

Layout: ``ROOT/annotations/<book>.xml`` (``annotations.v*`` folders also accepted) and
``ROOT/images/<book>/<index:03d>.jpg``; ``ROOT/books.txt`` lists the books (else every XML).
Each XML is ``<book title><characters><character id name/></characters><pages><page
index width height>`` holding ``frame``, ``text`` (transcript as element text), ``face``
and ``body`` elements with ``id xmin ymin xmax ymax`` (faces and bodies also ``character``).
Pages are right-to-left; Manga109 gives no reading order.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

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
from panelvox.i18n import _
from panelvox.model import BBox, ReadingDirection


def _annotations_dir(root: Path) -> Path | None:
    if (root / "annotations").is_dir():
        return root / "annotations"
    versioned = sorted(p for p in root.glob("annotations.v*") if p.is_dir())
    return versioned[-1] if versioned else None


def is_manga109(root: Path) -> bool:
    ann = _annotations_dir(root)
    return ann is not None and (root / "images").is_dir() and any(ann.glob("*.xml"))


def _box(el: ET.Element) -> BBox:
    return BBox(
        float(el.get("xmin", 0)), float(el.get("ymin", 0)), float(el.get("xmax", 0)), float(el.get("ymax", 0))
    )


def load_manga109(root: Path, name: str = "manga109") -> Dataset:
    ann_dir = _annotations_dir(root)
    if ann_dir is None:
        raise DatasetError(
            # Translators: printed when a folder given as evaluation data has no page annotations.
            _("No page annotations were found in this folder."),
            detail=f"{root}: no annotations/ folder",
        )
    books_txt = root / "books.txt"
    if books_txt.is_file():
        books = [b.strip() for b in books_txt.read_text(encoding="utf-8").splitlines() if b.strip()]
    else:
        books = sorted(p.stem for p in ann_dir.glob("*.xml"))
    pages: list[GTPage] = []
    for book in books:
        pages.extend(load_manga109_book(root, ann_dir / f"{book}.xml", book, name))
    return Dataset(name=name, root=root, pages=tuple(pages))


def load_manga109_book(root: Path, xml_path: Path, book: str, dataset: str = "manga109") -> list[GTPage]:
    try:
        tree = ET.parse(xml_path)
    except (OSError, ET.ParseError) as exc:
        raise DatasetError(
            # Translators: printed when a ground-truth file of an evaluation dataset cannot be read.
            _("An annotation file of the evaluation data cannot be read."),
            detail=f"{xml_path}: {exc!r}",
        ) from exc
    xml = tree.getroot()
    names = {c.get("id", ""): c.get("name", "") for c in xml.iter("character")}
    out = []
    for page in xml.iter("page"):
        index = int(page.get("index", "0"))
        width, height = int(page.get("width", "0")), int(page.get("height", "0"))
        panels: list[GTPanel] = []
        texts: list[GTText] = []
        faces: list[GTCharacter] = []
        bodies: list[GTCharacter] = []
        for el in page:
            eid = el.get("id", f"{el.tag}{len(panels) + len(texts) + len(faces) + len(bodies)}")
            if el.tag == "frame":
                panels.append(GTPanel(id=eid, bbox=_box(el)))
            elif el.tag == "text":
                texts.append(
                    GTText(id=eid, bbox=_box(el), text=(el.text or "").strip() or None, language="ja")
                )
            elif el.tag in ("face", "body"):
                cid = el.get("character")
                character = GTCharacter(
                    id=eid,
                    bbox=_box(el),
                    identity=f"{book}:{cid}" if cid else None,
                    kind=el.tag,
                    name=names.get(cid or "") or None,
                )
                (faces if el.tag == "face" else bodies).append(character)
        facts = {Fact.PANELS, Fact.TEXTS, Fact.CHARACTERS, Fact.FACES}
        if any(t.text for t in texts):
            facts.add(Fact.TEXT_CONTENT)
        out.append(
            GTPage(
                dataset=dataset,
                page_id=f"{book}/{index:03d}",
                image_path=root / "images" / book / f"{index:03d}.jpg",
                width=width,
                height=height,
                direction=ReadingDirection.RTL,
                annotated=frozenset(facts),
                panels=tuple(panels),
                texts=tuple(texts),
                text_level=TextLevel.BLOCK,
                characters=tuple(bodies),
                faces=tuple(faces),
                book=book,
                language="ja",
            )
        )
    return out
