"""``panelvox info BOOK``: pages, reading direction and why, metadata, unreadable pages."""

from __future__ import annotations

import argparse
from pathlib import Path

from panelvox.i18n import _


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("info", help=_("show a book's pages, reading direction and metadata"))
    p.add_argument("book", type=Path)
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from panelvox.analysis.lettering_direction import LetteringDirection
    from panelvox.books.info import print_info

    return print_info(args.book, direction=args.direction, lettering=LetteringDirection.with_default_cache())
