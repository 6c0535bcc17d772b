"""What a benchmark keeps in docs/benchmarks.md: a line between its two markers, or a section."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def write_between_marks(mark: str, line: str) -> None:
    """Replace what stands between the two ``mark`` comments of docs/benchmarks.md by ``line``."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(mark)
    end = text.index(mark, start + 1)
    DOCS.write_text(text[: start + len(mark)] + "\n" + line + "\n" + text[end:], encoding="utf-8")


def replace_section(heading: str, text: str) -> None:
    """Replace the section that starts with ``heading`` (up to the next "## ") by ``text``,
    or add ``text`` at the end of docs/benchmarks.md where there is no such section."""
    old = DOCS.read_text(encoding="utf-8")
    start = old.find(heading)
    if start >= 0:
        end = old.find("\n## ", start + 1)
        new = old[:start] + text + ("\n" + old[end + 1 :] if end >= 0 else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    DOCS.write_text(new, encoding="utf-8")
    print(f"wrote {DOCS}")
