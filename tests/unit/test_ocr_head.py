"""The Latin recognition head: made from the wheel's model, verified, used for a book in a
Latin-script language (ComicInfo LanguageISO), never for a Japanese one; the analysis cache
keeps the two apart; foreign script in a book of known language is not said."""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from panelvox.analysis.block_roles import tell_roles
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer
from panelvox.analysis.lettering import WordList
from panelvox.analysis.lexicon import LetteringLexicon
from panelvox.analysis.text_stage import TextStage
from panelvox.books import open_book
from panelvox.checksum import sha256_of
from panelvox.errors import DatasetError, ModelNotSaved, ModelUnavailable
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, ReadingDirection, TextLine
from panelvox.models import ocr_head
from panelvox.models.ocr import BUNDLED_REC, OcrConfig, OcrEngine, crop_quad, rapidocr_models_dir
from panelvox.models.ocr_head import (
    FULL,
    LATIN,
    LATIN_FILENAME,
    LATIN_SHA256,
    LATIN_UNDETERMINED,
    head_for,
    latin_model,
)

ASSETS = Path(__file__).resolve().parents[2] / "assets"
LTR = ReadingDirection.LTR


def test_the_head_follows_the_language() -> None:
    for lang in ("en", "fr", "de", "es", "it", "pt", "nl", "sv", "pl", "tr", "EN"):
        assert head_for(lang) == LATIN, lang
    for lang in ("ja", "zh", "ko", "ru", "ar", "vi", "", None):
        assert head_for(lang) == FULL, lang


def test_the_latin_classes_keep_blank_space_letters_and_typography() -> None:
    charset = ["", "A", "é", "前", "’", "…", "Ж", "！", "ș", " "]
    keep = ocr_head.latin_classes(charset)
    assert keep == [0, 1, 2, 4, 5, 8, 9]  # blank first, space last; no kanji, Cyrillic, full-width


def test_the_book_language_comes_from_comicinfo(tmp_path: Path) -> None:
    book = _book_with_language(tmp_path, "en-US")
    with open_book(book) as b:
        assert b.language == "en"


@pytest.mark.slow
def test_the_latin_head_is_made_verified_and_made_again_when_damaged(tmp_path: Path) -> None:
    source = rapidocr_models_dir() / BUNDLED_REC.filename
    made = latin_model(source, BUNDLED_REC.sha256, tmp_path)
    assert made == tmp_path / LATIN_FILENAME and sha256_of(made) == LATIN_SHA256
    made.write_bytes(b"damaged")
    assert latin_model(source, BUNDLED_REC.sha256, tmp_path) == made
    assert sha256_of(made) == LATIN_SHA256
    with pytest.raises(ModelUnavailable) as err:  # not the model it is made from
        latin_model(made, BUNDLED_REC.sha256, tmp_path / "other")
    assert "is not the model" in err.value.detail


@pytest.mark.slow
def test_a_head_that_does_not_come_out_as_pinned_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(ocr_head, "LATIN_SHA256", "0" * 64)
    engine = OcrEngine(OcrConfig(made_models=tmp_path))
    assert engine.head(LATIN) is engine.head(FULL)  # the full model, with a log line
    assert "Latin recognition head not used" in caplog.text
    assert not list(tmp_path.glob("*.onnx"))  # nothing unverified is kept


@pytest.mark.slow
def test_a_head_that_cannot_be_kept_is_made_in_a_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A models folder that is a file (a read-only or full home alike): the Latin head is
    still made, in a temporary folder that is gone once it is loaded (issue 32: the folder
    was made outside the error handling, and the page's text stage failed)."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    source = rapidocr_models_dir() / BUNDLED_REC.filename
    with pytest.raises(ModelNotSaved):
        latin_model(source, BUNDLED_REC.sha256, blocked / "models")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    engine = OcrEngine(OcrConfig(made_models=blocked / "models"))
    latin = engine.head(LATIN)
    assert FULL not in engine._heads and len(latin.decoder.charset) < 400
    assert list(scratch.iterdir()) == []  # removed once loaded
    # no temporary folder either: the full model reads the page
    monkeypatch.setattr(tempfile, "tempdir", str(blocked))
    engine = OcrEngine(OcrConfig(made_models=blocked / "models"))
    assert engine.head(LATIN) is engine.head(FULL)


def _line(text: str) -> np.ndarray:
    img = Image.new("RGB", (620, 64), "white")
    ImageDraw.Draw(img).text((12, 8), text, fill="black", font=ImageFont.load_default(size=40))
    return np.asarray(img)


@pytest.mark.slow
def test_the_latin_head_reads_latin_lines_and_nothing_else(tmp_path: Path) -> None:
    engine = OcrEngine(OcrConfig(made_models=tmp_path))
    latin = engine.head(LATIN)
    assert FULL not in engine._heads  # each head is loaded when first needed
    allowed = set(latin.decoder.charset)
    assert len(allowed) < 400 < len(engine.head(FULL).decoder.charset)
    assert set(engine._heads) == {FULL}  # one recognition model held at a time
    lines = [_line("WHERE DID HE GO?"), _line("Ça m’étonne… déjà!")]
    full = engine.recognize(lines, head=FULL)
    cut = engine.recognize(lines, head=LATIN)
    assert [r.text for r in cut] == [r.text for r in full]
    assert cut[0].text == "WHERE DID HE GO?"
    # Japanese lettering (real pages, when the evaluation data is here): the full model reads
    # kanji and kana; the Latin head cannot give a character outside its classes
    try:
        from panelvox.eval.loaders import load_dataset

        page = load_dataset("openmantra").pages[0]
    except DatasetError:
        pytest.skip("no evaluation data: the Japanese half needs ../shared/data/openmantra")
    image = np.asarray(Image.open(page.image_path).convert("RGB"))
    dets = engine.detect(image)[:12]
    crops = [crop_quad(image, d.quad, vertical=d.height >= 1.5 * d.width) for d in dets]
    read_full = "".join(r.text for r in engine.recognize(crops, head=FULL))
    read_latin = "".join(r.text for r in engine.recognize(crops, head=LATIN))
    assert any(not c.isascii() and c.isalpha() for c in read_full)  # Japanese was read
    assert set(read_latin) <= allowed


def _book_with_language(tmp_path: Path, language: str) -> Path:
    """The sample book with its ComicInfo's LanguageISO set to ``language``, first page only."""
    out = tmp_path / f"book-{language}.cbz"
    with zipfile.ZipFile(ASSETS / "sample.cbz") as src, zipfile.ZipFile(out, "w") as dst:
        pages = sorted(n for n in src.namelist() if n.lower().endswith((".jpg", ".jpeg", ".png")))
        dst.writestr(pages[0], src.read(pages[0]))
        info = src.read("ComicInfo.xml").decode("utf-8")
        dst.writestr(
            "ComicInfo.xml",
            info.replace("<LanguageISO>en</LanguageISO>", f"<LanguageISO>{language}</LanguageISO>"),
        )
    return out


@pytest.mark.slow
def test_an_english_book_is_read_with_the_latin_head_a_japanese_one_with_the_full_model(
    tmp_path: Path,
) -> None:
    # with the int8 detector too: the precision is the detector's, the head the recogniser's
    engine = OcrEngine(OcrConfig(made_models=tmp_path, precision="int8"))
    analyzer = PageAnalyzer([TextStage(engine)], AnalysisCache(tmp_path / "cache", "v1"))
    with open_book(_book_with_language(tmp_path, "ja")) as book:
        ja = analyzer.analyze_page(book, 1, LTR)
    assert ja.language == "ja" and LATIN not in engine._heads  # the Latin head was never made
    with open_book(_book_with_language(tmp_path, "en")) as book:
        en = analyzer.analyze_page(book, 1, LTR)
    # one recognition model held at a time: the English page released the full one
    assert en.language == "en" and set(engine._heads) == {LATIN}
    assert sha256_of(tmp_path / LATIN_FILENAME) == LATIN_SHA256
    assert en.lines and all(set(ln.text) <= set(engine._heads[LATIN].decoder.charset) for ln in en.lines)


def test_the_cache_never_serves_a_page_read_with_the_other_head(tmp_path: Path) -> None:
    cache = AnalysisCache(tmp_path, "v1")
    cache.put("b" * 64, PageAnalysis(1, 10, 10, LTR, language="en"))
    assert cache.get("b" * 64, 1, LTR, "ja") is None
    assert cache.get("b" * 64, 1, LTR, None) is None
    hit = cache.get("b" * 64, 1, LTR, "fr")  # the same head: the same reading
    assert hit is not None and hit.language == "en"
    assert {p.name for p in tmp_path.rglob("*.json")} == {"00001-ltr-latin.json"}


@dataclass
class _Book:
    language: str | None
    path: Path = Path("book.cbz")
    content_hash: str = "c" * 64

    def load_page_array(self, index: int) -> np.ndarray:
        return np.zeros((20, 30, 3), dtype=np.uint8)


def test_the_analyzer_gives_the_pages_the_books_language(tmp_path: Path) -> None:
    seen: list[str | None] = []

    class Stage:
        name = "text"

        def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
            seen.append(analysis.language)
            return analysis

    analyzer = PageAnalyzer([Stage()], AnalysisCache(tmp_path, "v1"))
    assert analyzer.analyze_page(_Book("de"), 1, LTR).language == "de"
    assert analyzer.analyze_page(_Book(None), 1, LTR).language is None
    assert analyzer.analyze_page(_Book("de"), 1, LTR).language == "de"  # from the cache
    assert seen == ["de", None]
    again = PageAnalysis.from_json(PageAnalysis(1, 10, 10, LTR, language="de").to_json())
    assert again.language == "de"


def test_a_book_that_names_no_language_is_read_latin_once_a_page_shows_latin_lettering(
    tmp_path: Path,
) -> None:
    seen: list[str | None] = []
    lettering = {
        "a" * 64: ["TOO SHORT"] + ["HI!"] * 2,  # page 1: too little lettering to tell
        "b" * 64: ["WELL, I'LL BE DOGGONED! IF IT ISN'T MY OLD PAL FROM THE SEA HAWK!"] * 3
        + ["前見"],  # a stray misreading into another script does not count against it
        "d" * 64: ["なんだって！？ そんなことがあるものか、このばかものめ！"] * 3 + ["OK!"],
    }

    class Stage:
        name = "text"

        def __call__(self, image: np.ndarray, analysis: PageAnalysis) -> PageAnalysis:
            seen.append(analysis.language)
            texts = lettering[book.content_hash] if analysis.page == 1 else ["MORE"]
            blocks = tuple(
                Balloon(f"b{k}", BalloonKind.SPEECH, BBox(0, 0, 10, 10), t, 0.9, "t")
                for k, t in enumerate(texts)
            )
            return replace(analysis, blocks=blocks)

    analyzer = PageAnalyzer([Stage()], AnalysisCache(tmp_path, "v1"))
    for content in ("a" * 64, "b" * 64, "d" * 64):
        book = _Book(None, content_hash=content)
        seen.clear()
        first, second = (analyzer.analyze_page(book, n, LTR) for n in (1, 2))
        assert first.language is None and seen[0] is None  # read with the full model first
        if content == "b" * 64:  # Latin lettering: the Latin head from the next page on
            assert second.language == LATIN_UNDETERMINED and head_for(second.language) == LATIN
        else:  # too little to tell, or Japanese: the full model stays
            assert second.language is None
    # a book that names its language is read in it, whatever its pages show
    assert analyzer.analyze_page(_Book("ja", content_hash="b" * 64), 3, LTR).language == "ja"
    assert head_for("und-Latn") == LATIN and head_for("und-Jpan") == FULL and head_for("sr-Latn") == LATIN


def test_foreign_script_in_a_book_of_known_language_is_not_said() -> None:
    words = WordList.load()
    lexicon = LetteringLexicon(words)
    lines = [
        TextLine("t1", BBox(50, 600, 300, 620), "HELLO THERE", 0.95, "test"),
        TextLine("t2", BBox(600, 200, 700, 240), "前見商兵", 0.95, "test", script="japanese"),
    ]
    blocks = [
        Balloon(
            "b1", BalloonKind.CAPTION, BBox(40, 590, 310, 630), "HELLO THERE", 0.9, "test", lines=("t1",)
        ),
        Balloon(
            "b2",
            BalloonKind.OTHER,
            BBox(600, 200, 700, 240),
            "前見商兵",
            0.9,
            "test",
            lines=("t2",),
            language="ja",
        ),
    ]
    # too few lines for the page to tell its own script: only the book's language can
    assert [b.id for b in tell_roles(blocks, lines, 1400, words, lexicon)] == ["b1", "b2"]
    assert [b.id for b in tell_roles(blocks, lines, 1400, words, lexicon, "en")] == ["b1"]
    assert [b.id for b in tell_roles(blocks, lines, 1400, words, lexicon, "ja")] == ["b1", "b2"]
