"""Accessible HTML: one self-contained file per book (pictures inline), ``h1`` the book,
``h2`` each page, ``h3`` each panel, then every line as the narration says it ("Kala: …",
"Sound: …"), a skip link and a table of contents. The page markup is shared with the EPUB.

Each line's words are in ``<span class="said">``: exactly what ``narrate --text`` prints.
The document is in the interface's language (its headings, "Panel 1", the speakers'
labels); lettering in another language carries its own ``lang`` on its element, so a screen
reader says "Page 1" with the reader's voice and the balloon's words with a voice of theirs.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path

from panelvox.export.book_content import BookMeta, Line, PageContent, Section
from panelvox.export.package import write_file_atomic
from panelvox.i18n import _, interface_language
from panelvox.languages import detect_language, language_runs
from panelvox.narration.prefs import UtteranceKind

STYLE = """
body { font-family: system-ui, sans-serif; font-size: 1.125em; line-height: 1.6; margin: 0 auto; max-width: 48rem; padding: 0 1rem 3rem;
  color: #111; background: #fff; }
a { color: #0b4ea2; }
a:focus, main:focus { outline: 3px solid #b00020; outline-offset: 2px; }
.skip { position: absolute; left: -999rem; }
.skip:focus { position: static; display: inline-block; margin: 0.5rem 0; padding: 0.5rem; background: #ffe; }
img { max-width: 100%; height: auto; border: 1px solid #555; }
.kind { font-weight: bold; }
.notice { font-style: italic; color: #333; }
.uncertain .said { text-decoration: underline dotted; }
"""


def lang_span(text: str, language: str, interface: str | None = None) -> str:
    """``text`` escaped, inside a span with its ``lang`` when it is not the interface's
    (``lang`` and ``xml:lang`` both: the same markup serves HTML and the EPUB's XHTML)."""
    ui = interface or interface_language()
    if not text or not language or language.split("-")[0] == ui:
        return escape(text)
    lang = escape(language)
    return f'<span lang="{lang}" xml:lang="{lang}">{escape(text)}</span>'


def said_markup(text: str, words: str, language: str, interface: str | None = None) -> str:
    """An utterance as heard, its lettering (``words``, in ``language``) marked with its own
    language and the narration around it ("Character 1 says:") in the interface's."""
    ui = interface or interface_language()
    at = text.find(words) if words else -1
    if at >= 0 and language:
        end = at + len(words)
        return escape(text[:at]) + lang_span(words, language, ui) + escape(text[end:])
    # the words are not found as said (a notice): mark each run of another script
    return "".join(lang_span(piece, lang, ui) for piece, lang in language_runs(text, ui))


def line_markup(line: Line) -> str:
    """One utterance as a paragraph; captions, sounds and notices say what they are, once (a
    title says "Title:", no "Caption:" before it). The narration's "Order unclear." is a
    remark on the panel: a note of its own before the line, never inside its words."""
    utt = line.utterance
    heard = line.heard
    said = f'<span class="said">{said_markup(heard, utt.words, utt.language)}</span>'
    classes = [line.kind.value] + (["uncertain"] if line.utterance.uncertain else [])
    label = ""
    # Translators: marks a caption box in an exported page (before its text).
    caption = _("Caption:")
    if line.kind is UtteranceKind.CAPTION and not line.title and not heard.startswith(caption):
        label = f'<span class="kind">{escape(caption)}</span> '
    elif line.kind is UtteranceKind.NOTICE:
        classes.append("notice")
        label = f'<span class="kind">{escape(_note())}</span> '
    out = f'<p class="{" ".join(classes)}">{label}{said}</p>'
    if line.order_unclear:
        # Translators: a note before the first line of an exported panel whose line order is a guess.
        order = escape(_("The order of this panel's lines is a guess."))
        out = f'<p class="notice order"><span class="kind">{escape(_note())}</span> {order}</p>\n' + out
    return out


def _note() -> str:
    # Translators: marks a remark of Panelvox itself in an exported page.
    return _("Note:")


def section_markup(section: Section, page: int, index: int) -> str:
    """One panel (or the text outside the panels) under its heading; ``index`` keeps the
    heading's id unique when a panel's lines come in two runs (text outside panels between).

    A panel is a heading and its lines, not a landmark: every page has a "Panel 1", and a
    landmark's name must be unique in the document (the page is the landmark)."""
    if section.panel is None and not any(line.block for line in section.lines):
        return "\n".join(line_markup(line) for line in section.lines)  # the page's own notices
    title = (
        # Translators: heading for text outside every panel of an exported page.
        _("Outside the panels")
        if section.panel is None
        # Translators: heading of one panel in an exported page; {n} is its reading number.
        else _("Panel {n}").format(n=section.number)
    )
    body = [line_markup(line) for line in section.lines] or [
        # Translators: an exported panel with no lettering.
        f'<p class="notice">{escape(_("No text."))}</p>'
    ]
    anchor = f"page-{page}-part-{index}"
    return f'<div class="panel">\n<h3 id="{anchor}">{escape(title)}</h3>\n' + "\n".join(body) + "\n</div>"


def page_markup(page: PageContent, src: str) -> str:
    """The page's section: heading, picture (alt: the overview), then its panels."""
    # Translators: heading of one page in an exported book; {n} is its number.
    title = escape(_("Page {n}").format(n=page.number))
    parts = [
        f'<section id="page-{page.number}" aria-labelledby="page-{page.number}-h">',
        f'<h2 id="page-{page.number}-h">{title}</h2>',
        f'<p><img src="{escape(src)}" alt="{escape(page.overview)}" width="{page.width}" height="{page.height}"/></p>',
        *(section_markup(s, page.number, i) for i, s in enumerate(page.sections, 1)),
        "</section>",
    ]
    return "\n".join(parts)


def about_markup(meta: BookMeta) -> str:
    """The book's heading block: title, series, creators, summary, and what the text is."""
    parts = [f"<h1>{lang_span(meta.title, detect_language(meta.title))}</h1>"]
    if meta.series and meta.series != meta.title:
        # Translators: the series line of an exported book; {series} name, {number} issue.
        parts.append(
            f"<p>{escape(_('Series: {series} {number}').format(series=meta.series, number=meta.number or '').strip())}</p>"
        )
    if meta.creators:
        names = ", ".join(f"{name} ({role})" for role, name in meta.creators)
        # Translators: the creators of an exported book; {names} e.g. "Ann (author)".
        parts.append(f"<p>{escape(_('By {names}').format(names=names))}</p>")
    if meta.publisher:
        # Translators: the publisher line of an exported book.
        parts.append(f"<p>{escape(_('Published by {name}').format(name=meta.publisher))}</p>")
    if meta.summary:
        parts.append(f"<p>{lang_span(meta.summary, detect_language(meta.summary))}</p>")
    parts.append(
        "<p>"
        + escape(
            # Translators: says how the text of an exported book was made.
            _(
                "The panels, their order, the text and who speaks were found by Panelvox's automatic "
                "analysis: the text may hold recognition errors, and lines marked uncertain are guesses."
            )
        )
        + "</p>"
    )
    return "\n".join(parts)


def toc_markup(pages: Iterable[PageContent], file_of: Callable[[int], str] = lambda _n: "") -> str:
    """The contents: one link per page (``file_of`` a page's file, when pages are files)."""
    items = "\n".join(
        f'<li><a href="{file_of(p.number)}#page-{p.number}">{escape(_("Page {n}").format(n=p.number))}</a></li>'
        for p in pages
    )
    # Translators: heading of the table of contents of an exported book.
    return f'<nav aria-labelledby="toc"><h2 id="toc">{escape(_("Contents"))}</h2>\n<ol>\n{items}\n</ol></nav>'


def html_document(meta: BookMeta, pages: list[PageContent]) -> str:
    body = "\n".join(
        page_markup(p, f"data:{p.image_type};base64,{base64.b64encode(p.image).decode('ascii')}")
        for p in pages
    )
    # Translators: the skip link at the top of an exported book.
    skip = escape(_("Skip to the pages"))
    return f"""<!DOCTYPE html>
<html lang="{escape(interface_language())}">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{escape(meta.title)}</title>
<style>{STYLE}</style>
</head>
<body>
<a class="skip" href="#main">{skip}</a>
<header>
{about_markup(meta)}
</header>
{toc_markup(pages)}
<main id="main" tabindex="-1">
{body}
</main>
</body>
</html>
"""


def write_html(pages: Iterable[PageContent], meta: BookMeta, out: Path) -> Path:
    """The book as one HTML file at ``out``."""
    return write_file_atomic(out, html_document(meta, list(pages)).encode("utf-8"))
