"""cib/: Golden Age comic pages with human narrations, golden scripts, some with panels and dialogue."""

from __future__ import annotations

from pathlib import Path

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import Dataset, Fact, GTPage, GTPanel
from panelvox.eval.loaders.common import clip_box, image_size, read_json
from panelvox.eval.loaders.script_loader import load_script
from panelvox.i18n import _
from panelvox.model import BBox, ReadingDirection


def is_cib(root: Path) -> bool:
    return (root / "index.json").is_file() and (root / "narrations").is_dir()


def load_cib(root: Path, name: str = "cib") -> Dataset:
    """Every page of ``index.json``; panels and dialogue where ``panels/<page>.json`` exists."""
    index = read_json(root / "index.json")
    if not isinstance(index, list):
        raise DatasetError(
            # Translators: printed when an evaluation dataset's index file has an unexpected form.
            _("The index of the evaluation data is not in the expected form."),
            detail=f"{root / 'index.json'}: not a list",
        )
    pages = []
    for entry in index:
        image = root / entry["image"]
        narration_path = root / entry["narration"] if entry.get("narration") else None
        narration = narration_path.read_text(encoding="utf-8") if narration_path else None
        facts = {Fact.NARRATION} if narration else set()
        panels: tuple[GTPanel, ...] = ()
        dialogue: tuple[str, ...] = ()
        direction = ReadingDirection.LTR
        if entry.get("panels"):
            ann = read_json(root / entry["panels"])
            width, height = int(ann["width"]), int(ann["height"])
            direction = ReadingDirection(ann.get("direction", "ltr"))
            panels = tuple(
                GTPanel(id=str(p["id"]), bbox=clip_box(BBox.from_list(p["bbox"]), width, height))
                for p in ann["panels"]
            )
            dialogue = tuple(str(d) for d in ann.get("dialogue", ()))
            facts |= {Fact.PANELS, Fact.PANEL_ORDER}
            if "dialogue" in ann:
                facts.add(Fact.DIALOGUE)
        else:
            width, height = image_size(image)
        script_path = root / "script" / f"{entry['page']}.json"
        script = load_script(script_path) if script_path.is_file() else None
        if script is not None:
            facts.add(Fact.SCRIPT)
        pages.append(
            GTPage(
                dataset=name,
                page_id=str(entry["page"]),
                image_path=image,
                width=width,
                height=height,
                direction=direction,
                annotated=frozenset(facts),
                panels=panels,
                dialogue=dialogue,
                narration=narration,
                script=script,
                # a story (the page id without its page number) is one book: its
                # characters and names run through its pages
                book=str(entry["page"]).rpartition("_")[0],
                language="en",  # American comics of the 1940s and 50s
            )
        )
    return Dataset(name=name, root=root, pages=tuple(pages))
