"""The ``panelvox`` command: one module per subcommand, and :func:`main`.

Each subcommand module registers its arguments and runs the command (``register`` and
``run``); this module parses, sets up logging and turns every :class:`PanelvoxError` into
one short sentence on stderr (details go to the log file, never a traceback). Nothing
else in Panelvox imports from here.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from panelvox import __version__, paths
from panelvox.cli import analyze, ask, describe, doctor, export, info, models, names, narrate, read
from panelvox.cli import eval as eval_command
from panelvox.errors import PanelvoxError
from panelvox.i18n import _
from panelvox.jsonfile import forget_notices, note_unsaved, take_notices
from panelvox.models.ocr_quant import PRECISION_ENV, PRECISIONS

log = logging.getLogger("panelvox")

Handler = Callable[[argparse.Namespace], int]


_HANDLER_NAME = "panelvox-cli"
#: the subcommands, in the order --help lists them
_COMMANDS = (info, eval_command, analyze, narrate, export, read, models, describe, ask, names, doctor)


class _LogFile(logging.FileHandler):
    """The log file, which falls silent when it cannot be written (a full disk): no
    "--- Logging error ---" traceback on the terminal, one notice at the end instead."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:
        # Called from inside whatever logged, a stage's worker included: nothing may escape
        # from here. Closing flushes what the full disk refused, which fails again (issue 32:
        # that error reached the text stage and the page sounded empty).
        if not self.failed:
            self.failed = True
            # Translators: what could not be saved, in "Could not save {what}; ...".
            note_unsaved(_("the log"), OSError("the log file cannot be written"), minor=True)
        # closing flushes what the full disk refused again: that error is the same one
        with contextlib.suppress(OSError, ValueError):
            self.close()

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def flush(self) -> None:
        # logging.shutdown and close() flush too: a full disk must not print a traceback there
        with contextlib.suppress(OSError, ValueError):
            super().flush()


def _log_file() -> _LogFile | None:
    """The live log file handler, or None when there is none (it could not be opened)."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, _LogFile) and handler.get_name() == _HANDLER_NAME:
            return None if handler.failed else handler
    return None


def _setup_logging(verbose: bool) -> None:
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    # main() may run more than once in a process (tests, the frozen app's self-checks):
    # replace our handlers instead of stacking another console and log file each time.
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
        old.close()
    console = logging.StreamHandler(sys.stderr)
    console.set_name(_HANDLER_NAME)
    console.setLevel(logging.DEBUG if verbose else logging.CRITICAL + 1)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    # Library warnings (e.g. Pillow on a damaged TIFF) are details for the log, not the user.
    logging.captureWarnings(True)
    try:
        logdir = paths.state_dir()
        logdir.mkdir(parents=True, exist_ok=True)
        fh = _LogFile(logdir / "panelvox.log", encoding="utf-8")
    except OSError as exc:
        # a read-only home must not stop reading: no log file, said only when nothing the
        # user keeps could not be saved either (see jsonfile.note_unsaved)
        # Translators: what could not be saved, in "Could not save {what}; ...".
        note_unsaved(_("the log"), exc, minor=True)
        return
    fh.set_name(_HANDLER_NAME)
    fh.setLevel(logging.INFO)
    fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(fh)


def _book_first(argv: list[str], commands: frozenset[str]) -> list[str]:
    """``panelvox BOOK`` means ``panelvox read BOOK``: a first argument that is an existing
    file or folder and not a subcommand opens the book."""
    for i, arg in enumerate(argv):
        if arg.startswith("-"):
            continue
        if arg not in commands and Path(arg).exists():
            return [*argv[:i], "read", *argv[i:]]
        break
    return argv


def build_parser() -> tuple[argparse.ArgumentParser, frozenset[str]]:
    """The parser and the names of its subcommands."""
    parser = argparse.ArgumentParser(
        prog="panelvox",
        # Translators: one-line description of the program in --help.
        description=_("Read comics and manga aloud: panels, balloons and who speaks, in order."),
    )
    parser.add_argument("--version", action="version", version=f"panelvox {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=_("log details to the terminal"))
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        help=_("text detector: fp32 (the original model, the default) or int8 (a little faster, less exact)"),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for command in _COMMANDS:
        command.register(sub)
    return parser, frozenset(sub.choices)


def main(argv: Sequence[str] | None = None) -> int:
    parser, commands = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_book_first(argv, commands))
    forget_notices()  # before the log file, which may be the first thing that cannot be saved
    _setup_logging(args.verbose)
    if args.precision:  # for this process and the analysis workers it starts
        os.environ[PRECISION_ENV] = args.precision
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        handler = read.run  # `panelvox` alone opens the reader window
    try:
        return handler(args)
    except PanelvoxError as exc:
        log.error("%s: %s", exc.message, exc.detail)
        print(exc.message, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `panelvox info BOOK | head`: the reader stopped listening; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception:
        log.exception("unexpected error in %s", args.command)
        if _log_file() is None:
            # Translators: printed when something unexpected fails and there is no log file.
            print(_("Something went wrong."), file=sys.stderr)
        else:
            # Translators: printed when something unexpected fails; details are in the log.
            print(_("Something went wrong. The details are in the log file."), file=sys.stderr)
        return 2
    finally:
        for text in take_notices():  # what could not be saved: once, after the command's output
            print(text, file=sys.stderr)
