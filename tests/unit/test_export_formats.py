"""``panelvox export`` of the sample books in the four formats, checked by what reads them:
Readium's schemas, ``narrate --text``, headless Chromium with axe-core and the keyboard,
epubcheck, SoX."""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import readium_gn
from chromium_cdp import Browser, missing_tools
from export_env import SAMPLES, module_home, narrated_pages

from panelvox.cli import main

pytestmark = pytest.mark.slow
EPUBCHECK = Path("/usr/share/java/epubcheck.jar")


@dataclass
class Exported:
    book: Path
    out: Path
    narrated: dict[int, list[str]] = field(default_factory=dict)

    def path(self, fmt: str) -> Path:
        return (
            self.out
            / {"divina": "folder", "divina-zip": "book.divina", "html": "book.html", "epub": "book.epub"}[fmt]
        )


@pytest.fixture(scope="module", params=sorted(SAMPLES))
def exported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each sample book exported as DiViNa (folder and .divina), HTML and EPUB, and narrated."""
    book = SAMPLES[request.param]
    root = tmp_path_factory.mktemp(request.param)
    with module_home(root / "home"):
        done = Exported(book, root / "out")
        for fmt, name in (
            ("divina", "folder"),
            ("divina", "book.divina"),
            ("html", "book.html"),
            ("epub", "book.epub"),
        ):
            assert main(["export", str(book), "--format", fmt, "--out", str(done.out / name)]) == 0
        done.narrated = narrated_pages(book)
        yield done


# -- Guided Navigation ---------------------------------------------------------------------------


def _bubbles(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The blocks of a page object in document order (children of panels, and loose ones)."""
    out = []
    for child in obj.get("children", []):
        if "text" in child and "children" not in child:
            out.append(child)
        else:
            out.extend(_bubbles(child))
    return out


def test_guided_navigation_is_schema_valid(exported: Exported) -> None:
    if (why := readium_gn.available()) is not None:
        pytest.skip(why)
    for doc in (
        json.loads((exported.path("divina") / "guided.json").read_text(encoding="utf-8")),
        json.loads(zipfile.ZipFile(exported.path("divina-zip")).read("guided.json")),
    ):
        assert readium_gn.errors(doc) == []
        assert len(doc["guided"]) == len(exported.narrated)


def test_manifest_is_a_divina_with_the_books_metadata(exported: Exported) -> None:
    folder = exported.path("divina")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    meta = manifest["metadata"]
    assert meta["conformsTo"] == "https://readium.org/webpub-manifest/profiles/divina"
    assert meta["readingProgression"] == ("rtl" if "rtl" in exported.book.name else "ltr")
    assert meta["title"] in {"Mysterious Treasure", "The Late Train"}
    assert {"readingOrder", "transcript"} <= set(meta["accessibility"]["feature"])
    assert {
        "rel": "related",
        "href": "guided.json",
        "type": "application/guided-navigation+json",
    } in manifest["links"]
    for link in manifest["readingOrder"]:
        assert (folder / link["href"]).is_file()
        assert link["alternate"] == [{"href": "guided.json", "type": "application/guided-navigation+json"}]
    with zipfile.ZipFile(exported.path("divina-zip")) as zf:
        assert json.loads(zf.read("manifest.json"))["readingOrder"] == manifest["readingOrder"]


def _speaker_said(line: str) -> str | None:
    """The speaker a narrated line says before its words ("Probably Kala: …"), or None."""
    m = re.match(r"(?:Uncertain: )?(.+?)(?::| thinks:) ", line)
    return m.group(1) if m else None


def test_bubbles_say_what_narrate_says_in_its_order(exported: Exported) -> None:
    """Every block's words, in order, end the line ``narrate --text`` says for it, and every
    bubble whose speaker the narration says carries it as ``character``: a name said plainly
    as the name, a guessed name marked as a guess ("probably Kala"), an unnamed person's
    number as said ("character 2")."""
    guided = json.loads((exported.path("divina") / "guided.json").read_text(encoding="utf-8"))["guided"]
    said = _html_lines(exported.path("html").read_text(encoding="utf-8"))
    characters: list[str] = []
    for number, page in enumerate(guided, 1):
        blocks = _bubbles(page)
        lines = [text for text, kind in said[number] if "notice" not in kind]
        assert len(blocks) == len(lines), f"page {number}"
        for block, line in zip(blocks, lines, strict=True):
            assert line.endswith(block["text"]["plain"]), (line, block)
            speaker = (
                _speaker_said(line) if block.get("role") in (["speechBubble"], ["thoughtBubble"]) else None
            )
            if speaker is None or speaker == "Someone":
                assert "character" not in block, (line, block)
                continue
            [character] = block["character"]
            characters.append(character)
            if speaker.startswith("Probably "):
                assert character == f"probably {speaker.removeprefix('Probably ')}"
            elif speaker.startswith("Character "):  # names nobody: as the narration says it
                assert character.casefold() == speaker.casefold()
            else:
                assert character == speaker  # a name the narration says plainly
    assert characters, "no bubble carries its speaker"
    panels = [c for page in guided for c in page.get("children", []) if c.get("role") == ["panel"]]
    assert panels and all("#xywh=percent:" in p["imgref"] for p in panels)


def test_the_sample_books_page_1_says_kala(exported: Exported) -> None:
    """Kala speaks on the sample book's first page and the narration names him there."""
    if exported.book.name != "sample.cbz":
        pytest.skip("the named speakers are the sample book's")
    guided = json.loads((exported.path("divina") / "guided.json").read_text(encoding="utf-8"))["guided"]
    page_1 = {c for b in _bubbles(guided[0]) for c in b.get("character", [])}
    assert page_1 & {"Kala", "probably Kala"}


# -- HTML --------------------------------------------------------------------------------------


class _Said(html.parser.HTMLParser):
    """Per page (``section#page-N``): the text of each ``span.said`` and its paragraph's class."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: dict[int, list[tuple[str, str]]] = {}
        self.page = 0
        self.p_class = ""
        self.depth = 0
        self.alts: dict[int, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and (a.get("id") or "").startswith("page-") and (a.get("id") or "")[5:].isdigit():
            self.page = int((a.get("id") or "")[5:])
            self.pages[self.page] = []
        elif tag == "p":
            self.p_class = a.get("class") or ""
        elif tag == "img":
            self.alts[self.page] = a.get("alt") or ""
        elif tag == "span" and a.get("class") == "said":
            self.depth = 1
            self.pages[self.page].append(("", self.p_class))
        elif tag == "span" and self.depth:
            self.depth += 1  # lettering in its own language: <span lang="ja"> inside the line

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            text, kind = self.pages[self.page][-1]
            self.pages[self.page][-1] = (text + data, kind)


def _html_lines(doc: str) -> dict[int, list[tuple[str, str]]]:
    parser = _Said()
    parser.feed(doc)
    return parser.pages


def _without_order_cue(narrated: dict[int, list[str]]) -> dict[int, list[str]]:
    """The narration's lines less its "Order unclear." cue, which an export says apart."""
    return {n: [line.removeprefix("Order unclear. ") for line in lines] for n, lines in narrated.items()}


def test_html_says_exactly_the_narration(exported: Exported) -> None:
    """Every line as ``narrate --text`` says it; "Order unclear." as a note of its own before
    the line, never inside a caption's or a balloon's words; "Title:" never after "Caption:"."""
    doc = exported.path("html").read_text(encoding="utf-8")
    parser = _Said()
    parser.feed(doc)
    assert {n: [t for t, _k in lines] for n, lines in parser.pages.items()} == _without_order_cue(
        exported.narrated
    )
    cued = sum(line.startswith("Order unclear. ") for lines in exported.narrated.values() for line in lines)
    assert doc.count('<p class="notice order">') == cued
    assert "Caption:</span> Title:" not in doc and "Caption: Title:" not in doc
    assert doc.count("<h1>") == 1 and doc.count('<h2 id="page-') == len(exported.narrated)
    assert '<html lang="en">' in doc
    assert all(alt.startswith(f"Page {n}: ") for n, alt in parser.alts.items())


@pytest.fixture(scope="module")
def browser() -> Any:
    if (why := missing_tools()) is not None:
        pytest.skip(why)
    b = Browser()
    yield b
    b.close()


def test_html_has_no_axe_violations(exported: Exported, browser: Browser) -> None:
    """Every axe rule, best practices included (landmark-unique, region …), at every impact."""
    browser.open(exported.path("html"))
    result = browser.axe(best_practices=True)
    assert result["violations"] == []
    assert result["passes"] > 10  # the rules really ran on a real page


def test_html_is_usable_by_keyboard(exported: Exported, browser: Browser) -> None:
    browser.open(exported.path("html"))
    focused = "document.activeElement"
    browser.tab()
    assert browser.evaluate(f"{focused}.className") == "skip"
    assert browser.evaluate(f"getComputedStyle({focused}).outlineStyle") != "none"  # focus is visible
    assert browser.evaluate(f"{focused}.getBoundingClientRect().width") > 0  # and shown on screen
    browser.enter()
    assert browser.evaluate(f"{focused}.id") == "main"
    last = max(exported.narrated)
    browser.open(exported.path("html"))
    for _ in range(1 + last):  # the skip link, then one link per page
        browser.tab()
    assert browser.evaluate(f"{focused}.getAttribute('href')") == f"#page-{last}"
    browser.enter()
    assert browser.evaluate("location.hash") == f"#page-{last}"
    top = browser.evaluate(f"document.getElementById('page-{last}').getBoundingClientRect().top")
    assert abs(top) < 5  # the page's section is where the reader is now


# -- EPUB --------------------------------------------------------------------------------------


def test_epub_passes_epubcheck(exported: Exported) -> None:
    if not EPUBCHECK.is_file() or shutil.which("java") is None:
        pytest.skip("Debian's epubcheck (and Java) is not installed (scripts/setup installs it)")
    proc = subprocess.run(
        ["java", "-jar", str(EPUBCHECK), str(exported.path("epub"))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No errors or warnings detected." in proc.stdout, proc.stdout


def test_epub_has_a_cover_and_the_comicinfo_metadata(exported: Exported) -> None:
    """The sample books' ComicInfo (series and number, summary, publisher, genre, creators) in
    the package, and the first page's picture as the cover."""
    with zipfile.ZipFile(exported.path("epub")) as zf:
        opf = zf.read("EPUB/package.opf").decode()
    assert (
        '<item id="img1" href="images/page-001.jpg" media-type="image/jpeg" properties="cover-image"/>' in opf
    )
    assert opf.count('properties="cover-image"') == 1
    if exported.book.name == "sample.cbz":
        assert "<dc:publisher>Brown Shoe Company</dc:publisher>" in opf
        assert "<dc:subject>Adventure</dc:subject>" in opf
        series, summary = "Buster Brown Comics", "Adventurer Chad Billow and his young friend Kala"
    else:
        assert '<dc:creator id="creator1">The Panelvox project</dc:creator>' in opf
        assert '<meta refines="#creator1" property="role" scheme="marc:relators">aut</meta>' in opf
        series, summary = "Panelvox Samples", "A girl keeps an old man company"
    assert f'<meta property="belongs-to-collection" id="series">{series}</meta>' in opf
    assert '<meta refines="#series" property="collection-type">series</meta>' in opf
    assert '<meta refines="#series" property="group-position">' in opf
    assert f"<dc:description>{summary}" in opf


def test_epub_has_the_pages_navigation_and_accessibility_metadata(exported: Exported) -> None:
    with zipfile.ZipFile(exported.path("epub")) as zf:
        assert zf.namelist()[0] == "mimetype" and zf.read("mimetype") == b"application/epub+zip"
        opf = zf.read("EPUB/package.opf").decode()
        nav = zf.read("EPUB/nav.xhtml").decode()
        pages = sorted(n for n in zf.namelist() if n.startswith("EPUB/page-"))
        first = zf.read(pages[0]).decode()
    assert len(pages) == len(exported.narrated)
    assert 'epub:type="toc"' in nav and 'epub:type="page-list"' in nav
    for feature in ("structuralNavigation", "alternativeText", "readingOrder"):
        assert f'<meta property="schema:accessibilityFeature">{feature}</meta>' in opf
    said = _html_lines(first)
    assert [t for t, _k in said[1]] == _without_order_cue(exported.narrated)[1]
