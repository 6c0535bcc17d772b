"""Entry point of the frozen app: the same ``panelvox`` command as the installed one."""

from __future__ import annotations

import multiprocessing

if __name__ == "__main__":
    # a frozen app must say so before anything could start a worker process
    multiprocessing.freeze_support()
    import sys

    # pdf_render.RENDER_FLAG, spelt out: importing that module here would load MuPDF in
    # every start of the app (tests/unit/test_pdf_render.py checks the two agree)
    if sys.argv[1:2] == ["--panelvox-render-pdf-page"]:  # a PDF page drawn apart
        from panelvox.books.pdf_render import main as draw_page

        raise SystemExit(draw_page(sys.argv[2:]))
    from panelvox.cli import main

    raise SystemExit(main())
