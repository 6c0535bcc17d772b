"""Entry point of the frozen app: the same ``panelvox`` command as the installed one."""

from __future__ import annotations

import multiprocessing

if __name__ == "__main__":
    # a frozen app must say so before anything could start a worker process
    multiprocessing.freeze_support()
    import sys

    from panelvox.books.pdf_render import RENDER_FLAG

    if sys.argv[1:2] == [RENDER_FLAG]:  # a PDF page drawn apart (books/pdf_render.py)
        from panelvox.books.pdf_render import main as draw_page

        raise SystemExit(draw_page(sys.argv[2:]))
    from panelvox.cli import main

    raise SystemExit(main())
