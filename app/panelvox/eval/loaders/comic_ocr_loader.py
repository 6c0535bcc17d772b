"""comic-ocr/: Western pages with line boxes and their text ("??" or absent = unknown)."""

from __future__ import annotations

from pathlib import Path

from panelvox.eval.ground_truth import Dataset, Fact, GTPage, GTText, TextLevel
from panelvox.eval.loaders.common import clip_box, image_size, read_json, xywh
from panelvox.model import ReadingDirection

UNKNOWN_TEXT = "??"


def _folder(root: Path) -> Path | None:
    for cand in (root / "example" / "manga_annotated", root / "manga_annotated", root):
        if cand.is_dir() and any(p.with_suffix(".jpg").is_file() for p in cand.glob("*.json")):
            return cand
    return None


def is_comic_ocr(root: Path) -> bool:
    folder = _folder(root)
    if folder is None:
        return False
    sample = next(iter(sorted(folder.glob("*.json"))))
    data = read_json(sample)
    return isinstance(data, dict) and isinstance(data.get("annotations"), list)


def load_comic_ocr(root: Path, name: str = "comic-ocr") -> Dataset:
    folder = _folder(root) or root
    pages = []
    for path in sorted(folder.glob("*.json")):
        image = path.with_suffix(".jpg")
        if not image.is_file():
            continue
        width, height = image_size(image)
        texts = []
        for k, a in enumerate(read_json(path).get("annotations", [])):
            text = a.get("text")
            if text is not None and text.strip() in ("", UNKNOWN_TEXT):
                text = None
            bbox = clip_box(xywh(a, "width", "height"), width, height)
            texts.append(GTText(id=f"l{k + 1}", bbox=bbox, text=text, language="en"))
        facts = {Fact.TEXTS}
        if any(t.text is not None for t in texts):
            facts.add(Fact.TEXT_CONTENT)
        pages.append(
            GTPage(
                dataset=name,
                page_id=path.stem,
                image_path=image,
                width=width,
                height=height,
                direction=ReadingDirection.LTR,
                annotated=frozenset(facts),
                texts=tuple(texts),
                text_level=TextLevel.LINE,
                book=path.stem,
                language="en",
            )
        )
    return Dataset(name=name, root=root, pages=tuple(pages))
