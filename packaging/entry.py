"""Entry point of the frozen app: the same ``panelvox`` command as the installed one."""

from __future__ import annotations

import multiprocessing

if __name__ == "__main__":
    # a frozen app must say so before anything could start a worker process
    multiprocessing.freeze_support()
    from panelvox.cli import main

    raise SystemExit(main())
