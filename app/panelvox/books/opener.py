"""``open_book``: from a path to a :class:`Book`, refusing hostile input with one sentence."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from panelvox.books.adapter import BookAdapter, BookFormat, Entry, password_protected, sniff, too_large
from panelvox.books.adapter_discovery import open_adapter
from panelvox.books.book import Book, LetteringProbe, PageRef
from panelvox.books.comicinfo import ComicInfo, ComicInfoError, parse_comicinfo
from panelvox.books.direction import decide_direction
from panelvox.books.direction_store import DirectionOverrides
from panelvox.books.limits import Limits, MiB
from panelvox.books.naming import is_junk, is_page_image, natural_key, normalize_name
from panelvox.errors import BookError, BookNotFound, EmptyBook, UnsupportedFormat
from panelvox.i18n import _
from panelvox.model import ReadingDirection

log = logging.getLogger(__name__)

_HASH_SPAN = 1 * MiB


def open_book(
    path: Path,
    *,
    direction_override: ReadingDirection | None = None,
    skip_page_types: frozenset[str] = frozenset(),
    limits: Limits | None = None,
    overrides: DirectionOverrides | None = None,
    lettering: LetteringProbe | None = None,
) -> Book:
    """Open a comic book (CBZ/ZIP, CBR/RAR, CB7/7z, CBT/TAR, PDF or a folder of images).

    Nothing is decoded here: pages are listed, sorted naturally, ComicInfo.xml is read and
    the reading direction decided (``direction_override`` > the user's stored choice in
    ``overrides`` > ComicInfo > language > the ``lettering`` probe, asked on the first
    question about the direction > left to right). ``skip_page_types`` holds
    ComicInfo page types (e.g. ``{"Advertisement", "Deleted"}``) left out of the pages.
    Raises a :class:`~panelvox.errors.BookError` with one spoken sentence.
    """
    limits = limits or Limits()
    path = Path(path).expanduser()
    fmt = _detect(path)
    adapter = open_adapter(path, fmt, limits)
    try:
        return _build(path, adapter, direction_override, skip_page_types, limits, overrides, lettering)
    except BaseException:
        adapter.close()
        raise


def _detect(path: Path) -> BookFormat:
    try:
        exists = path.exists()
    except OSError:
        exists = False
    if not exists:
        # Translators: spoken when the book's file does not exist; {name} is the file name.
        raise BookNotFound(_("Cannot find the book {name}.").format(name=path.name), detail=str(path))
    if not os.access(path, os.R_OK | (os.X_OK if path.is_dir() else 0)):
        # Translators: spoken when the system does not allow reading the book.
        raise BookError(_("Panelvox is not allowed to read this book."), detail=f"{path}: permission denied")
    try:
        fmt = sniff(path)
    except OSError as exc:
        raise BookError(_("Panelvox is not allowed to read this book."), detail=f"{path}: {exc}") from exc
    if fmt is None:
        raise UnsupportedFormat(
            # Translators: spoken when a file is not a comic book at all.
            _("This file is not a comic book Panelvox can open."),
            detail=f"{path}: no known signature",
        )
    return fmt


def _build(
    path: Path,
    adapter: BookAdapter,
    direction_override: ReadingDirection | None,
    skip_page_types: frozenset[str],
    limits: Limits,
    overrides: DirectionOverrides | None,
    lettering: LetteringProbe | None,
) -> Book:
    entries = list(adapter.entries())
    if adapter.format is BookFormat.PDF:
        images = entries  # every PDF page is a page, in document order
    else:
        images = sorted((e for e in entries if is_page_image(e.name)), key=lambda e: natural_key(e.name))
    if not images:
        if any(e.encrypted for e in entries):
            raise password_protected(f"{path}: only encrypted entries")
        # Translators: spoken when a book holds no page images at all.
        raise EmptyBook(_("This book has no pages."), detail=f"{path}: no image entries among {len(entries)}")
    if any(e.encrypted for e in images):
        raise password_protected(f"{path}: encrypted page entries")
    total = sum(max(e.size, 0) for e in images)
    if total > limits.max_total_bytes:
        raise too_large(f"{path}: declared {total} bytes of pages, limit {limits.max_total_bytes}")

    metadata = _read_comicinfo(path, adapter, entries, limits)
    content_hash = _content_hash(path, adapter.format, entries)
    override = direction_override
    if override is None and overrides is not None:
        override = overrides.get(content_hash)
    decision = decide_direction(override, metadata)

    skip = {s.strip().casefold() for s in skip_page_types}
    kept: list[tuple[int, Entry]] = []
    for image_index, entry in enumerate(images):
        info = metadata.page_info(image_index) if metadata else None
        if info and info.type and info.type.value.casefold() in skip:
            continue
        kept.append((image_index, entry))
    if not kept:
        log.info("%s: every page has a skipped type; showing them all", path)
        kept = list(enumerate(images))

    pages: list[PageRef] = []
    for index, (image_index, entry) in enumerate(kept):
        info = metadata.page_info(image_index) if metadata else None
        pages.append(
            PageRef(
                index=index,
                label=normalize_name(entry.name) or entry.name,
                image_index=image_index,
                page_type=info.type if info else None,
                double_page=info.double_page if info else False,
            )
        )
    return Book(
        path=path,
        adapter=adapter,
        pages=tuple(pages),
        entries=tuple(e for _, e in kept),
        metadata=metadata,
        decision=decision,
        content_hash=content_hash,
        limits=limits,
        lettering=lettering,
    )


def _read_comicinfo(
    path: Path, adapter: BookAdapter, entries: list[Entry], limits: Limits
) -> ComicInfo | None:
    candidates = [
        e
        for e in entries
        if not is_junk(e.name) and normalize_name(e.name).rsplit("/", 1)[-1].casefold() == "comicinfo.xml"
    ]
    if not candidates:
        return None
    # The one nearest the root wins (some archives nest everything in one folder).
    entry = min(candidates, key=lambda e: (normalize_name(e.name).count("/"), natural_key(e.name)))
    if entry.size > limits.max_comicinfo_bytes:
        log.warning("%s: ComicInfo.xml of %d bytes ignored", path, entry.size)
        return None
    try:
        data = adapter.read(entry, limits.max_comicinfo_bytes)
        return parse_comicinfo(data)
    except (BookError, ComicInfoError) as exc:
        # Metadata is a bonus: a bad ComicInfo.xml never stops the book from opening.
        log.warning("%s: ComicInfo.xml ignored: %s", path, getattr(exc, "detail", None) or exc)
        return None


def _content_hash(path: Path, fmt: BookFormat, entries: list[Entry]) -> str:
    """Cheap identity for caches and settings: size, first and last MiB, entry list."""
    h = hashlib.sha256(b"panelvox-book/1\0")
    h.update(fmt.value.encode())
    if path.is_file():
        size = path.stat().st_size
        h.update(str(size).encode() + b"\0")
        with path.open("rb") as fh:
            h.update(fh.read(_HASH_SPAN))
            if size > _HASH_SPAN:
                fh.seek(max(_HASH_SPAN, size - _HASH_SPAN))
                h.update(fh.read(_HASH_SPAN))
    for e in entries:
        h.update(e.name.encode("utf-8", "surrogateescape") + b"\0" + str(e.size).encode() + b"\0")
    return h.hexdigest()
