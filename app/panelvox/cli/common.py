"""What several commands share: page numbers and ranges, the usage error."""

from __future__ import annotations

from panelvox.errors import PanelvoxError
from panelvox.i18n import _


class UsageError(PanelvoxError):
    """The command line asks for something impossible (a page out of range…)."""


def check_page(number: int, page_count: int) -> None:
    """Raise :class:`UsageError` for a page the book does not have."""
    if not 1 <= number <= page_count:
        raise UsageError(
            # Translators: asked for a page number the book does not have.
            _("There is no page {n} in this book.").format(n=number),
            detail=f"{page_count} pages",
        )


def check_range(first: int, last: int, page_count: int) -> None:
    """Raise :class:`UsageError` unless ``first``..``last`` are pages of the book."""
    if not 1 <= first <= last <= page_count:
        raise UsageError(
            # Translators: spoken when the asked pages are not in the book; {count} is its page count.
            _("This book has pages 1 to {count}.").format(count=page_count),
            detail=f"asked for pages {first}-{last}",
        )


def parse_pages(page: int | None, pages: str | None) -> tuple[int, int] | None:
    """``--page N`` or ``--pages A-B`` as an inclusive range."""
    if page is not None:
        return (page, page)
    if pages is None:
        return None
    first, sep, last = pages.partition("-")
    try:
        a = int(first)
        b = int(last) if sep and last else a
    except ValueError:
        raise UsageError(
            # Translators: spoken when --pages is not like "3-7".
            _("Give pages as a range like 3-7."),
            detail=f"bad --pages {pages!r}",
        ) from None
    return (a, b)
