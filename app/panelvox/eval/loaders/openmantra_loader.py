"""openmantra/: manga pages (right to left) with frames and text boxes in reading order."""

from __future__ import annotations

from pathlib import Path

from panelvox.eval.ground_truth import Dataset, Fact, GTPage, GTPanel, GTText, TextLevel
from panelvox.eval.loaders.common import clip_box, image_size, read_json, xywh
from panelvox.model import ReadingDirection


def is_openmantra(root: Path) -> bool:
    return (root / "annotation.json").is_file() and (root / "images").is_dir()


def load_openmantra(root: Path, name: str = "openmantra") -> Dataset:
    """All pages; text boxes carry the Japanese text, translations kept beside it."""
    pages = []
    for book in read_json(root / "annotation.json"):
        title = str(book["book_title"])
        for page in book["pages"]:
            image = root / page["image_paths"]["ja"]
            width, height = image_size(image)
            panels = tuple(
                GTPanel(id=f"f{k + 1}", bbox=clip_box(xywh(f), width, height))
                for k, f in enumerate(page.get("frame", []))
            )
            texts = tuple(
                GTText(
                    id=f"t{k + 1}",
                    bbox=clip_box(xywh(t), width, height),
                    text=t.get("text_ja"),
                    language="ja",
                    translations=tuple(
                        (lang, str(t[f"text_{lang}"])) for lang in ("en", "zh") if t.get(f"text_{lang}")
                    ),
                )
                for k, t in enumerate(page.get("text", []))
            )
            pages.append(
                GTPage(
                    dataset=name,
                    page_id=f"{title}/{int(page['page_index']):03d}",
                    image_path=image,
                    width=width,
                    height=height,
                    direction=ReadingDirection.RTL,
                    annotated=frozenset(
                        {Fact.PANELS, Fact.PANEL_ORDER, Fact.TEXTS, Fact.TEXT_CONTENT, Fact.TEXT_ORDER}
                    ),
                    panels=panels,
                    texts=texts,
                    text_level=TextLevel.BLOCK,
                    book=title,
                    language="ja",
                )
            )
    return Dataset(name=name, root=root, pages=tuple(pages))
