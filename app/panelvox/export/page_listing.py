"""The page for a sighted helper: a plain listing of panels and blocks, and a numbered overlay.

``panelvox analyze`` prints the listing and saves the overlay; both show the page as the
page service gives it (named and labelled), in reading order.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image as PILImage

from panelvox.i18n import _
from panelvox.model import Balloon, Image, PageAnalysis, Panel
from panelvox.narration.script import speaker_label


def format_page(analysis: PageAnalysis) -> str:
    """The page as plain text: panels in reading order, each with its blocks in order."""
    a = analysis
    lines = [
        # Translators: header of `panelvox analyze`; {page} number, {w}x{h} pixels, {direction} e.g. "rtl".
        _("Page {page} ({w}x{h}), reading {direction}").format(
            page=a.page, w=a.width, h=a.height, direction=a.direction.value
        ),
        # Translators: which analysis steps ran, e.g. "panels:classical, order:xy-cut".
        _("Stages: {stages}").format(stages=", ".join(a.stages) or "-"),
    ]
    lines.extend(f"! {notice}" for notice in a.notices)
    panels = a.panels_in_order()
    if not panels:
        # Translators: `panelvox analyze` found no panels on the page.
        lines.append(_("No panels."))
    for p in panels:
        lines.append(_panel_line(p))
        lines.extend(_block_line(b, a) for b in a.blocks_of(p.id))
    loose = a.blocks_of(None)
    if loose:
        # Translators: heading for text blocks that lie outside every panel.
        lines.append(_("Outside the panels:"))
        lines.extend(_block_line(b, a) for b in loose)
    return "\n".join(lines) + "\n"


def _panel_line(p: Panel) -> str:
    b = p.bbox
    unsure = "" if p.order_confidence >= 0.7 else " " + _("(order unclear)")
    # Translators: one panel in `panelvox analyze`; {n} reading number, {conf} confidence 0-1.
    return (
        _("Panel {n} [{x0:.0f},{y0:.0f},{x1:.0f},{y1:.0f}] confidence {conf:.2f}").format(
            n=p.order if p.order is not None else "?", x0=b.x0, y0=b.y0, x1=b.x1, y1=b.y1, conf=p.confidence
        )
        + unsure
    )


def _block_line(b: Balloon, analysis: PageAnalysis) -> str:
    text = " ".join(b.text.split())
    line = f"  {b.order if b.order is not None else '?'}. {b.kind.value} ({b.confidence:.2f}): {text}"
    link = analysis.speaker_of(b.id)
    who = speaker_label(analysis, link)
    if who is None or link is None:
        return line
    # Translators: who says a block in `panelvox analyze`; {name} e.g. "Steenie", {reason} e.g. "tail".
    return (
        line
        + "\n     "
        + _("Speaker: {name} ({reason}, {conf:.2f})").format(
            name=who, reason=link.reason.value, conf=link.confidence
        )
    )


# -- overlay -------------------------------------------------------------------------------

_PANEL_COLOUR = (220, 30, 30)
_BLOCK_COLOUR = (20, 90, 220)
_TAIL_COLOUR = (20, 160, 60)


def draw_overlay(image: Image, analysis: PageAnalysis) -> Image:
    """A copy of the page with panels and blocks outlined and their reading numbers."""
    canvas = np.ascontiguousarray(image.copy())
    h, w = canvas.shape[:2]
    thick = max(2, round(min(h, w) / 300))
    font = max(0.6, min(h, w) / 500)
    for p in analysis.panels_in_order():
        if p.polygon:
            pts = np.array([[pt.x, pt.y] for pt in p.polygon], np.int32)
            cv2.polylines(canvas, [pts], True, _PANEL_COLOUR, thick)
        else:
            cv2.rectangle(
                canvas, _pt(p.bbox.x0, p.bbox.y0), _pt(p.bbox.x1 - 1, p.bbox.y1 - 1), _PANEL_COLOUR, thick
            )
        _label(
            canvas,
            str(p.order or "?"),
            p.bbox.x0 + 4 * thick,
            p.bbox.y0 + 4 * thick,
            _PANEL_COLOUR,
            font * 1.6,
        )
    for b in analysis.blocks_in_order():
        cv2.rectangle(
            canvas, _pt(b.bbox.x0, b.bbox.y0), _pt(b.bbox.x1 - 1, b.bbox.y1 - 1), _BLOCK_COLOUR, thick
        )
        _label(canvas, str(b.order or "?"), b.bbox.x0, b.bbox.y0, _BLOCK_COLOUR, font)
        if b.tail is not None:
            c = b.bbox.center
            cv2.arrowedLine(canvas, _pt(c.x, c.y), _pt(b.tail.tip.x, b.tail.tip.y), _TAIL_COLOUR, thick)
    return canvas


def save_overlay(image: Image, analysis: PageAnalysis, path: Path) -> None:
    PILImage.fromarray(draw_overlay(image, analysis)).save(path)


def _pt(x: float, y: float) -> tuple[int, int]:
    return round(x), round(y)


def _label(canvas: Image, text: str, x: float, y: float, colour: tuple[int, int, int], scale: float) -> None:
    thick = max(1, round(scale * 2))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x0, y0 = round(x), round(y)
    cv2.rectangle(canvas, (x0, y0), (x0 + tw + 6, y0 + th + base + 6), (255, 255, 255), cv2.FILLED)
    cv2.putText(
        canvas, text, (x0 + 3, y0 + th + 3), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA
    )
