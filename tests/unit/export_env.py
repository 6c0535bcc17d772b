"""What the export tests share: the sample books, one analysis cache per test module (the
pages are analysed once, then every format reads them from the cache, as a user's second
export does), and the narration as ``panelvox narrate --text`` prints it."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = {"sample": REPO / "assets" / "sample.cbz", "sample-rtl": REPO / "assets" / "sample-rtl.cbz"}
_XDG = ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")


@contextmanager
def module_home(root: Path) -> Iterator[None]:
    """Point the XDG folders at ``root`` (worker processes inherit it), then restore them."""
    old = {k: os.environ.get(k) for k in _XDG}
    for k in _XDG:
        os.environ[k] = str(root / k.lower())
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def narrated_pages(book: Path) -> dict[int, list[str]]:
    """``panelvox narrate BOOK --text``: page number -> the lines said after its overview."""
    from panelvox.cli.narrate import NarrateOptions, run_narrate

    out = io.StringIO()
    assert run_narrate(NarrateOptions(book=book, text=True), out=out, err=io.StringIO()) == 0
    pages: dict[int, list[str]] = {}
    current: list[str] = []
    for raw in out.getvalue().splitlines():
        head = re.match(r"Page (\d+): ", raw)
        if head:
            current = pages.setdefault(int(head.group(1)), [])
        elif raw.startswith("  "):
            current.append(raw[2:])
    return pages
