"""``panelvox describe BOOK --page N``: the page's panels described by a local model, every claim checked."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from panelvox.cli.common import check_page
from panelvox.i18n import _
from panelvox.models.device import Device

if TYPE_CHECKING:
    from panelvox.narration.verify import VerifiedPanel


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
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


@dataclass(frozen=True, slots=True)
class DescribeOptions:
    book: Path
    page: int
    panel: int | None = None
    model: str | None = None
    samples: int = 3
    drop_flagged: bool = False
    device: Device = Device.AUTO
    as_json: bool = False
    narration: bool = False


def run_describe(opts: DescribeOptions, out: TextIO | None = None) -> int:
    # the describer's modules are imported when describing (not on every `panelvox` start)
    from panelvox.models.registry import ModelRegistry
    from panelvox.narration.describe import DescribeConfig, Describer, no_description_notice
    from panelvox.narration.page_narration import compose_page_narration, describe_verified, panel_utterances
    from panelvox.narration.verify import FlaggedPolicy
    from panelvox.narration.vlm_backend import backend_for
    from panelvox.pages.opening import open_book_pages

    out = out or sys.stdout
    with open_book_pages(opts.book) as pages:
        check_page(opts.page, pages.book.page_count)
        analysis = pages.read(opts.page)
        image = pages.image(opts.page)
    backend = backend_for(opts.model, ModelRegistry(), opts.device)
    try:
        describer = Describer(backend, DescribeConfig(samples=opts.samples))
        verified = describe_verified(describer, image if backend.has_vision else None, analysis, opts.panel)
    finally:
        backend.close()
    policy = FlaggedPolicy.DROP if opts.drop_flagged else FlaggedPolicy.CUE
    if opts.as_json:
        json.dump([_panel_json(vp) for vp in verified], out, ensure_ascii=False, indent=1)
        out.write("\n")
    elif opts.narration:
        out.write(compose_page_narration(analysis, verified, policy=policy).text + "\n")
    else:
        for vp in verified:
            utterances = panel_utterances(vp, policy=policy)
            out.write(_("Panel {n}.").format(n=vp.panel_number) + "\n")
            if not utterances:
                out.write("  " + no_description_notice() + "\n")
            for u in utterances:
                out.write(f"  {u.text}\n")
    return 0


def _panel_json(vp: VerifiedPanel) -> dict[str, Any]:
    return {
        "panel": vp.panel_id,
        "number": vp.panel_number,
        "claims": [
            {
                "kind": c.claim.kind.value,
                "text": c.claim.text,
                "character": c.claim.character,
                "decision": c.decision.value,
                "agreement": c.agreement,
                "token_prob": c.claim.prob,
                "flags": [{"type": f.type.value, "evidence": f.evidence} for f in c.flags],
            }
            for c in vp.claims
        ],
    }
