#!/usr/bin/env python3
"""Describer + verifier benchmark: seconds per panel and page, tokens/s, and the verifier's effect.

    python benchmarks/bench_describe.py [--model M.gguf --mmproj P.gguf] [--pages N] [--write]

Without --model it runs the tiny random-weight VLM that scripts/make_tiny_vlm.py writes (the
only VLM this project can obtain without a download): the numbers then measure the chain's
overhead (image encoding, grammar-constrained sampling, verification), not a real model.

Pages: assets/sample-rtl.cbz and assets/sample.cbz, analysed with the default pipeline.
The "quoting text that is not there" rate of the page narrations is scored with the eval's own
metric (panelvox.eval.dialogue_metrics.narration_faithfulness) with the verifier off (claims
as the model gave them) and on (verified). The same measurement over the cib pages with human
narrations, and the verifier on injected hallucinations, is ``panelvox eval cib --stage
describe`` (panelvox.eval.describe_eval); its numbers go into benchmarks/describe_notes.md.
``--write`` replaces the "Describer and verifier (issue 7)" section of docs/benchmarks.md
with this script's rows followed by benchmarks/describe_notes.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from panelvox.analysis.cache import PageAnalyzer  # noqa: E402
from panelvox.analysis.pipeline import default_stages  # noqa: E402
from panelvox.books import open_book  # noqa: E402
from panelvox.eval.dialogue_metrics import narration_faithfulness  # noqa: E402
from panelvox.models.device import Device  # noqa: E402
from panelvox.narration.describe import DescribeConfig, Describer, PanelDescription  # noqa: E402
from panelvox.narration.page_narration import compose_page_narration  # noqa: E402
from panelvox.narration.verify import Decision, VerifiedClaim, VerifiedPanel, verify_panel  # noqa: E402
from panelvox.narration.vlm_backend import BackendConfig, LlamaBackend  # noqa: E402

SECTION = "## Describer and verifier (issue 7)"


def _unverified(desc: PanelDescription) -> VerifiedPanel:
    """The claims as the model gave them (the verifier off)."""
    claims = desc.samples[0].claims if desc.samples else ()
    return VerifiedPanel(
        desc.facts.panel_id, desc.facts.panel_number, tuple(VerifiedClaim(c, Decision.KEEP) for c in claims)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", type=Path)
    ap.add_argument("--mmproj", type=Path)
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--device", choices=["auto", "cpu", "gpu"], default="auto")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory()
    label = "user model"
    if args.model is None:
        subprocess.run(
            [sys.executable, str(REPO / "scripts" / "make_tiny_vlm.py"), tmp.name],
            check=True,
            capture_output=True,
        )
        args.model, args.mmproj = Path(tmp.name) / "tiny-vlm.gguf", Path(tmp.name) / "tiny-vlm-mmproj.gguf"
        label = "tiny random VLM (scripts/make_tiny_vlm.py: llama 2x64 + CLIP/mlp 2x32, 32 px)"
    backend = LlamaBackend(BackendConfig(args.model, args.mmproj, device=Device(args.device)))
    t0 = time.perf_counter()
    backend.load()
    load_s = time.perf_counter() - t0
    describer = Describer(backend, DescribeConfig(samples=args.samples))
    analyzer = PageAnalyzer(default_stages(), cache=None)
    pages = []
    for book_path in (REPO / "assets" / "sample-rtl.cbz", REPO / "assets" / "sample.cbz"):
        with open_book(book_path) as book:
            for i in range(book.page_count):
                if len(pages) >= args.pages:
                    break
                image = book.load_page_array(i)
                pages.append(
                    (image, analyzer.analyze(book.content_hash, i + 1, book.direction, lambda im=image: im))
                )
    panel_s: list[float] = []
    page_s: list[float] = []
    tokens = 0
    gen_s = 0.0
    flagged = {d: 0 for d in Decision}
    by_type: dict[str, int] = {}
    off_quotes = off_bad = on_quotes = on_bad = 0
    for image, analysis in pages:
        start = time.perf_counter()
        verified, raw = [], []
        for panel in analysis.panels_in_order():
            p0 = time.perf_counter()
            desc = describer.describe_panel(image, analysis, panel)
            vp = verify_panel(desc, analysis)
            panel_s.append(time.perf_counter() - p0)
            tokens += desc.tokens
            gen_s += desc.seconds
            verified.append(vp)
            raw.append(_unverified(desc))
            for c in vp.claims:
                flagged[c.decision] += 1
                for f in c.flags:
                    by_type[f.type.value] = by_type.get(f.type.value, 0) + 1
        page_s.append(time.perf_counter() - start)
        texts = [b.text for b in analysis.blocks]
        off = narration_faithfulness(compose_page_narration(analysis, raw).text, texts)
        on = narration_faithfulness(compose_page_narration(analysis, verified).text, texts)
        off_quotes, off_bad = off_quotes + off.quotes, off_bad + len(off.unsupported)
        on_quotes, on_bad = on_quotes + on.quotes, on_bad + len(on.unsupported)
    backend.close()
    n_claims = sum(flagged.values())
    cpu = platform.processor() or platform.machine()
    rows = [
        f"- model: {label}; device: {'GPU (all layers)' if backend.gpu_layers else 'CPU'}; "
        f"{os.cpu_count()} cores ({cpu}); load {load_s:.2f} s",
        f"- pages: {len(pages)} (assets/sample-rtl.cbz, assets/sample.cbz), panels: {len(panel_s)}, "
        f"samples per panel: {args.samples}",
        f"- seconds per panel (describe {args.samples} samples + verify): mean "
        f"{sum(panel_s) / max(len(panel_s), 1):.2f}, max {max(panel_s, default=0):.2f}",
        f"- seconds per page: mean {sum(page_s) / max(len(page_s), 1):.2f}",
        f"- generation: {tokens} tokens in {gen_s:.1f} s = {tokens / gen_s if gen_s else 0:.0f} tokens/s "
        "(image encoding and prompt included)",
        f"- claims: {n_claims}; kept {flagged[Decision.KEEP]}, uncertain {flagged[Decision.UNCERTAIN]}, "
        f"dropped {flagged[Decision.DROP]}; flags by type: "
        + (", ".join(f"{k} {v}" for k, v in sorted(by_type.items())) or "none"),
        f"- quoted strings in the composed page narrations (OCR dialogue included), verifier off: "
        f"{off_quotes}, {off_bad} not on the page; verifier on: {on_quotes}, {on_bad} not on the page",
    ]
    print("\n".join(rows))
    if args.write:
        _write(rows)
    return 0


def _write(rows: list[str]) -> None:
    doc = REPO / "docs" / "benchmarks.md"
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    notes = (REPO / "benchmarks" / "describe_notes.md").read_text(encoding="utf-8").strip()
    body = (
        f"{SECTION}\n\n2026-11-22, 2-core Debian 12 CPU, `python benchmarks/bench_describe.py --write`.\n\n"
        + "\n".join(rows)
        + "\n\n"
        + notes
        + "\n"
    )
    pattern = re.compile(rf"{re.escape(SECTION)}\n.*?(?=\n## |\Z)", re.S)
    text = (
        pattern.sub(lambda _m: body.rstrip("\n") + "\n", text)
        if pattern.search(text)
        else text.rstrip("\n") + "\n\n" + body
    )
    doc.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
