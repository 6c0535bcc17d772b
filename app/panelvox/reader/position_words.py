"""What the reader says about where it is: landing on a position, the opening sentence, the
status line, where am I, the page overview.

Pure functions of the position, the page's outline and analysis, so the words are made in
one place and the controller only decides when they are said or shown.
"""

from __future__ import annotations

from panelvox.books import Book
from panelvox.i18n import _
from panelvox.narration.overview import describe_here, page_overview, where_am_i
from panelvox.narration.script import Utterance
from panelvox.reader.listener import message
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.page_results import Here, PageResults
from panelvox.reader.position import Level, Position, page_number


def landing_utterances(outline: PageOutline, position: Position) -> list[Utterance]:
    """What landing on ``position`` says (the accessible name of its item, in pieces)."""
    if position.level is Level.PAGE or position.step < 0 or not outline.steps:
        return [message(outline.heading)]
    if position.level is Level.PANEL:
        group = outline.panels[outline.group_of(position.step)]
        utts = [u for s in outline.steps[group.first : group.last + 1] for u in s.utterances]
        return [message(group.label), *utts] if group.label else utts
    return list(outline.steps[position.step].utterances)


def panel_words(outline: PageOutline, step: int) -> str:
    """ "panel 2 of 3", or "outside the panels", for step ``step`` of the page."""
    group = outline.group_of(step)
    number = outline.panels[group].number if group >= 0 else None
    if number is None:
        # Translators: where am I, for text outside every panel.
        return _("outside the panels")
    # Translators: where am I; the panel number and count.
    return _("panel {n} of {count}").format(n=number, count=sum(g.number is not None for g in outline.panels))


def opening_words(
    title: str, page_count: int, position: Position, outline: PageOutline, *, resumed: bool
) -> str:
    """What opening a book says: its title and size, then where reading starts."""
    # Translators: said when a book opens; {title} is its title, {count} its pages.
    intro = _("{title}, {count} pages.").format(title=title, count=page_count)
    if not resumed:
        # Translators: said when a book opens at its start.
        return intro + " " + _("Page {n}.").format(n=position.number)
    # Translators: said when a book opens where the reader left it.
    where = _("Resuming at page {page} of {count}").format(page=position.number, count=page_count)
    if position.level is not Level.PAGE and outline.ready and position.step < len(outline.steps):
        where += ", " + panel_words(outline, position.step)
    return intro + " " + where + "."


def status_words(position: Position, results: PageResults, book: Book | None) -> str:
    """The status line: the page, the panel and item, and how far analysis of the pages
    ahead is; how to open a book without one."""
    if book is None:
        # Translators: the status line when no book is open.
        return _("No book open. Press Control O to open one.")
    outline = results.outline(position.page)
    page_count = book.page_count
    ahead = results.ahead(position.page, page_count)
    missing = results.missing(ahead)
    # Translators: status line; {page} of {count}.
    parts = [_("Page {page} of {count}").format(page=position.number, count=page_count)]
    if outline.ready and position.step >= 0:
        parts.append(panel_words(outline, position.step))
        # Translators: status line; the balloon position on the page.
        parts.append(_("item {n} of {count}").format(n=position.step + 1, count=len(outline.steps)))
    if missing:
        # Translators: status line while pages are analysed; {n} is the page being analysed.
        parts.append(
            _("analysing page {n}, {done} of {total} ready").format(
                n=page_number(missing[0]), done=len(ahead) - len(missing), total=len(ahead)
            )
        )
    return " · ".join(parts)


def where_am_i_words(here: Here) -> str:
    """W: the book, the page and panel, and what is there."""
    title, count, pos, analysis = here.book.title, here.book.page_count, here.position, here.analysis
    if analysis is None or pos.step < 0:
        return where_am_i(title, pos.number, count, here="" if analysis is None else describe_here(analysis))
    group = here.outline.panels[here.outline.group_of(pos.step)]
    said = describe_here(analysis, group.panel) if group.panel else ""
    return where_am_i(title, pos.number, count, group.number, len(analysis.panels), said)


def overview_words(here: Here) -> str:
    """O: what the page holds; the page's own sentence while it is analysed or unreadable."""
    return page_overview(here.analysis) if here.analysis is not None else here.outline.heading
