"""The ``panelvox`` command.

Each subcommand's work lives in its own area (books, analysis, eval, narration); this
module only parses arguments, sets up logging and turns every :class:`PanelvoxError` into
one short sentence on stderr (details go to the log file, never a traceback).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from panelvox import __version__
from panelvox.errors import PanelvoxError
from panelvox.i18n import _

log = logging.getLogger("panelvox")

Handler = Callable[[argparse.Namespace], int]


def state_dir() -> Path:
    """Where logs and reading positions go (XDG state directory on Linux)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "panelvox"


def _setup_logging(verbose: bool) -> None:
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.DEBUG if verbose else logging.CRITICAL + 1)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    try:
        logdir = state_dir()
        logdir.mkdir(parents=True, exist_ok=True)
        fh = logging.FileHandler(logdir / "panelvox.log", encoding="utf-8")
    except OSError:
        return  # a read-only home must not stop reading
    fh.setLevel(logging.INFO)
    fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(fh)


def _cmd_info(args: argparse.Namespace) -> int:
    from panelvox.books.info import print_info

    return print_info(args.book, direction=args.direction)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="panelvox",
        # Translators: one-line description of the program in --help.
        description=_("Read comics and manga aloud: panels, balloons and who speaks, in order."),
    )
    parser.add_argument("--version", action="version", version=f"panelvox {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=_("log details to the terminal"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("info", help=_("show a book's pages, reading direction and metadata"))
    p.add_argument("book", type=Path)
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=_cmd_info)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.verbose)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    try:
        return handler(args)
    except PanelvoxError as exc:
        log.error("%s: %s", exc.message, exc.detail)
        print(exc.message, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception:
        log.exception("unexpected error in %s", args.command)
        # Translators: printed when something unexpected fails; details are in the log.
        print(_("Something went wrong. The details are in the log file."), file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
