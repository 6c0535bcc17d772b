"""The page service: book → cached analysis → the book's names; the one way to read a page."""

from panelvox.pages.page_service import PageBook, PageService, PageSource

__all__ = ["PageBook", "PageService", "PageSource"]
