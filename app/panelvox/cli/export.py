"""``panelvox export``: a book, or every book of a folder, as DiViNa, HTML, EPUB or an audiobook."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from panelvox.export.book_export import ExportFormat, ExportOptions, export_pages
from panelvox.export.library import BookResult, export_library, is_library
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.pages.opening import open_book_pages


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Translators: help for `panelvox export`.
    p = sub.add_parser("export", help=_("write a book or a folder of books as DiViNa, HTML, EPUB or audio"))
    p.add_argument("book", type=Path, metavar="BOOK|DIR")
    p.add_argument(
        "--format", required=True, choices=[f.value for f in ExportFormat], help=_("what to write")
    )
    # Translators: help for --out of `panelvox export`.
    p.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="PATH",
        help=_("the file (or folder) to write; for a folder of books, the folder for their exports"),
    )
    # Translators: help for --audio of `panelvox export`.
    p.add_argument(
        "--audio", action="store_true", help=_("divina: also an audio file per page, with audioref")
    )
    p.add_argument("--backend", metavar="NAME", help=_("voice for audio: piper or pyttsx3"))
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    # Translators: help for --workers of `panelvox export`.
    p.add_argument(
        "--workers", type=int, default=1, metavar="N", help=_("books exported at once (processes)")
    )
    # Translators: help for --scheduler of `panelvox export`.
    p.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help=_("export a folder of books on a Dask cluster")
    )
    # Translators: help for --progress of `panelvox export`.
    p.add_argument(
        "--progress", action="store_true", help=_("say how far the export is (off: quiet for screen readers)")
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, *, err: TextIO | None = None) -> int:
    err = err or sys.stderr
    options = ExportOptions(
        ExportFormat(args.format),
        audio=args.audio,
        backend=args.backend,
        direction=ReadingDirection(args.direction) if args.direction else None,
    )

    def say(line: str) -> None:
        err.write(line + "\n")
        err.flush()

    if is_library(args.book):
        return _library(args, options, say)
    with open_book_pages(args.book, direction=options.direction) as pages:
        total = pages.book.page_count

        def page_done(number: int) -> None:
            if args.progress:
                # Translators: progress of a book export; {page} of {total}.
                say(_("Page {page} of {total}").format(page=number, total=total))

        written = export_pages(pages, args.out, options, on_page=page_done)
    for path in written:
        # Translators: printed after writing an exported file; {path} is its name.
        say(_("Wrote {path}").format(path=path))
    return 0


def _library(args: argparse.Namespace, options: ExportOptions, say: Callable[[str], None]) -> int:
    def skipped(result: BookResult) -> None:
        # Translators: a book a library export skipped; {name} the file, {reason} one sentence.
        say(_("Skipped {name}: {reason}").format(name=result.book.name, reason=result.error))

    report = export_library(
        args.book,
        args.out,
        options,
        workers=max(1, args.workers),
        scheduler=args.scheduler,
        progress=say if args.progress else None,
        on_skip=skipped,
    )
    # Translators: the summary of a library export.
    say(
        _("{done} books exported, {already} already done, {skipped} skipped.").format(
            done=len(report.done), already=len(report.already), skipped=len(report.skipped)
        )
    )
    return 1 if report.skipped else 0
