"""Fixtures of the reader tests (helpers live in reader_fixtures.py)."""

from __future__ import annotations

from reader_fixtures import book_path, queue, spy

__all__ = ["book_path", "queue", "spy"]
