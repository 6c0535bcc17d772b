"""What a view hears from the reader controller, and the one-sentence utterance helper."""

from __future__ import annotations

from panelvox.narration.prefs import UtteranceKind
from panelvox.narration.script import Utterance
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Position
from panelvox.reader.reader_settings import ReaderSettings

__all__ = ["ReaderListener", "message"]


class ReaderListener:
    """What a view hears from the controller (all on the view's thread). No-ops by default."""

    def book_changed(self) -> None:
        """A book was opened (or closed)."""

    def outline_changed(self, outline: PageOutline) -> None:
        """The current page's structure is (re)built."""

    def position_changed(self, position: Position, *, focus: bool) -> None:
        """Show ``position``; with ``focus``, move the keyboard focus there too."""

    def status_changed(self, text: str) -> None:
        """The status line."""

    def appearance_changed(self, settings: ReaderSettings) -> None:
        """Large text, high contrast or zoom changed."""

    def announce(self, text: str) -> bool:
        """Have the running screen reader say a message itself; False when the view cannot."""
        return False

    def present(self, position: Position, text: str) -> bool:
        """Have the running screen reader say the item at ``position`` (its name ``text``):
        say all's stop. False when the view cannot."""
        return False


def message(text: str) -> Utterance:
    return Utterance(UtteranceKind.NOTICE, text, text)
