"""Book adapters are discovered by module name, and each format's library loads only when needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from panelvox.books.adapter import BookFormat
from panelvox.books.adapter_discovery import adapter_class, adapter_modules
from panelvox.errors import UnsupportedFormat

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("fmt", list(BookFormat))
def test_every_format_has_an_adapter_found_by_its_module_name(fmt: BookFormat) -> None:
    assert adapter_modules()[fmt] == f"panelvox.books.{fmt.name.lower()}_adapter"
    cls: Any = adapter_class(fmt)  # a class; AdapterClass types only its call
    assert cls.format is fmt


def test_a_missing_adapter_is_said_in_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    from panelvox.books import adapter_discovery

    monkeypatch.setattr(adapter_discovery, "adapter_modules", lambda: {})
    with pytest.raises(UnsupportedFormat) as err:
        adapter_class(BookFormat.PDF)
    assert "PDF document" in err.value.message and "pdf_adapter" in err.value.detail


def test_opening_a_cbz_loads_no_other_format_library() -> None:
    script = (
        "import sys\n"
        "from panelvox.books import open_book\n"
        f"open_book({str(ROOT / 'assets' / 'sample.cbz')!r})\n"
        "print(sorted(m for m in ('pymupdf', 'rarfile', 'py7zr') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
