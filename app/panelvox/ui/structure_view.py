"""The page as a native accessible list: the page, then each panel followed by its balloons.

Each item's accessible name is exactly what the reader says on landing there, so a screen
reader's own navigation reads the same words as Panelvox's keys. Its shown text is the same,
except where the screen reader's voice cannot say the lettering's language: the name then
carries the frame ("Character 1: Japanese.", Panelvox's Japanese voice says the words after
it) and the list still shows the lettering. The list is
flat, with the level in the words ("Page 3: …", "Panel 2. …", then the balloons): in a tree,
Orca says "expanded" after every item that has children, NVDA "expanded" and "level 2",
JAWS "open" and the level, which is noise when every panel is always open. A flat list is
read by all three as the item's text (and, at the user's choice, its position).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QWidget

from panelvox.i18n import _
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Level, Position

_POSITION_ROLE = Qt.ItemDataRole.UserRole + 1
_DEPTH = {Level.PAGE: 0, Level.PANEL: 1, Level.BALLOON: 2}


class StructureView(QListWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # Translators: accessible name of the list of the page, its panels and balloons.
        self.setAccessibleName(_("Page structure"))
        # Translators: accessible description of the structure list.
        self.setAccessibleDescription(_("Panels and balloons of the page, in reading order"))
        self._items: dict[Position, QListWidgetItem] = {}
        self.outline: PageOutline | None = None

    def show_outline(self, outline: PageOutline, position_texts: dict[Position, tuple[str, str]]) -> None:
        """Rebuild the list for ``outline``; ``position_texts`` gives each item's (shown text,
        accessible name)."""
        self.outline = outline
        self.blockSignals(True)
        try:
            self.clear()
            self._items.clear()
            positions = [Position(outline.index)]
            for group in outline.panels:
                positions.append(Position(outline.index, group.first, Level.PANEL))
                positions.extend(
                    Position(outline.index, i, Level.BALLOON) for i in range(group.first, group.last + 1)
                )
            for pos in positions:
                self._item(pos, *position_texts[pos])
        finally:
            self.blockSignals(False)

    def _item(self, pos: Position, shown: str, name: str) -> QListWidgetItem:
        item = QListWidgetItem(shown, self)
        item.setData(_POSITION_ROLE, pos)
        # Qt's AT-SPI bridge names an item by this role (its shown text only when it is empty)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, name)
        item.setToolTip(shown)
        self._items[pos] = item
        return item

    @staticmethod
    def position_of(item: QListWidgetItem | None) -> Position | None:
        if item is None:
            return None
        pos = item.data(_POSITION_ROLE)
        return pos if isinstance(pos, Position) else None

    def select(self, pos: Position) -> None:
        """Make ``pos`` the current item (a focus event for screen readers) without echoing it back."""
        item = self._items.get(pos)
        if item is None:
            return
        self.blockSignals(True)
        try:
            self.setCurrentItem(item)
            self.scrollToItem(item)
        finally:
            self.blockSignals(False)

    def names(self) -> list[tuple[int, str]]:
        """(level: 0 page, 1 panel, 2 balloon; accessible name) of every item: what tests compare."""
        out: list[tuple[int, str]] = []
        for i in range(self.count()):
            item = self.item(i)
            pos = self.position_of(item)
            if item is not None and pos is not None:
                out.append((_DEPTH[pos.level], str(item.data(Qt.ItemDataRole.AccessibleTextRole))))
        return out
