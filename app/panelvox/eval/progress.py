"""A plain progress bar on stderr (no dependency; quiet when stderr is not a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Call with (done, total, label); redraws one line."""

    def __init__(self, title: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.title = title
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self._start = time.perf_counter()
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int, label: str) -> None:
        filled = int(self.width * done / total) if total else self.width
        elapsed = time.perf_counter() - self._start
        bar = "#" * filled + "." * (self.width - filled)
        line = f"{self.title} [{bar}] {done}/{total} {elapsed:5.1f}s {label[:40]}"
        if self._tty:
            self.stream.write("\r" + line.ljust(100))
            if done >= total:
                self.stream.write("\n")
        elif done >= total or done % 10 == 0:
            self.stream.write(line + "\n")
        self.stream.flush()
