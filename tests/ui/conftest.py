"""Fixtures of the reader tests (helpers live in reader_fixtures.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from reader_fixtures import book_path, queue, reader, spy

# the pages of running text the dense-text tests render (tests/unit/text_pages.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))

__all__ = ["book_path", "queue", "reader", "spy"]
