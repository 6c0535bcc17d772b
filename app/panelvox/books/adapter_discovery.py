"""Find book adapters by their module's name, not through an if/elif over the formats.

A format's adapter lives in ``panelvox/books/<format>_adapter.py``, where ``<format>`` is
the :class:`BookFormat` member's name in lower case (``seven_zip_adapter`` for
``SEVEN_ZIP``), and is the class defined there whose ``format`` is that member (the
:class:`~panelvox.books.adapter.BookAdapter` protocol). The modules are listed with
:mod:`pkgutil` without importing them; one is imported only when a book of its format is
opened, so PyMuPDF, rarfile and py7zr load only for the books that need them. The frozen
app names every ``*_adapter`` module in its hiddenimports (packaging/panelvox.spec).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias, cast

from panelvox.books.adapter import BookAdapter, BookFormat
from panelvox.books.limits import Limits
from panelvox.errors import UnsupportedFormat
from panelvox.i18n import _

log = logging.getLogger(__name__)

SUFFIX = "_adapter"

#: An adapter class: called with the book's path and the limits, it opens the book.
AdapterClass: TypeAlias = Callable[[Path, Limits], BookAdapter]


def adapter_modules() -> dict[BookFormat, str]:
    """The adapter module of each format found, by full module name (nothing is imported)."""
    from panelvox import books as package

    formats = {f.name.lower(): f for f in BookFormat}
    found: dict[BookFormat, str] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.endswith(SUFFIX):
            continue
        fmt = formats.get(info.name.removesuffix(SUFFIX))
        if fmt is None:
            log.warning("book adapter module %s names no book format", info.name)
            continue
        found[fmt] = f"{package.__name__}.{info.name}"
    return found


def adapter_class(fmt: BookFormat) -> AdapterClass:
    """The adapter class for ``fmt``, importing its module (and its library) now."""
    name = adapter_modules().get(fmt)
    if name is None:
        raise _cannot_open(fmt, f"no module {fmt.name.lower()}{SUFFIX} in panelvox.books")
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # the format's library is not installed
        raise _cannot_open(fmt, f"{name} not importable: {exc!r}") from exc
    for obj in vars(module).values():
        if isinstance(obj, type) and obj.__module__ == name and getattr(obj, "format", None) is fmt:
            return cast(AdapterClass, obj)
    raise _cannot_open(fmt, f"{name} defines no class whose format is {fmt}")


def open_adapter(path: Path, fmt: BookFormat, limits: Limits) -> BookAdapter:
    """Open the book at ``path`` with the adapter for ``fmt``."""
    return adapter_class(fmt)(path, limits)


def _cannot_open(fmt: BookFormat, detail: str) -> UnsupportedFormat:
    return UnsupportedFormat(
        # Translators: spoken when this installation lacks the part that reads one book format;
        # {format} is the format's name, e.g. "PDF document" or "folder of images".
        _("This copy of Panelvox cannot open a {format}: a part it needs is missing.").format(
            format=fmt.describe()
        ),
        detail=detail,
    )
