"""One PDF page drawn in a process of its own, where its drawing may cost too much.

MuPDF cannot be stopped from another thread while it draws (pymupdf holds the GIL), and a
small page of vector strokes can take minutes: 20,000 strokes in 100 KB take 13 s here. A
page whose drawing instructions are small (a scanned page is one image) is drawn in place;
a page with more is drawn by a child process with a time and memory limit, and killed when
it runs past them. The child is this module (``python -m``), or the frozen app started with
:data:`RENDER_FLAG` (``packaging/entry.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pymupdf

#: the frozen app's hidden first argument that makes it draw one page and exit
RENDER_FLAG = "--panelvox-render-pdf-page"


def draw(page: pymupdf.Page, long_side: int) -> bytes:
    """``page`` drawn with its long side at ``long_side`` pixels, as PPM bytes."""
    rect = page.rect
    zoom = long_side / max(rect.width, rect.height)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csRGB, alpha=False)
    data: bytes = pix.tobytes("ppm")
    return data


def instruction_bytes(doc: pymupdf.Document, page: pymupdf.Page) -> int:
    """Stored size of the page's drawing instructions: its content streams and the forms
    (drawings used as pictures) it places, read from the PDF's dictionaries, not decoded."""
    xrefs = list(page.get_contents()) + [int(x[0]) for x in page.get_xobjects()]
    total = 0
    for xref in xrefs:
        kind, value = doc.xref_get_key(xref, "Length")
        total += int(value) if kind == "int" else 1 << 30  # a length not given plainly: costly
    return total


class TooCostly(Exception):
    """The child ran past its time or memory."""


def draw_apart(path: Path, index: int, long_side: int, seconds: float, memory: int) -> bytes:
    """Page ``index`` of ``path`` drawn by a child process; :class:`TooCostly` past the limits."""
    args = [str(path), str(index), str(long_side)]
    if getattr(sys, "frozen", False):
        command = [sys.executable, RENDER_FLAG, *args]
    else:
        command = [sys.executable, "-m", "panelvox.books.pdf_render", *args]

    def limit_memory() -> None:  # in the child, before it runs
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=seconds,
            preexec_fn=limit_memory if os.name == "posix" else None,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise TooCostly(f"drawing took over {seconds} s") from exc
    if done.returncode != 0 or not done.stdout:
        raise TooCostly(f"the drawing process ended with {done.returncode}: {done.stderr[-300:]!r}")
    return done.stdout


def main(argv: list[str]) -> int:
    """The child: draw one page and write its PPM bytes to standard output."""
    path, index, long_side = argv
    pymupdf.TOOLS.mupdf_display_errors(False)
    with pymupdf.open(path, filetype="pdf") as doc:
        data = draw(doc.load_page(int(index)), int(long_side))
    sys.stdout.buffer.write(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
