"""Where each move goes: pure functions of the position, the pages' outlines and the page count.

Page level (step -1) is the page heading; a panel position is its first step at PANEL
level, and landing there says the panel's label and its balloons from the first, so "next
balloon" from there goes on at the panel's second step: the first was just heard, and
saying it again was the repeat a listener met in every panel; balloon moves run across
page ends, so reading goes on past an empty or unreadable page.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from panelvox.reader.commands import Command
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Level, Position


class Edge(Enum):
    END = "end"  # past the last item of the book
    START = "start"  # before the first
    NOT_READY = "not-ready"  # the page is still being analysed


Target = Position | Edge
Outlines = Callable[[int], PageOutline]
#: a reading key's move: where it leads from a position (every move takes the page count)
Move = Callable[[Position, Outlines, int], Target]


def _inside_unknown(outline: PageOutline) -> bool:
    return not outline.ready and not outline.unreadable


def next_balloon(pos: Position, outlines: Outlines, page_count: int) -> Target:
    outline = outlines(pos.page)
    if _inside_unknown(outline):
        return Edge.NOT_READY
    target = pos.step + 1  # from a panel too: its first balloon was said on landing there
    if target < len(outline.steps):
        return Position(pos.page, target, Level.BALLOON)
    return next_page(pos, outlines, page_count)


def previous_balloon(pos: Position, outlines: Outlines, page_count: int) -> Target:
    if pos.level is not Level.PAGE:
        return Position(pos.page, pos.step - 1, Level.BALLOON) if pos.step > 0 else Position(pos.page)
    if pos.page == 0:
        return Edge.START
    last = len(outlines(pos.page - 1).steps) - 1
    return Position(pos.page - 1, last, Level.BALLOON) if last >= 0 else Position(pos.page - 1)


def next_panel(pos: Position, outlines: Outlines, page_count: int) -> Target:
    outline = outlines(pos.page)
    if _inside_unknown(outline):
        return Edge.NOT_READY
    target = outline.group_of(pos.step) + 1 if pos.step >= 0 else 0
    if target < len(outline.panels):
        return Position(pos.page, outline.panels[target].first, Level.PANEL)
    return next_page(pos, outlines, page_count)


def previous_panel(pos: Position, outlines: Outlines, page_count: int) -> Target:
    if pos.level is not Level.PAGE:
        outline = outlines(pos.page)
        target = outline.group_of(pos.step) - 1
        return (
            Position(pos.page, outline.panels[target].first, Level.PANEL)
            if target >= 0
            else Position(pos.page)
        )
    if pos.page == 0:
        return Edge.START
    prev = outlines(pos.page - 1)
    return (
        Position(pos.page - 1, prev.panels[-1].first, Level.PANEL) if prev.panels else Position(pos.page - 1)
    )


def next_page(pos: Position, outlines: Outlines, page_count: int) -> Target:
    return Position(pos.page + 1) if pos.page + 1 < page_count else Edge.END


def previous_page(pos: Position, outlines: Outlines, page_count: int) -> Target:
    return Position(pos.page - 1) if pos.page > 0 else Edge.START


def move_for(command: Command) -> Move | None:
    """Where the reading key ``command`` leads from a position; None when it is not a move."""
    moves: dict[Command, Move] = {
        Command.NEXT_BALLOON: next_balloon,
        Command.PREV_BALLOON: previous_balloon,
        Command.NEXT_PANEL: next_panel,
        Command.PREV_PANEL: previous_panel,
        Command.NEXT_PAGE: next_page,
        Command.PREV_PAGE: previous_page,
    }
    return moves.get(command)


def reading_next(pos: Position, outlines: Outlines, page_count: int) -> Position | None:
    """The next stop of continuous reading (say-all), after all of ``pos`` was heard."""
    outline = outlines(pos.page)
    step = pos.step
    if pos.level is Level.PANEL and outline.panels:
        step = outline.panels[outline.group_of(pos.step)].last
    if step + 1 < len(outline.steps):
        return Position(pos.page, step + 1, Level.BALLOON)
    after = next_page(pos, outlines, page_count)
    return after if isinstance(after, Position) else None
