"""Exports mark language per element: the documents in the interface's language ("Page 1",
"Panel 1", the speakers' labels), the lettering in its own (``lang="ja"`` on its element).
A Japanese page is written as HTML and EPUB and checked by axe-core and epubcheck."""

from __future__ import annotations

import html.parser
import io
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from chromium_cdp import Browser, missing_tools
from page_fixtures import exchange
from PIL import Image

from panelvox.export.book_content import BookMeta, PageContent, export_prefs, page_lines, sections
from panelvox.export.epub_export import write_epub
from panelvox.export.html_export import said_markup, write_html
from panelvox.model import ReadingDirection
from panelvox.narration.prefs import NarrationPrefs

EPUBCHECK = Path("/usr/share/java/epubcheck.jar")
LINES = ("そんな借金なんて!", "レーネさん、大丈夫?")


def test_the_lettering_carries_its_language_and_the_narration_the_interfaces() -> None:
    markup = said_markup("Character 1: そんな借金なんて!", "そんな借金なんて!", "ja", "en")
    assert markup == 'Character 1: <span lang="ja" xml:lang="ja">そんな借金なんて!</span>'
    assert said_markup("Kala: We help him.", "We help him.", "en", "en") == "Kala: We help him."
    # a notice quoting Japanese (its words are not the lettering): each run of Japanese marked
    assert said_markup("Title: 借金", "", "en", "en") == 'Title: <span lang="ja" xml:lang="ja">借金</span>'


class _Langs(html.parser.HTMLParser):
    """The language each piece of text is in, by the nearest ``lang`` around it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str | None]] = []
        self.text: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("img", "meta", "link", "br"):
            self.stack.append((tag, dict(attrs).get("lang")))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        lang = next((lang for _t, lang in reversed(self.stack) if lang), "")
        if data.strip():
            self.text.append((data.strip(), lang))


def _japanese_page() -> tuple[PageContent, BookMeta]:
    analysis = exchange(*LINES)
    lines = page_lines(analysis, export_prefs(NarrationPrefs()))
    buf = io.BytesIO()
    Image.new("RGB", (800, 600), "white").save(buf, "JPEG")
    page = PageContent(
        1, 800, 600, "Page 1: 1 panel, 2 balloons.", sections(analysis, lines), buf.getvalue(), "image/jpeg"
    )
    meta = BookMeta(
        "借金の話", None, None, (), None, None, "ja", ReadingDirection.RTL, 1, "urn:panelvox:test-ja"
    )
    return page, meta


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ja")
    page, meta = _japanese_page()
    write_html([page], meta, out / "book.html")
    write_epub([page], meta, out / "book.epub")
    return out


def test_html_is_english_with_japanese_lettering(written: Path) -> None:
    doc = (written / "book.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in doc
    parser = _Langs()
    parser.feed(doc)
    langs = dict(parser.text)
    assert all(langs[line] == "ja" for line in LINES)
    assert langs["借金の話"] == "ja"  # the title, as lettered
    assert langs["Page 1"] == "en" and langs["Panel 1"] == "en"
    assert any(text.startswith("Someone") and lang == "en" for text, lang in parser.text)


def test_epub_pages_mark_the_lettering_and_list_both_languages(written: Path) -> None:
    with zipfile.ZipFile(written / "book.epub") as zf:
        opf = zf.read("EPUB/package.opf").decode()
        page = zf.read("EPUB/page-001.xhtml").decode()
    assert 'xml:lang="en" lang="en"' in page
    assert f'<span lang="ja" xml:lang="ja">{LINES[0]}</span>' in page
    assert "<dc:language>en</dc:language>\n<dc:language>ja</dc:language>" in opf


@pytest.mark.slow
def test_japanese_html_has_no_axe_violations(written: Path) -> None:
    if (why := missing_tools()) is not None:
        pytest.skip(why)
    browser = Browser()
    try:
        browser.open(written / "book.html")
        result: dict[str, Any] = browser.axe(best_practices=True)
    finally:
        browser.close()
    assert result["violations"] == []
    assert result["passes"] > 10


@pytest.mark.slow
def test_japanese_epub_passes_epubcheck(written: Path) -> None:
    if not EPUBCHECK.is_file() or shutil.which("java") is None:
        pytest.skip("Debian's epubcheck (and Java) is not installed (scripts/setup installs it)")
    proc = subprocess.run(
        ["java", "-jar", str(EPUBCHECK), str(written / "book.epub")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No errors or warnings detected." in proc.stdout, proc.stdout
