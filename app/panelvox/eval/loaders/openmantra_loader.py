"""openmantra/: manga pages (right to left) with frames and text boxes in reading order.

The pages are folders of images with no ComicInfo, so they are read as a user's such book
would be: direction and language are Panelvox's own decision (``GTPage.declared`` False).
``script/openmantra_<title>_<image>.json`` are golden scripts of some pages (same format as
cib's); a page with one is scored by ``--stage script`` too.
"""

from __future__ import annotations

from pathlib import Path

from panelvox.eval.ground_truth import Dataset, Fact, GTPage, GTPanel, GTText, TextLevel
from panelvox.eval.loaders.common import clip_box, image_size, read_json, xywh
from panelvox.eval.loaders.script_loader import load_script
from panelvox.model import ReadingDirection


def is_openmantra(root: Path) -> bool:
    return (root / "annotation.json").is_file() and (root / "images").is_dir()


def load_openmantra(root: Path, name: str = "openmantra") -> Dataset:
    """All pages; text boxes carry the Japanese text, translations kept beside it."""
    pages = []
    facts = frozenset({Fact.PANELS, Fact.PANEL_ORDER, Fact.TEXTS, Fact.TEXT_CONTENT, Fact.TEXT_ORDER})
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
            # named by the image file (page_index k is image k - 1)
            script_path = root / "script" / f"{name_of_script(title, image)}.json"
            script = load_script(script_path) if script_path.is_file() else None
            pages.append(
                GTPage(
                    dataset=name,
                    page_id=f"{title}/{int(page['page_index']):03d}",
                    image_path=image,
                    width=width,
                    height=height,
                    direction=ReadingDirection.RTL,
                    annotated=facts | {Fact.SCRIPT} if script is not None else facts,
                    panels=panels,
                    texts=texts,
                    text_level=TextLevel.BLOCK,
                    script=script,
                    book=title,
                    language="ja",
                    declared=False,
                )
            )
    return Dataset(name=name, root=root, pages=tuple(pages))


def name_of_script(title: str, image: Path) -> str:
    """The golden script's file name (without ``.json``) of a title's page image."""
    return f"openmantra_{title}_{image.stem}"
