"""Per-page PNGs: true boxes (green) and predicted boxes (red), each with its order number."""

from __future__ import annotations

from pathlib import Path

from PIL import Image as PILImage
from PIL import ImageDraw

from panelvox.eval.ground_truth import GTPage
from panelvox.model import BBox, Image, PageAnalysis

TRUE_PANEL = (0, 170, 0)
TRUE_TEXT = (0, 150, 200)
PRED_PANEL = (220, 0, 0)
PRED_TEXT = (240, 130, 0)


def _box(
    draw: ImageDraw.ImageDraw, box: BBox, color: tuple[int, int, int], label: str, width: int, at_end: bool
) -> None:
    draw.rectangle(
        [box.x0, box.y0, max(box.x0, box.x1 - 1), max(box.y0, box.y1 - 1)], outline=color, width=width
    )
    if label:
        x, y = (box.x1 - 8 * len(label) - 6, box.y1 - 16) if at_end else (box.x0 + 3, box.y0 + 2)
        draw.rectangle([x - 2, y - 1, x + 8 * len(label) + 2, y + 13], fill=(255, 255, 255))
        draw.text((x, y), label, fill=color)


def draw_overlay(image: Image, page: GTPage, pred: PageAnalysis) -> PILImage.Image:
    """The page with true items (labels top-left) and predicted items (labels bottom-right)."""
    canvas = PILImage.fromarray(image).convert("RGB")
    draw = ImageDraw.Draw(canvas)
    width = max(2, round(max(canvas.size) / 500))
    for k, gp in enumerate(page.panels, start=1):
        _box(draw, gp.bbox, TRUE_PANEL, str(k), width, at_end=False)
    for k, t in enumerate(page.text_units(), start=1):
        _box(draw, t.bbox, TRUE_TEXT, f"t{k}", max(1, width - 1), at_end=False)
    for p in pred.panels:
        _box(draw, p.bbox, PRED_PANEL, "" if p.order is None else str(p.order), width, at_end=True)
    for b in pred.blocks:
        _box(
            draw, b.bbox, PRED_TEXT, "" if b.order is None else f"t{b.order}", max(1, width - 1), at_end=True
        )
    if not pred.blocks:
        for ln in pred.lines:
            _box(draw, ln.bbox, PRED_TEXT, "", 1, at_end=True)
    return canvas


def write_overlay(out_dir: Path, image: Image, page: GTPage, pred: PageAnalysis) -> Path:
    path = out_dir / f"{page.page_id.replace('/', '__')}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    draw_overlay(image, page, pred).save(path)
    return path
