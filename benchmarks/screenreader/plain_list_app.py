"""A plain Qt list (50 items) for the key → screen reader latency baseline: nothing but Qt.

Run with the project's python: ``python plain_list_app.py``; its AT-SPI application name is
"plainlist" and the list is named "Plain list".
"""

from __future__ import annotations

import os
import sys

from PySide6.QtWidgets import QApplication, QListWidget


def main() -> int:
    os.environ.setdefault("QT_ACCESSIBILITY", "1")
    app = QApplication(sys.argv[:1])
    app.setApplicationName("plainlist")
    lst = QListWidget()
    lst.setAccessibleName("Plain list")
    lst.setWindowTitle("Plain list")
    for n in range(1, 51):
        lst.addItem(f"Item {n}: a line of about the length of a balloon, said on landing.")
    lst.setCurrentRow(0)
    lst.resize(600, 400)
    lst.show()
    lst.activateWindow()
    lst.setFocus()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
