"""What a page or panel holds, said short: the page overview (O) and where am I (W)."""

from __future__ import annotations

from panelvox.i18n import _, ngettext
from panelvox.model import BalloonKind, PageAnalysis
from panelvox.narration.script import heard_speakers, panels_unknown, text_unknown


def page_overview(analysis: PageAnalysis) -> str:
    """ "Page 4: 6 panels, 11 balloons, 3 speakers: Steenie, the stranger, Dougal." """
    parts: list[str] = []
    # what a failed stage would have counted is unknown, not zero (its notice says it failed)
    if analysis.panels or not panels_unknown(analysis):
        parts.append(ngettext("{n} panel", "{n} panels", len(analysis.panels)).format(n=len(analysis.panels)))
    balloons = sum(b.kind in (BalloonKind.SPEECH, BalloonKind.THOUGHT) for b in analysis.blocks)
    if analysis.blocks or not text_unknown(analysis):
        parts.append(ngettext("{n} balloon", "{n} balloons", balloons).format(n=balloons))
    captions = sum(b.kind is BalloonKind.CAPTION for b in analysis.blocks)
    if captions:
        parts.append(ngettext("{n} caption", "{n} captions", captions).format(n=captions))
    sfx = sum(b.kind is BalloonKind.SFX for b in analysis.blocks)
    if sfx:
        parts.append(ngettext("{n} sound effect", "{n} sound effects", sfx).format(n=sfx))
    # one person seen in two panels is two characters with one name: counted once; a name
    # every line of its person hedges is hedged here too
    speakers = heard_speakers(analysis)
    if speakers:
        parts.append(
            ngettext("{n} speaker", "{n} speakers", len(speakers)).format(n=len(speakers))
            + ": "
            + ", ".join(speakers)
        )
    if not parts:
        # Translators: the page overview when nothing on the page could be counted.
        return _("Page {page}.").format(page=analysis.page)
    # Translators: the page overview; {page} is the number, {parts} the counts.
    return _("Page {page}: {parts}.").format(page=analysis.page, parts=", ".join(parts))


def describe_here(analysis: PageAnalysis, panel_id: str | None = None) -> str:
    """What is in a panel (or the page): "2 balloons, Steenie and Dougal speak." """
    blocks = analysis.blocks_of(panel_id) if panel_id is not None else analysis.blocks_in_order()
    if not blocks and text_unknown(analysis):
        # Translators: "where am I" where the page's lettering could not be read (a failure).
        return _("The text here could not be read.")
    if not blocks:
        # Translators: "where am I" for a panel or page without lettering.
        return _("No text here.")
    who = heard_speakers(analysis, panel_id)
    text = ngettext("{n} text block", "{n} text blocks", len(blocks)).format(n=len(blocks))
    if len(who) == 1:
        # Translators: who speaks in the current panel; {name} is one name.
        text += "; " + _("{name} speaks").format(name=who[0])
    elif who:
        # Translators: who speaks in the current panel; {names} is a list of names.
        text += "; " + _("{names} speak").format(names=", ".join(who))
    return text + "."


def where_am_i(
    title: str,
    page: int,
    page_count: int,
    panel: int | None = None,
    panel_count: int | None = None,
    here: str = "",
) -> str:
    """ "Bone, page 4 of 20, panel 2 of 6. 3 text blocks; Steenie speaks." """
    # Translators: "where am I": the book title and page position.
    out = _("{title}, page {page} of {count}").format(title=title, page=page, count=page_count)
    if panel is not None and panel_count:
        # Translators: "where am I": the panel position, appended after the page.
        out += ", " + _("panel {panel} of {count}").format(panel=panel, count=panel_count)
    out += "."
    return f"{out} {here}".strip()
