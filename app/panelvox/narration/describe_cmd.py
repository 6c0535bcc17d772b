"""``panelvox models``, ``panelvox describe`` and ``panelvox ask``: the describer from the command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from panelvox.analysis.analyze_cmd import analyze_book_page
from panelvox.errors import BookError, ModelUnavailable
from panelvox.i18n import _
from panelvox.model import Image, PageAnalysis
from panelvox.models.device import Device
from panelvox.models.registry import ModelEntry, ModelRegistry, ModelRole, read_gguf_info
from panelvox.narration.describe import DescribeConfig, Describer
from panelvox.narration.page_narration import ask, cited_words, compose_page_narration, panel_utterances
from panelvox.narration.verify import FlaggedPolicy, VerifiedPanel, verify_panel
from panelvox.narration.vlm_backend import BackendConfig, LlamaBackend


# -- models -------------------------------------------------------------------------------------------
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
    if entry.role is ModelRole.VLM:
        return f"{entry.architecture} + {entry.projector} image encoder"
    return f"{entry.architecture}, text only"


# -- describe / ask -------------------------------------------------------------------------------------
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


def entry_for(name: str | None, registry: ModelRegistry | None = None) -> ModelEntry:
    """The named model (or the first vision model added, else the first text model)."""
    reg = registry or ModelRegistry()
    try:
        return reg.get(name, None if name else ModelRole.VLM)
    except ModelUnavailable:
        if name is not None:
            raise
        return reg.get(None, ModelRole.LLM)


def backend_for(
    name: str | None, device: Device = Device.AUTO, registry: ModelRegistry | None = None
) -> LlamaBackend:
    """A backend for the named model (or the first vision model added)."""
    entry = entry_for(name, registry)
    read_gguf_info(entry.path)  # a moved or damaged file fails here with a clear message
    return LlamaBackend(BackendConfig(entry.path, entry.mmproj, device=device))


def describe_verified(
    describer: Describer, image: Image | None, analysis: PageAnalysis, panel: int | None = None
) -> list[VerifiedPanel]:
    """Describe and verify the page's panels (or the ``panel``-th one, 1-based)."""
    panels = analysis.panels_in_order()
    if panel is not None:
        if not 1 <= panel <= len(panels):
            # Translators: asked to describe a panel number the page does not have.
            raise BookError(
                _("There is no panel {n} on this page.").format(n=panel), detail=f"{len(panels)} panels"
            )
        panels = [panels[panel - 1]]
    return [verify_panel(d, analysis) for d in describer.describe_page(image, analysis, panels=panels)]


def run_describe(opts: DescribeOptions, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    image, analysis = analyze_book_page(opts.book, opts.page)
    backend = backend_for(opts.model, opts.device)
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
                from panelvox.narration.describe import no_description_notice

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


def run_ask(
    book: Path,
    page: int,
    question: Sequence[str],
    *,
    model: str | None = None,
    use_model: bool = True,
    out: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    image, analysis = analyze_book_page(book, page)
    backend = None
    if use_model:
        try:
            backend = backend_for(model)
        except ModelUnavailable:
            backend = None  # the structure alone still answers many questions
    try:
        verified = []
        if backend is not None:
            verified = describe_verified(Describer(backend), image if backend.has_vision else None, analysis)
        answer = ask(" ".join(question), analysis, verified, backend=backend)
    finally:
        if backend is not None:
            backend.close()
    out.write(answer.text + "\n")
    where = cited_words(answer, analysis)
    if where:
        out.write(where + "\n")
    return 0
