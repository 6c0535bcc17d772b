"""``panelvox models list|add|check|remove``: the description models the user added (GGUF)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from panelvox.errors import ModelUnavailable
from panelvox.i18n import _

if TYPE_CHECKING:  # imported when the command runs, not on every `panelvox` start
    from panelvox.models.registry import ModelEntry, ModelRegistry


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_models(
        args.action,
        model=args.model,
        mmproj=args.mmproj,
        name=args.name,
        license=args.license,
        quick=args.quick,
    )


def run_models(
    action: str,
    *,
    model: Path | None = None,
    mmproj: Path | None = None,
    name: str | None = None,
    license: str | None = None,
    quick: bool = False,
    registry: ModelRegistry | None = None,
    out: TextIO | None = None,
) -> int:
    from panelvox.models.registry import ModelRegistry

    out = out or sys.stdout
    reg = registry or ModelRegistry()
    if action == "add":
        if model is None:
            raise ModelUnavailable(_("Name the model file to add."), detail="models add without MODEL")
        entry = reg.add(model, mmproj, name=name, license=license)
        # Translators: after `panelvox models add`; {name} the model, {arch} its family.
        out.write(_("Added {name} ({arch}).").format(name=entry.name, arch=_describe(entry)) + "\n")
        out.write(f"  sha256 {entry.sha256}\n")
        if entry.mmproj_sha256:
            out.write(f"  mmproj sha256 {entry.mmproj_sha256}\n")
        return 0
    if action == "remove":
        if name is None or not reg.remove(name):
            raise ModelUnavailable(
                _("No model called {name} has been added.").format(name=name), detail="remove"
            )
        return 0
    entries = reg.entries()
    if not entries:
        # Translators: `panelvox models list` when the user has added no model.
        out.write(
            _("No models have been added. Use: panelvox models add MODEL.gguf --mmproj MMPROJ.gguf") + "\n"
        )
        return 0
    status = 0
    for entry in entries:
        line = f"{entry.name}: {_describe(entry)}, {entry.total_bytes / 1024**2:.1f} MiB, {entry.path}"
        if action == "check":
            result = reg.check(entry, hash_files=not quick)
            line += " — " + (_("ok") if result.ok else "; ".join(result.problems))
            status = status or (0 if result.ok else 1)
        out.write(line + "\n")
    return status


def _describe(entry: ModelEntry) -> str:
    from panelvox.models.registry import ModelRole

    if entry.role is ModelRole.VLM:
        return f"{entry.architecture} + {entry.projector} image encoder"
    return f"{entry.architecture}, text only"
