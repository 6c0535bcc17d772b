"""``panelvox info BOOK``: what a book holds, in plain lines a screen reader reads well."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from panelvox.books.book import Book, LetteringProbe
from panelvox.books.direction import direction_words
from panelvox.books.direction_store import DirectionOverrides
from panelvox.books.opener import open_book
from panelvox.i18n import _, ngettext
from panelvox.model import ReadingDirection


def _printable(text: str) -> str:
    # Entry names come from the archive: never let them drive the terminal. Checked whole
    # first: 45,000 names of 1,000 characters took seconds one character at a time.
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else "?" for ch in text)


#: Seconds ``info`` gives itself to open a book and check its pages: a book of 99,999 pages
#: took 19 s to check in full (issue 32). The pages past it are listed, said to be unchecked,
#: never said to be readable; a book slow to open leaves less time for checking.
CHECK_SECONDS = 5.0


def describe_book(book: Book, out: TextIO, *, check_seconds: float = CHECK_SECONDS) -> int:
    """Write the description; returns how many pages are unreadable. Pages are checked
    for at most ``check_seconds``; the rest are listed unchecked, and the listing says so."""
    # Translators: label in `panelvox info`, followed by the book's title.
    print(_("Title: {title}").format(title=_printable(book.title)), file=out)
    # Translators: label in `panelvox info`, followed by the book's format.
    print(_("Format: {format}").format(format=book.format.describe()), file=out)
    # Translators: label in `panelvox info`, followed by the number of pages.
    print(_("Pages: {n}").format(n=book.page_count), file=out)
    print(
        # Translators: label in `panelvox info`: direction, then why, e.g. "right-to-left (ComicInfo ...)".
        _("Reading direction: {direction} ({reason})").format(
            direction=direction_words(book.direction), reason=book.direction_decision.describe()
        ),
        file=out,
    )
    if book.metadata is not None:
        fields = book.metadata.fields()
        if fields:
            # Translators: heading in `panelvox info` before the ComicInfo.xml fields.
            print(_("Metadata (ComicInfo.xml):"), file=out)
            for name, value in fields:
                print(f"  {name}: {_printable(' '.join(value.split()))}", file=out)
    # Translators: heading in `panelvox info` before the list of pages.
    print(_("Page list:"), file=out)
    problems: list[str] = []
    unchecked: list[int] = []  # page numbers, in order
    deadline = time.monotonic() + check_seconds
    for ref in book.pages:
        check = book.check_page(ref.index) if not unchecked and time.monotonic() < deadline else None
        if check is None:
            unchecked.append(ref.index + 1)
        parts = [f"  {ref.index + 1:>4}  {_printable(ref.label)}"]
        if check is not None and check.width and check.height:
            parts.append(f"{check.width}x{check.height}")
        if ref.page_type is not None:
            parts.append(ref.page_type.value)
        if ref.double_page:
            # Translators: marks a page that is a two-page spread in `panelvox info`.
            parts.append(_("double page"))
        if check is not None and check.problem is not None:
            # Translators: marks a page that cannot be read in `panelvox info`.
            parts.append(_("unreadable"))
            problems.append(check.problem)
        print("  ".join(parts), file=out)
    if problems:
        print(
            # Translators: heading in `panelvox info` before the reasons pages cannot be read.
            ngettext("{n} page cannot be read:", "{n} pages cannot be read:", len(problems)).format(
                n=len(problems)
            ),
            file=out,
        )
        for message in problems:
            print(f"  {message}", file=out)
    elif not unchecked:
        # Translators: printed by `panelvox info` when every page passed the check.
        print(_("Every page can be read."), file=out)
    else:
        # Translators: printed by `panelvox info` when the pages it had time to check can all be read.
        print(_("Every page checked can be read."), file=out)
    if unchecked:
        print(
            # Translators: printed by `panelvox info` when checking a huge book's pages ran out
            # of time; {first} and {last} are page numbers.
            _("Pages {first} to {last} were not checked: checking them would take too long.").format(
                first=unchecked[0], last=unchecked[-1]
            ),
            file=out,
        )
    return len(problems)


def print_info(
    path: Path,
    *,
    direction: str | None = None,
    out: TextIO | None = None,
    lettering: LetteringProbe | None = None,
) -> int:
    """Describe the book at ``path`` on ``out`` (stdout); returns the exit code (0).
    ``lettering``: how a book that says nothing of its direction is told by its pages.

    A book that cannot be opened raises :class:`~panelvox.errors.PanelvoxError`; the CLI
    prints its one-sentence message.
    """
    override = ReadingDirection(direction) if direction else None
    start = time.monotonic()
    with open_book(
        Path(path), direction_override=override, overrides=DirectionOverrides(), lettering=lettering
    ) as book:
        left = max(0.0, CHECK_SECONDS - (time.monotonic() - start))
        describe_book(book, out if out is not None else sys.stdout, check_seconds=left)
    return 0
