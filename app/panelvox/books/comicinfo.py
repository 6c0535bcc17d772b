"""ComicInfo.xml (anansi-project schema v2.0), parsed defensively.

Documents with a DTD or entity declarations are refused outright (the classic XML bombs
need them); unknown elements are ignored; a malformed field is dropped, never fatal. The
bytes are decoded here, not by expat (which reads no multi-byte legacy encoding): a BOM,
else the declared encoding (Shift_JIS read as its Windows superset CP932, common in manga
from Japan), else UTF-8.
"""

from __future__ import annotations

import codecs
import logging
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from enum import Enum

log = logging.getLogger(__name__)

_FORBIDDEN = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_DECLARATION = re.compile(r"^\s*<\?xml\b[^>]{0,512}?\?>")
_DECLARED = re.compile(rb"^\s*<\?xml\b[^>]{0,512}?\bencoding\s*=\s*[\"']([A-Za-z0-9._:-]{1,40})[\"']")
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
#: Declared names read with a superset: Windows wrote most "Shift_JIS" files as CP932.
_SUPERSETS = {"shift_jis": "cp932", "euc_jp": "euc_jis_2004", "gb2312": "gb18030", "gbk": "gb18030"}


class Manga(Enum):
    """ComicInfo ``Manga``: only ``YesAndRightToLeft`` says anything about direction."""

    UNKNOWN = "Unknown"
    NO = "No"
    YES = "Yes"
    YES_AND_RIGHT_TO_LEFT = "YesAndRightToLeft"


class PageType(Enum):
    """ComicInfo ``Page/@Type``."""

    FRONT_COVER = "FrontCover"
    INNER_COVER = "InnerCover"
    ROUNDUP = "Roundup"
    STORY = "Story"
    ADVERTISEMENT = "Advertisement"
    EDITORIAL = "Editorial"
    LETTERS = "Letters"
    PREVIEW = "Preview"
    BACK_COVER = "BackCover"
    OTHER = "Other"
    DELETED = "Deleted"

    @classmethod
    def parse(cls, text: str | None) -> PageType | None:
        if not text:
            return None
        key = text.strip().replace(" ", "").casefold()
        for member in cls:
            if member.value.casefold() == key:
                return member
        return None


@dataclass(frozen=True, slots=True)
class ComicPageInfo:
    """One ``<Page>``: ``image`` is the 0-based index in the book's sorted image list."""

    image: int
    type: PageType | None = None
    double_page: bool = False


@dataclass(frozen=True, slots=True)
class ComicInfo:
    title: str | None = None
    series: str | None = None
    number: str | None = None
    volume: int | None = None
    summary: str | None = None
    year: int | None = None
    publisher: str | None = None
    writer: str | None = None
    penciller: str | None = None
    inker: str | None = None
    colorist: str | None = None
    letterer: str | None = None
    cover_artist: str | None = None
    editor: str | None = None
    characters: str | None = None
    genre: str | None = None
    language_iso: str | None = None
    black_and_white: bool | None = None
    page_count: int | None = None
    manga: Manga | None = None
    pages: tuple[ComicPageInfo, ...] = ()

    @property
    def language(self) -> str | None:
        """The primary subtag of ``LanguageISO``, lower case ("en-US" -> "en"); None when absent."""
        return (self.language_iso or "").strip().casefold().replace("_", "-").split("-")[0] or None

    def page_info(self, image_index: int) -> ComicPageInfo | None:
        for p in self.pages:
            if p.image == image_index:
                return p
        return None

    def fields(self) -> list[tuple[str, str]]:
        """(ComicInfo element name, value) of every field present, in schema order."""
        out: list[tuple[str, str]] = []
        for attr, element in _TEXT_FIELDS + _INT_FIELDS:
            value = getattr(self, attr)
            if value is not None:
                out.append((element, str(value)))
        if self.black_and_white is not None:
            out.append(("BlackAndWhite", "Yes" if self.black_and_white else "No"))
        if self.manga is not None:
            out.append(("Manga", self.manga.value))
        return out


_TEXT_FIELDS: tuple[tuple[str, str], ...] = (
    ("title", "Title"),
    ("series", "Series"),
    ("number", "Number"),
    ("summary", "Summary"),
    ("publisher", "Publisher"),
    ("writer", "Writer"),
    ("penciller", "Penciller"),
    ("inker", "Inker"),
    ("colorist", "Colorist"),
    ("letterer", "Letterer"),
    ("cover_artist", "CoverArtist"),
    ("editor", "Editor"),
    ("characters", "Characters"),
    ("genre", "Genre"),
    ("language_iso", "LanguageISO"),
)
_INT_FIELDS: tuple[tuple[str, str], ...] = (
    ("volume", "Volume"),
    ("year", "Year"),
    ("page_count", "PageCount"),
)


class ComicInfoError(ValueError):
    """The document is not acceptable ComicInfo (malformed, or declares a DTD/entities)."""


def _local(tag: object) -> str:
    # Some writers put the elements in a namespace; the schema's names are what matter.
    return str(tag).rsplit("}", 1)[-1]


def _to_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None


def _to_bool(text: str | None) -> bool | None:
    if text is None:
        return None
    low = text.strip().casefold()
    if low in ("yes", "true", "1"):
        return True
    if low in ("no", "false", "0"):
        return False
    return None


def _to_manga(text: str | None) -> Manga | None:
    if text is None:
        return None
    key = text.strip().casefold()
    for m in Manga:
        if m.value.casefold() == key:
            return m
    return None


def _codec(name: str) -> str | None:
    """Python's codec for an encoding name an XML file declares, or None if it has none."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    # rot13, base64 and the like are codecs too, but not text encodings
    if not getattr(info, "_is_text_encoding", True):
        return None
    return _SUPERSETS.get(info.name.replace("-", "_"), info.name)


def decode_xml(data: bytes) -> str:
    """The document's text: BOM, else declared encoding, else UTF-8; :class:`ComicInfoError`."""
    encoding = next((enc for bom, enc in _BOMS if data.startswith(bom)), None)
    if encoding is None and data[:2] in (b"<\0", b"\0<"):
        encoding = "utf-16-le" if data[0] else "utf-16-be"
    if encoding is None:
        declared = _DECLARED.match(data[:600])
        if declared is not None:
            name = declared.group(1).decode("ascii")
            encoding = _codec(name)
            if encoding is None:
                log.info("ComicInfo.xml declares the unknown encoding %r; trying UTF-8", name)
    try:
        return data.decode(encoding or "utf-8")
    except (UnicodeError, LookupError) as exc:
        raise ComicInfoError(f"ComicInfo.xml is not valid {encoding or 'UTF-8'}: {exc}") from exc


def parse_comicinfo(data: bytes) -> ComicInfo:
    """Parse ComicInfo.xml bytes; raises :class:`ComicInfoError` when unusable."""
    text = decode_xml(data)
    if _FORBIDDEN.search(text):
        raise ComicInfoError("ComicInfo.xml declares a DTD or entities; refused")
    # The text is decoded already: its declaration would make expat decode it again.
    text = _DECLARATION.sub("", text, count=1)
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError, LookupError) as exc:
        raise ComicInfoError(f"ComicInfo.xml is malformed: {exc}") from exc
    if _local(root.tag) != "ComicInfo":
        raise ComicInfoError(f"root element is {_local(root.tag)!r}, not ComicInfo")

    values: dict[str, str] = {}
    pages: list[ComicPageInfo] = []
    for child in root:
        name = _local(child.tag)
        if name == "Pages":
            pages.extend(_parse_pages(child))
        elif child.text is not None and child.text.strip():
            values.setdefault(name, child.text.strip())

    kwargs: dict[str, object] = {}
    for attr, element in _TEXT_FIELDS:
        if element in values:
            kwargs[attr] = values[element]
    for attr, element in _INT_FIELDS:
        kwargs[attr] = _to_int(values.get(element))
    return ComicInfo(
        **kwargs,  # type: ignore[arg-type]
        black_and_white=_to_bool(values.get("BlackAndWhite")),
        manga=_to_manga(values.get("Manga")),
        pages=tuple(pages),
    )


def _parse_pages(element: ET.Element) -> list[ComicPageInfo]:
    out: list[ComicPageInfo] = []
    for page in element:
        if _local(page.tag) != "Page":
            continue
        attrs = {_local(k): v for k, v in page.attrib.items()}
        index = _to_int(attrs.get("Image"))
        if index is None or index < 0:
            log.debug("ComicInfo <Page> without a usable Image attribute: %r", attrs)
            continue
        out.append(
            ComicPageInfo(
                image=index,
                type=PageType.parse(attrs.get("Type")),
                double_page=bool(_to_bool(attrs.get("DoublePage"))),
            )
        )
    return out
