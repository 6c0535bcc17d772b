"""Messages a running screen reader speaks itself: a notification in the status bar.

Where-am-I, the key list, the overview and errors are said by the screen reader, in its
voice, its queue and on its braille display, instead of going to the speech server behind
its back. Orca speaks an accessible object of role *notification* when it is shown (its
``object:state-changed:showing`` handler), and inside a status bar without the word
"notification"; it also keeps the text in its notification history. Qt gives a widget that
role only through an accessible-interface factory, installed once per process.
"""

from __future__ import annotations

import atexit

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget, QHBoxLayout, QLabel, QWidget


class Announcer(QWidget):
    """A status-bar notification: :meth:`announce` shows a message for the screen reader."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        self.text = ""

    def announce(self, text: str) -> None:
        """Show ``text``: hidden and shown again, so the same message twice is said twice."""
        self.text = text
        self.label.setText(text)
        self.hide()
        self.show()


class _NotificationAccessible(QAccessibleWidget):
    def __init__(self, widget: Announcer) -> None:
        super().__init__(widget, QAccessible.Role.Notification)


#: the interfaces the factory made, by Qt's id: Qt keeps them in a cache it empties when the
#: application ends, after Python has gone, and a Python-made interface deleted then crashes
#: the process on exit; :func:`_release` deletes them while Python still runs
_made: dict[int, _NotificationAccessible] = {}


def _factory(key: str, obj: QObject) -> QAccessibleInterface | None:
    if key == Announcer.__name__ and isinstance(obj, Announcer):
        iface = _NotificationAccessible(obj)
        _made[id(iface)] = iface
        return iface
    return None


def _release() -> None:
    for iface in list(_made.values()):
        try:
            if iface.isValid():
                QAccessible.deleteAccessibleInterface(QAccessible.uniqueId(iface))
        except RuntimeError:  # Qt deleted it already, with its widget
            pass
    _made.clear()


def install_notification_role() -> None:
    """Give :class:`Announcer` widgets the notification role (once per process)."""
    probe = Announcer()  # a throwaway widget: its role tells whether the factory is in already
    try:
        iface = QAccessible.queryAccessibleInterface(probe)
        if iface is None or iface.role() is not QAccessible.Role.Notification:
            QAccessible.installFactory(_factory)
            atexit.register(_release)
    finally:
        probe.deleteLater()
