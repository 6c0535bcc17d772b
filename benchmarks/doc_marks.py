"""The one line a benchmark keeps in docs/benchmarks.md, between its two markers."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def write_between_marks(mark: str, line: str) -> None:
    """Replace what stands between the two ``mark`` comments of docs/benchmarks.md by ``line``."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(mark)
    end = text.index(mark, start + 1)
    DOCS.write_text(text[: start + len(mark)] + "\n" + line + "\n" + text[end:], encoding="utf-8")
