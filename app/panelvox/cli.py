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

from panelvox import __version__, paths
from panelvox.errors import PanelvoxError
from panelvox.i18n import _

log = logging.getLogger("panelvox")

Handler = Callable[[argparse.Namespace], int]


_HANDLER_NAME = "panelvox-cli"


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
        fh = logging.FileHandler(logdir / "panelvox.log", encoding="utf-8")
    except OSError:
        return  # a read-only home must not stop reading
    fh.set_name(_HANDLER_NAME)
    fh.setLevel(logging.INFO)
    fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(fh)


def _cmd_info(args: argparse.Namespace) -> int:
    from panelvox.books.info import print_info

    return print_info(args.book, direction=args.direction)


def _cmd_eval(args: argparse.Namespace) -> int:
    from panelvox.eval.command import run_command

    return run_command(
        args.dataset,
        args.stage,
        limit=args.limit,
        out=args.out,
        overlays=args.overlays,
        narrations=args.narrations,
        describer=args.describer,
        model=args.model,
        samples=args.samples,
    )


def _cmd_analyze(args: argparse.Namespace) -> int:
    from panelvox.analysis.analyze_cmd import run_analyze

    return run_analyze(
        args.book, args.page, as_json=args.json, overlay=args.overlay, direction=args.direction
    )


def _cmd_narrate(args: argparse.Namespace) -> int:
    from panelvox.export.narrate_cmd import NarrateOptions, parse_pages, run_narrate
    from panelvox.model import ReadingDirection
    from panelvox.narration.prefs import Verbosity

    return run_narrate(
        NarrateOptions(
            book=args.book,
            pages=parse_pages(args.page, args.pages),
            speak=args.speak,
            text=args.text,
            wav=args.wav,
            audio_dir=args.audio,
            audio_format=args.format,
            backend=args.backend,
            direction=ReadingDirection(args.direction) if args.direction else None,
            verbosity=Verbosity(args.verbosity) if args.verbosity else None,
            skip_sfx=args.no_sfx,
        )
    )


def _cmd_read(args: argparse.Namespace) -> int:
    from panelvox.ui.reader_app import run_reader

    return run_reader(getattr(args, "book", None), backend=getattr(args, "backend", None))


def _cmd_models(args: argparse.Namespace) -> int:
    from panelvox.narration.describe_cmd import run_models

    return run_models(
        args.action,
        model=args.model,
        mmproj=args.mmproj,
        name=args.name,
        license=args.license,
        quick=args.quick,
    )


def _cmd_describe(args: argparse.Namespace) -> int:
    from panelvox.models.device import Device
    from panelvox.narration.describe_cmd import DescribeOptions, run_describe

    return run_describe(
        DescribeOptions(
            book=args.book,
            page=args.page,
            panel=args.panel,
            model=args.model,
            samples=args.samples,
            drop_flagged=args.drop_flagged,
            device=Device(args.device),
            as_json=args.json,
            narration=args.narration,
        )
    )


def _cmd_ask(args: argparse.Namespace) -> int:
    from panelvox.narration.describe_cmd import run_ask

    return run_ask(args.book, args.page, args.question, model=args.model, use_model=not args.no_model)


def _cmd_names(args: argparse.Namespace) -> int:
    from panelvox.analysis.names_cmd import run_names
    from panelvox.export.narrate_cmd import parse_pages

    rename = (args.rename[0], args.rename[1]) if args.rename else None
    return run_names(
        args.book, pages=parse_pages(args.page, args.pages), rename=rename, direction=args.direction
    )


def _cmd_doctor(args: argparse.Namespace) -> int:
    from panelvox.doctor import run_doctor

    return run_doctor(speak=args.speak, backend=args.backend)


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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("info", help=_("show a book's pages, reading direction and metadata"))
    p.add_argument("book", type=Path)
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=_cmd_info)

    p = sub.add_parser("eval", help=_("measure the page analysis on annotated pages"))
    p.add_argument(
        "dataset",
        # Translators: help for the dataset argument of `panelvox eval`.
        help=_("a dataset folder or file, or cib, openmantra, iabc, comic-ocr or all"),
    )
    p.add_argument(
        "--stage",
        choices=["panels", "text", "order", "speakers", "all", "describe"],
        default="all",
        # Translators: help for --stage of `panelvox eval`; "describe" is a keyword, keep it.
        help=_("which part of the analysis to measure (describe: the scene describer and its checks)"),
    )
    p.add_argument("--limit", type=int, metavar="N", help=_("measure at most N pages per dataset"))
    p.add_argument("--out", type=Path, metavar="DIR", help=_("where metrics.json and report.md go"))
    p.add_argument(
        "--overlays", action="store_true", help=_("also write each page with true and found boxes")
    )
    p.add_argument(
        "--narrations",
        type=Path,
        metavar="DIR",
        # Translators: help for --narrations of `panelvox eval`; PAGE is a page's id.
        help=_("score generated narrations DIR/PAGE.txt for quoting text that is not on the page"),
    )
    p.add_argument(
        "--describer",
        choices=["auto", "model", "injected"],
        default="auto",
        # Translators: help for --describer of `panelvox eval --stage describe`; keep the keywords.
        help=_(
            "with --stage describe: an added model, or true and injected false claims (auto: model if added)"
        ),
    )
    # Translators: help for --model of `panelvox eval --stage describe`.
    p.add_argument("--model", metavar="NAME", help=_("with --stage describe: the added model to use"))
    p.add_argument(
        "--samples",
        type=int,
        default=3,
        metavar="N",
        # Translators: help for --samples of `panelvox eval --stage describe`.
        help=_("with --stage describe: samples per panel for the consistency check"),
    )
    p.set_defaults(handler=_cmd_eval)

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
    p.set_defaults(handler=_cmd_analyze)

    # Translators: help for `panelvox narrate`.
    p = sub.add_parser("narrate", help=_("print, speak or record what is on the pages"))
    p.add_argument("book", type=Path)
    which = p.add_mutually_exclusive_group()
    # Translators: help for --page of `panelvox narrate`.
    which.add_argument("--page", type=int, metavar="N", help=_("only page N (from 1)"))
    # Translators: help for --pages of `panelvox narrate`.
    which.add_argument("--pages", metavar="A-B", help=_("only pages A to B"))
    p.add_argument("--speak", action="store_true", help=_("read the pages aloud"))
    p.add_argument("--text", action="store_true", help=_("print the script (the default)"))
    dest = p.add_mutually_exclusive_group()
    # Translators: help for --wav of `panelvox narrate`.
    dest.add_argument("--wav", type=Path, metavar="FILE", help=_("write one audio file (.wav or .ogg)"))
    # Translators: help for --audio of `panelvox narrate`.
    dest.add_argument("--audio", type=Path, metavar="DIR", help=_("write one audio file per page into DIR"))
    p.add_argument("--format", choices=["wav", "ogg"], default="wav", help=_("file type for --audio"))
    # Translators: help for --backend of `panelvox narrate`.
    p.add_argument(
        "--backend", metavar="NAME", help=_("speech output: piper, pyttsx3, screenreader, silence")
    )
    p.add_argument(
        "--verbosity", choices=["terse", "normal", "full"], help=_("how much is said around the text")
    )
    p.add_argument("--no-sfx", action="store_true", help=_("skip sound effects"))
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=_cmd_narrate)

    # Translators: help for `panelvox read`.
    p = sub.add_parser("read", help=_("open the reader window (on BOOK when given)"))
    p.add_argument("book", type=Path, nargs="?")
    # Translators: help for --backend of `panelvox read`.
    p.add_argument(
        "--backend", metavar="NAME", help=_("speech output: screenreader, piper, pyttsx3, silence")
    )
    p.set_defaults(handler=_cmd_read)

    # Translators: help for `panelvox models`.
    p = sub.add_parser("models", help=_("list, add or check description models (GGUF)"))
    p.add_argument("action", choices=["list", "add", "check", "remove"])
    p.add_argument("model", type=Path, nargs="?", metavar="MODEL.gguf")
    # Translators: help for --mmproj of `panelvox models add`.
    p.add_argument(
        "--mmproj", type=Path, metavar="MMPROJ.gguf", help=_("the image encoder of a vision model")
    )
    p.add_argument("--name", help=_("the name to list the model under"))
    p.add_argument("--license", help=_("the model's license, for the list"))
    # Translators: help for --quick of `panelvox models check`.
    p.add_argument("--quick", action="store_true", help=_("check sizes and headers, not sha256"))
    p.set_defaults(handler=_cmd_models)

    # Translators: help for `panelvox describe`.
    p = sub.add_parser("describe", help=_("describe a page's panels with a local model, checked"))
    p.add_argument("book", type=Path)
    p.add_argument("--page", type=int, default=1, metavar="N", help=_("page number, from 1"))
    # Translators: help for --panel of `panelvox describe`.
    p.add_argument("--panel", type=int, metavar="K", help=_("only panel K of the page (reading order)"))
    p.add_argument("--model", metavar="NAME", help=_("the model to use (see panelvox models list)"))
    # Translators: help for --samples of `panelvox describe`.
    p.add_argument("--samples", type=int, default=3, help=_("answers drawn per panel to check agreement"))
    # Translators: help for --drop-flagged of `panelvox describe`.
    p.add_argument("--drop-flagged", action="store_true", help=_("leave out uncertain claims"))
    p.add_argument("--device", choices=["auto", "cpu", "gpu"], default="auto", help=_("where the model runs"))
    p.add_argument("--json", action="store_true", help=_("print every claim with its flags as JSON"))
    # Translators: help for --narration of `panelvox describe`.
    p.add_argument("--narration", action="store_true", help=_("print one narration of the whole page"))
    p.set_defaults(handler=_cmd_describe)

    # Translators: help for `panelvox ask`.
    p = sub.add_parser("ask", help=_("ask a question about a page"))
    p.add_argument("book", type=Path)
    p.add_argument("--page", type=int, default=1, metavar="N", help=_("page number, from 1"))
    p.add_argument("--model", metavar="NAME", help=_("the model to use (see panelvox models list)"))
    # Translators: help for --no-model of `panelvox ask`.
    p.add_argument("--no-model", action="store_true", help=_("answer from the page analysis only"))
    p.add_argument("question", nargs="+")
    p.set_defaults(handler=_cmd_ask)

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
    p.set_defaults(handler=_cmd_names)

    # Translators: help for `panelvox doctor`.
    p = sub.add_parser("doctor", help=_("say what this computer offers: graphics card, voices, models"))
    # Translators: help for --speak of `panelvox doctor`.
    p.add_argument("--speak", action="store_true", help=_("also read the findings aloud"))
    # Translators: help for --backend of `panelvox doctor`.
    p.add_argument("--backend", metavar="NAME", help=_("speech output for --speak"))
    p.set_defaults(handler=_cmd_doctor)

    return parser, frozenset(sub.choices)


def main(argv: Sequence[str] | None = None) -> int:
    parser, commands = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_book_first(argv, commands))
    _setup_logging(args.verbose)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        handler = _cmd_read  # `panelvox` alone opens the reader window
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
        # Translators: printed when something unexpected fails; details are in the log.
        print(_("Something went wrong. The details are in the log file."), file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
