"""``panelvox [read] [BOOK]``: the reader window."""

from __future__ import annotations

import argparse
from pathlib import Path

from panelvox.i18n import _


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Translators: help for `panelvox read`.
    p = sub.add_parser("read", help=_("open the reader window (on BOOK when given)"))
    p.add_argument("book", type=Path, nargs="?")
    # Translators: help for --backend of `panelvox read`.
    p.add_argument(
        "--backend", metavar="NAME", help=_("speech output: screenreader, piper, pyttsx3, silence")
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from panelvox.ui.reader_app import run_reader

    return run_reader(getattr(args, "book", None), backend=getattr(args, "backend", None))
