"""A page as the reader moves through it: steps (balloons), grouped into panels.

Built from the narration script, so the text of a step is exactly what is spoken when the
reader lands on it, and the view shows the same strings as accessible names.
"""

from __future__ import annotations

from dataclasses import dataclass

from panelvox.i18n import _
from panelvox.model import BBox, PageAnalysis
from panelvox.narration.overview import page_overview
from panelvox.narration.prefs import NarrationPrefs, ReadingUnit
from panelvox.narration.script import Utterance, group_by_unit, join_sentences, script_page
from panelvox.reader.position import page_number


@dataclass(frozen=True, slots=True)
class Step:
    """One stop of balloon-by-balloon reading (a balloon, caption, or a silent panel)."""

    utterances: tuple[Utterance, ...]
    panel: str | None
    bbox: BBox | None

    @property
    def text(self) -> str:
        return join_sentences(u.text for u in self.utterances)


@dataclass(frozen=True, slots=True)
class PanelGroup:
    """Consecutive steps of one panel (``panel`` None: text outside every panel)."""

    panel: str | None
    number: int | None
    first: int  # step indices, inclusive
    last: int
    bbox: BBox | None
    label: str  # "Panel 3." when the steps do not already say it, else ""
    text: str  # what moving to the panel says: the label, then every step


@dataclass(frozen=True, slots=True)
class PageOutline:
    index: int  # 0-based page index
    heading: str  # what turning to the page says
    steps: tuple[Step, ...] = ()
    panels: tuple[PanelGroup, ...] = ()
    width: int = 0
    height: int = 0
    ready: bool = True  # False while the page is still being analysed
    unreadable: bool = False

    @property
    def number(self) -> int:
        """The 1-based page number."""
        return page_number(self.index)

    def group_of(self, step: int) -> int:
        """Index into :attr:`panels` of the group holding ``step`` (-1 for the page)."""
        for i, group in enumerate(self.panels):
            if group.first <= step <= group.last:
                return i
        return -1

    def utterances(self) -> list[Utterance]:
        return [u for s in self.steps for u in s.utterances]


def pending_outline(index: int) -> PageOutline:
    # Translators: said when turning to a page that is still being analysed; {n} is the page number.
    return PageOutline(index, _("Page {n}: still being analysed.").format(n=page_number(index)), ready=False)


def unreadable_outline(index: int, message: str) -> PageOutline:
    return PageOutline(index, message, unreadable=True)


def build_outline(index: int, analysis: PageAnalysis, prefs: NarrationPrefs) -> PageOutline:
    """The steps and panel groups of an analysed page, in reading order."""
    utterances = script_page(analysis, prefs, unit=ReadingUnit.BALLOON)
    steps: list[Step] = []
    for group in group_by_unit(utterances, ReadingUnit.BALLOON):
        panel_key = next((u.region.panel for u in group if u.region.panel), None)
        bbox = next((u.region.bbox for u in group if u.region.block and u.region.bbox), None)
        if bbox is None:
            bbox = next((u.region.bbox for u in group if u.region.bbox), None)
        steps.append(Step(tuple(group), panel_key, bbox))
    numbers = {
        p.id: (p.order if p.order is not None else i) for i, p in enumerate(analysis.panels_in_order(), 1)
    }
    groups: list[PanelGroup] = []
    start = 0
    for i in range(1, len(steps) + 1):
        if i == len(steps) or steps[i].panel != steps[start].panel:
            panel_id = steps[start].panel
            panel = analysis.panel(panel_id) if panel_id else None
            number = numbers.get(panel_id) if panel_id else None
            text = join_sentences(s.text for s in steps[start:i])
            label = ""
            if number is not None:
                # Translators: said before a panel's content when moving by panel.
                label = _("Panel {n}.").format(n=number)
                if text.startswith(label):
                    label = ""
            bbox = panel.bbox if panel is not None else steps[start].bbox
            text = join_sentences((label, text))
            groups.append(PanelGroup(panel_id, number, start, i - 1, bbox, label, text))
            start = i
    return PageOutline(
        index,
        page_overview(analysis),
        tuple(steps),
        tuple(groups),
        width=analysis.width,
        height=analysis.height,
    )
