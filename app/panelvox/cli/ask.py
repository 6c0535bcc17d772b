"""``panelvox ask BOOK --page N QUESTION``: a question about a page, answered from its structure."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from panelvox.cli.common import check_page
from panelvox.errors import ModelUnavailable
from panelvox.i18n import _

if TYPE_CHECKING:
    from panelvox.narration.vlm_backend import LlamaBackend


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Translators: help for `panelvox ask`.
    p = sub.add_parser("ask", help=_("ask a question about a page"))
    p.add_argument("book", type=Path)
    p.add_argument("--page", type=int, default=1, metavar="N", help=_("page number, from 1"))
    p.add_argument("--model", metavar="NAME", help=_("the model to use (see panelvox models list)"))
    # Translators: help for --no-model of `panelvox ask`.
    p.add_argument("--no-model", action="store_true", help=_("answer from the page analysis only"))
    p.add_argument("question", nargs="+")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_ask(args.book, args.page, args.question, model=args.model, use_model=not args.no_model)


def run_ask(
    book: Path,
    page: int,
    question: Sequence[str],
    *,
    model: str | None = None,
    use_model: bool = True,
    out: TextIO | None = None,
) -> int:
    # the describer's modules are imported when asking (not on every `panelvox` start)
    from panelvox.models.registry import ModelRegistry
    from panelvox.narration.describe import Describer
    from panelvox.narration.page_answers import BookTitle, ask, cited_words
    from panelvox.narration.page_narration import describe_verified
    from panelvox.narration.prefs import load_prefs
    from panelvox.narration.vlm_backend import backend_for
    from panelvox.pages.opening import open_book_pages

    out = out or sys.stdout
    with open_book_pages(book) as pages:
        check_page(page, pages.book.page_count)
        analysis = pages.read(page)
        image = pages.image(page)
        book_title = BookTitle.of(pages.book)
    backend: LlamaBackend | None = None
    if use_model:
        try:
            backend = backend_for(model, ModelRegistry())
        except ModelUnavailable:
            backend = None  # the structure alone still answers many questions
    try:
        verified = []
        if backend is not None:
            verified = describe_verified(Describer(backend), image if backend.has_vision else None, analysis)
        answer = ask(
            " ".join(question), analysis, verified, backend=backend, prefs=load_prefs(), book=book_title
        )
    finally:
        if backend is not None:
            backend.close()
    out.write(answer.text + "\n")
    where = cited_words(answer, analysis)
    if where:
        out.write(where + "\n")
    return 0
