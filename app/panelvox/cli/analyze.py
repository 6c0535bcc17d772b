"""``panelvox analyze BOOK --page N [--json] [--overlay out.png]``: one page as the reader gets it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from panelvox.cli.common import check_page
from panelvox.export.page_listing import format_page, save_overlay
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.pages.opening import open_book_pages


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("analyze", help=_("analyse one page: panels and text in reading order"))
    p.add_argument("book", type=Path)
    # Translators: help for --page of `panelvox analyze`.
    p.add_argument("--page", type=int, default=1, metavar="N", help=_("page number, from 1"))
    p.add_argument("--json", action="store_true", help=_("print the page as JSON (panelvox.page/1)"))
    p.add_argument(
        "--overlay",
        type=Path,
        metavar="PNG",
        # Translators: help for --overlay of `panelvox analyze`.
        help=_("also save the page with panels and text blocks outlined and numbered"),
    )
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_analyze(
        args.book, args.page, as_json=args.json, overlay=args.overlay, direction=args.direction
    )


def run_analyze(
    book_path: Path,
    page: int,
    *,
    as_json: bool = False,
    overlay: Path | None = None,
    direction: str | None = None,
    out: TextIO | None = None,
) -> int:
    """Print page ``page`` (1-based) as the page service reads it."""
    out = out or sys.stdout
    override = ReadingDirection(direction) if direction else None
    with open_book_pages(book_path, direction=override) as pages:
        check_page(page, pages.book.page_count)
        analysis = pages.read(page)
        if as_json:
            json.dump(analysis.to_json(), out, ensure_ascii=False, indent=1)
            out.write("\n")
        else:
            out.write(format_page(analysis))
        if overlay is not None:
            save_overlay(pages.image(page), analysis, overlay)
    return 0
