"""``panelvox eval DATASET``: measure the page analysis on annotated pages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from panelvox.i18n import _

#: what the ``eval`` extra installs (pyproject.toml), by import name
_EVAL_EXTRA = frozenset({"scipy", "sklearn", "rapidfuzz"})


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help=_("measure the page analysis on annotated pages"))
    p.add_argument(
        "dataset",
        # Translators: help for the dataset argument of `panelvox eval`.
        help=_("a dataset folder or file, or cib, openmantra, iabc, comic-ocr or all"),
    )
    p.add_argument(
        "--stage",
        choices=["panels", "text", "order", "speakers", "script", "all", "describe"],
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
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        from panelvox.eval.command import run_command
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _EVAL_EXTRA:
            raise
        # Translators: `panelvox eval` run where the developer's extra is not installed.
        print(_("panelvox eval needs the evaluation extra: pip install 'panelvox[eval]'"), file=sys.stderr)
        return 2

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
