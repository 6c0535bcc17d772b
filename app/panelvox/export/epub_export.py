"""EPUB 3: the HTML export's content as one XHTML document per page, a title page, a
navigation document (contents and page list), the first page's picture as the cover, and the
package's metadata: ComicInfo's (title, series and number, creators with their roles,
publisher, summary, year, genres, languages) and what the text is (accessibility)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from html import escape
from pathlib import Path

from panelvox.export.book_content import BookMeta, PageContent
from panelvox.export.html_export import STYLE, about_markup, page_markup, toc_markup
from panelvox.export.package import Package
from panelvox.i18n import _, interface_language

CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
"""


def _xhtml(meta: BookMeta, title: str, body: str) -> bytes:
    # The documents speak the interface's language; lettering marks its own (html_export).
    lang = escape(interface_language())
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="{lang}" lang="{lang}">
<head>
<meta charset="utf-8"/>
<title>{escape(title)}</title>
<link rel="stylesheet" type="text/css" href="style.css"/>
</head>
<body>
{body}
</body>
</html>
""".encode()


def _page_file(number: int) -> str:
    return f"page-{number:03d}.xhtml"


def _nav(meta: BookMeta, pages: list[PageContent]) -> bytes:
    toc = "\n".join(
        f'<li><a href="{_page_file(p.number)}#page-{p.number}">{escape(_("Page {n}").format(n=p.number))}</a></li>'
        for p in pages
    )
    # Translators: the heading of the page list in an exported EPUB.
    page_list = escape(_("Pages"))
    body = (
        f'<nav epub:type="toc" id="toc" aria-labelledby="toc-h"><h1 id="toc-h">{escape(_("Contents"))}</h1>\n'
        f'<ol>\n<li><a href="title.xhtml">{escape(meta.title)}</a></li>\n{toc}\n</ol></nav>\n'
        f'<nav epub:type="page-list" hidden="hidden" aria-label="{page_list}"><ol>\n{toc}\n</ol></nav>'
    )
    return _xhtml(meta, _("Contents"), body)


#: MARC relator codes of the creator roles (https://id.loc.gov/vocabulary/relators)
RELATORS = {
    "author": "aut",
    "penciler": "ill",
    "inker": "ill",
    "colorist": "clr",
    "letterer": "ill",
    "artist": "cov",  # ComicInfo's CoverArtist
    "editor": "edt",
}


def _book_metadata(meta: BookMeta) -> str:
    """ComicInfo's facts as the package's Dublin Core and EPUB 3 metadata."""
    out: list[str] = []
    for i, (role, name) in enumerate(meta.creators, 1):
        element = "dc:contributor" if role == "editor" else "dc:creator"
        out.append(f'<{element} id="creator{i}">{escape(name)}</{element}>')
        out.append(
            f'<meta refines="#creator{i}" property="role" scheme="marc:relators">{RELATORS[role]}</meta>'
        )
    if meta.publisher:
        out.append(f"<dc:publisher>{escape(meta.publisher)}</dc:publisher>")
    if meta.summary:
        out.append(f"<dc:description>{escape(meta.summary)}</dc:description>")
    if meta.year:
        out.append(f"<dc:date>{meta.year:04d}</dc:date>")
    out.extend(f"<dc:subject>{escape(genre)}</dc:subject>" for genre in meta.genres)
    if meta.series:
        out.append(f'<meta property="belongs-to-collection" id="series">{escape(meta.series)}</meta>')
        out.append('<meta refines="#series" property="collection-type">series</meta>')
        if meta.number and _position(meta.number):
            out.append(f'<meta refines="#series" property="group-position">{escape(meta.number)}</meta>')
    return "\n".join(out)


def _position(number: str) -> bool:
    """Whether a ComicInfo issue number is a group position (a number, "12" or "1.5")."""
    try:
        float(number)
    except ValueError:
        return False
    return True


def _opf(meta: BookMeta, pages: list[PageContent]) -> bytes:
    modified = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    items = [
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
        '<item id="style" href="style.css" media-type="text/css"/>',
        '<item id="title" href="title.xhtml" media-type="application/xhtml+xml"/>',
    ]
    spine = ['<itemref idref="title"/>']
    for p in pages:
        items.append(
            f'<item id="p{p.number}" href="{_page_file(p.number)}" media-type="application/xhtml+xml"/>'
        )
        # the first page is the cover (what a library's shelf shows for the book)
        cover = ' properties="cover-image"' if p is pages[0] else ""
        items.append(
            f'<item id="img{p.number}" href="images/page-{p.number:03d}.{p.extension}" media-type="{p.image_type}"{cover}/>'
        )
        spine.append(f'<itemref idref="p{p.number}"/>')
    # EPUB 2 reading systems find the cover by this (EPUB 3 by the item's property)
    cover_meta = f'<meta name="cover" content="img{pages[0].number}"/>' if pages else ""
    direction = "rtl" if meta.direction.value != "ltr" else "ltr"
    # The publication is in the interface's language, and holds the book's lettering too.
    languages = "\n".join(
        f"<dc:language>{escape(lang)}</dc:language>"
        for lang in dict.fromkeys((interface_language(), meta.language))
    )
    summary = escape(
        "Each page's picture, described by its panels in reading order and the text of every balloon, "
        "caption and sound effect with who speaks where Panelvox knows it; found by automatic analysis, "
        "so the text may hold recognition errors."
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="{escape(interface_language())}">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="uid">{escape(meta.identifier)}</dc:identifier>
<dc:title>{escape(meta.title)}</dc:title>
{languages}
{_book_metadata(meta)}
<meta property="dcterms:modified">{modified}</meta>
{cover_meta}
<meta property="schema:accessMode">textual</meta>
<meta property="schema:accessMode">visual</meta>
<meta property="schema:accessModeSufficient">textual</meta>
<meta property="schema:accessibilityFeature">structuralNavigation</meta>
<meta property="schema:accessibilityFeature">tableOfContents</meta>
<meta property="schema:accessibilityFeature">readingOrder</meta>
<meta property="schema:accessibilityFeature">alternativeText</meta>
<meta property="schema:accessibilityFeature">pageNavigation</meta>
<meta property="schema:accessibilityHazard">unknown</meta>
<meta property="schema:accessibilitySummary">{summary}</meta>
</metadata>
<manifest>
{chr(10).join(items)}
</manifest>
<spine page-progression-direction="{direction}">
{chr(10).join(spine)}
</spine>
</package>
""".encode()


def write_epub(pages_in: Iterable[PageContent], meta: BookMeta, out: Path) -> Path:
    """The book as an EPUB 3 at ``out``."""
    pages: list[PageContent] = []
    with Package.open(out, zipped=True, first=("mimetype", b"application/epub+zip")) as package:
        package.write_bytes("META-INF/container.xml", CONTAINER.encode())
        package.write_bytes("EPUB/style.css", STYLE.encode())
        for page in pages_in:
            image = f"images/page-{page.number:03d}.{page.extension}"
            package.write_bytes(f"EPUB/{image}", page.image)
            body = page_markup(page, image)
            package.write_bytes(
                f"EPUB/{_page_file(page.number)}", _xhtml(meta, _("Page {n}").format(n=page.number), body)
            )
            pages.append(_without_image(page))
        title_body = about_markup(meta) + "\n" + toc_markup(pages, _page_file)
        package.write_bytes("EPUB/title.xhtml", _xhtml(meta, meta.title, title_body))
        package.write_bytes("EPUB/nav.xhtml", _nav(meta, pages))
        package.write_bytes("EPUB/package.opf", _opf(meta, pages))
    return out


def _without_image(page: PageContent) -> PageContent:
    """Keep the page's facts, not its picture (already written)."""
    return replace(page, image=b"", sections=())
