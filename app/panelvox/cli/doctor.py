"""``panelvox doctor [--speak]``: what this computer offers Panelvox."""

from __future__ import annotations

import argparse

from panelvox.i18n import _


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Translators: help for `panelvox doctor`.
    p = sub.add_parser("doctor", help=_("say what this computer offers: graphics card, voices, models"))
    # Translators: help for --speak of `panelvox doctor`.
    p.add_argument("--speak", action="store_true", help=_("also read the findings aloud"))
    # Translators: help for --backend of `panelvox doctor`.
    p.add_argument("--backend", metavar="NAME", help=_("speech output for --speak"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from panelvox.doctor import run_doctor

    return run_doctor(speak=args.speak, backend=args.backend)
