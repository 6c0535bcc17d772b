"""What the reader controller's command mixins may use of the controller.

:class:`~panelvox.reader.reader_controller.ReaderController` is assembled from mixins
(settings, describe, names), each kept in its own module so every module stays small.
They share this base: the controller's members they read, and the controller methods they
call, declared once here and defined by the controller itself.
"""

from __future__ import annotations

from panelvox.books import Book
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.page_results import PageResults
from panelvox.reader.position import Position
from panelvox.speech.backend import Priority


class ControllerMembers:
    book: Book | None
    position: Position
    results: PageResults

    def outline(self, page: int) -> PageOutline:
        raise NotImplementedError

    def say_message(self, text: str, priority: Priority = Priority.NOW) -> None:
        raise NotImplementedError

    def interrupt(self) -> None:
        raise NotImplementedError

    def _need_book(self) -> bool:
        raise NotImplementedError

    def _update_jobs(self) -> None:
        raise NotImplementedError
