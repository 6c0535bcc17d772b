"""The page as a native accessible tree: page → panels → balloons.

Each item's text (its accessible name) is exactly what the reader says on landing there,
so a screen reader's own tree navigation reads the same words as Panelvox's keys.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QTreeWidgetItem, QWidget

from panelvox.i18n import _
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Level, Position

_POSITION_ROLE = Qt.ItemDataRole.UserRole + 1


class StructureView(QTreeWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setColumnCount(1)
        self.setWordWrap(True)
        self.setUniformRowHeights(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # Translators: accessible name of the tree of panels and balloons.
        self.setAccessibleName(_("Page structure"))
        # Translators: accessible description of the structure tree.
        self.setAccessibleDescription(_("Panels and balloons of the page, in reading order"))
        self._items: dict[Position, QTreeWidgetItem] = {}
        self.outline: PageOutline | None = None

    def show_outline(self, outline: PageOutline, position_texts: dict[Position, str]) -> None:
        """Rebuild the tree for ``outline``; ``position_texts`` gives each item's spoken text."""
        self.outline = outline
        self.blockSignals(True)
        try:
            self.clear()
            self._items.clear()
            page_pos = Position(outline.index)
            page = self._item(None, page_pos, position_texts[page_pos])
            for group in outline.panels:
                ppos = Position(outline.index, group.first, Level.PANEL)
                pitem = self._item(page, ppos, position_texts[ppos])
                for i in range(group.first, group.last + 1):
                    bpos = Position(outline.index, i, Level.BALLOON)
                    self._item(pitem, bpos, position_texts[bpos])
            self.expandAll()
        finally:
            self.blockSignals(False)

    def _item(self, parent: QTreeWidgetItem | None, pos: Position, text: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([text]) if parent is None else QTreeWidgetItem(parent, [text])
        item.setData(0, _POSITION_ROLE, pos)
        item.setData(0, Qt.ItemDataRole.AccessibleTextRole, text)
        item.setToolTip(0, text)
        if parent is None:
            self.addTopLevelItem(item)
        self._items[pos] = item
        return item

    @staticmethod
    def position_of(item: QTreeWidgetItem | None) -> Position | None:
        if item is None:
            return None
        pos = item.data(0, _POSITION_ROLE)
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
        """(depth, accessible name) of every item, depth-first: what tests compare."""
        out: list[tuple[int, str]] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append((depth, item.text(0)))
            for i in range(item.childCount()):
                child = item.child(i)
                if child is not None:
                    walk(child, depth + 1)

        for i in range(self.topLevelItemCount()):
            top = self.topLevelItem(i)
            if top is not None:
                walk(top, 0)
        return out
