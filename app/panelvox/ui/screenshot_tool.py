"""Save a picture of the reader window on a book (for the README).

    xvfb-run -a python -m panelvox.ui.screenshot_tool assets/sample.cbz docs/img/reader.png [--keys 2]

Opens the book with the real pipeline and silent speech, waits for the first page's
analysis, moves ``--keys`` balloons forward (so one is outlined) and grabs the window.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from panelvox.speech.backends.silence_backend import SilenceBackend
from panelvox.ui.reader_app import build_reader


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("book", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--keys", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    reader = build_reader(backends=[SilenceBackend()], screen_reader=False, persist_settings=False)
    reader.window.resize(1200, 860)
    reader.window.show()
    reader.controller.open(args.book)
    deadline = time.monotonic() + args.timeout
    while (
        not reader.controller.outline(reader.controller.position.page).ready and time.monotonic() < deadline
    ):
        app.processEvents()
        time.sleep(0.05)
    for _ in range(args.keys):
        QTest.keyClick(reader.window.tree, Qt.Key.Key_Right)
    end = time.monotonic() + 2
    while time.monotonic() < end or (reader.window.page_view.image is None and time.monotonic() < deadline):
        app.processEvents()
        time.sleep(0.05)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    ok = reader.window.grab().save(str(args.out))
    reader.close()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
