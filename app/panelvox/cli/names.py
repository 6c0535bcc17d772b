"""``panelvox names BOOK``: list who speaks in a book, and rename a character for good.

    panelvox names BOOK [--pages A-B]                 # list: key, name, lines, first words
    panelvox names BOOK --rename p4:c2 "Steenie"      # the name sticks for the book
    panelvox names BOOK --rename p4:c2 ""             # forget the rename

Pages are read through the page service (the default pipeline, the disk cache, the book's
names). A rename is stored in :class:`NameStore` with the character's look,
so the reader, ``panelvox narrate`` and this list use it on every page where that person
is found.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TextIO

from panelvox.books import Book
from panelvox.cli.common import UsageError, check_range, parse_pages
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.names.listing import speaking_characters
from panelvox.names.stores import NameStore
from panelvox.pages import PageService
from panelvox.pages.opening import open_book_pages

_KEY = re.compile(r"^p(\d+):([A-Za-z]\w*)$")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Translators: help for `panelvox names`.
    p = sub.add_parser("names", help=_("list who speaks in a book, or rename a character"))
    p.add_argument("book", type=Path)
    which = p.add_mutually_exclusive_group()
    # Translators: help for --page of `panelvox names`.
    which.add_argument("--page", type=int, metavar="N", help=_("only page N (from 1)"))
    # Translators: help for --pages of `panelvox names`.
    which.add_argument("--pages", metavar="A-B", help=_("only pages A to B"))
    # Translators: help for --rename of `panelvox names`; KEY is like p4:c2 from the list.
    p.add_argument(
        "--rename", nargs=2, metavar=("KEY", "NAME"), help=_("give a character a name for the book")
    )
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rename = (args.rename[0], args.rename[1]) if args.rename else None
    return run_names(
        args.book, pages=parse_pages(args.page, args.pages), rename=rename, direction=args.direction
    )


def run_names(
    book_path: Path,
    *,
    pages: tuple[int, int] | None = None,
    rename: tuple[str, str] | None = None,
    direction: str | None = None,
    store: NameStore | None = None,
    out: TextIO | None = None,
) -> int:
    """The whole command; returns the exit status."""
    out = out or sys.stdout
    override = ReadingDirection(direction) if direction else None
    with open_book_pages(book_path, direction=override, store=store) as service:
        if rename is not None:
            _rename(service, *rename, out=out)
            return 0
        first, last = pages or (1, service.book.page_count)
        check_range(first, last, service.book.page_count)
        user_keys = service.names.user_keys()
        for number in range(first, last + 1):
            entries = speaking_characters(service.read(number), user_keys)
            # Translators: heading of one page in `panelvox names`; {n} is the page number.
            out.write(
                _("Page {n}").format(n=number) + ("\n" if entries else ": " + _("nobody speaks") + "\n")
            )
            for e in entries:
                origin = {
                    "user": _("given by you"),
                    "text": _("from the text"),
                    # Translators: `panelvox names`: a name said on another page of the person the
                    # book believes this is; the narration says "probably" before it.
                    "book": _("named on another page, not sure"),
                    "": _("no name yet"),
                }[e.source]
                out.write(f"  {e.key}  {e.name} ({origin}), {e.lines}×: {e.first_line}\n")
        out.flush()
    return 0


def _rename(service: PageService[Book], key: str, new_name: str, *, out: TextIO) -> None:
    m = _KEY.match(key.strip())
    if m is None or not 1 <= int(m.group(1)) <= service.book.page_count:
        raise UsageError(
            # Translators: `panelvox names --rename` got a key unlike "p4:c2"; {key} is what was given.
            _("No character {key} in this book; use a key from the list, like p4:c2.").format(key=key),
            detail=f"{service.book.page_count} pages",
        )
    number = int(m.group(1))
    analysis = service.read(number)
    char = analysis.character(m.group(2))
    if char is None:
        raise UsageError(
            _("No character {key} in this book; use a key from the list, like p4:c2.").format(key=key),
            detail=f"page {number} has {[c.id for c in analysis.characters]}",
        )
    service.rename(analysis, char, new_name)
    if new_name.strip():
        # Translators: printed after a rename; {key} is like "p4:c2", {name} the new name.
        out.write(_("{key} is now called {name}.").format(key=key, name=" ".join(new_name.split())) + "\n")
    else:
        # Translators: printed after a rename was forgotten; {key} is like "p4:c2".
        out.write(_("{key} has no given name any more.").format(key=key) + "\n")
