"""File > Export this book…: in the menu, on Control E, keyboard-complete, and really exports."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot
from reader_fixtures import make_book

from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.ui.export_dialog import FORMATS, ExportDialog, export_command
from panelvox.ui.reader_app import Reader


def test_export_is_in_the_file_menu_with_its_key(reader: Reader) -> None:
    file_menu = reader.window.menuBar().actions()[0].menu()
    texts = [a.text() for a in file_menu.actions()]  # type: ignore[union-attr]
    assert "&Export this book…" in texts
    assert reader.window.export_action.shortcut().toString() == "Ctrl+E"


@pytest.mark.slow
def test_control_e_opens_a_keyboard_complete_dialog_that_exports(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    book = make_book(tmp_path / "Test Book.cbz", pages=1, broken=None)
    assert reader.window.open_path(book)
    qtbot.keyClick(reader.window.tree, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    dialog = reader.window.export_dialog
    assert isinstance(dialog, ExportDialog) and dialog.isVisible()
    dialog.activateWindow()
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.format)

    # Tab walks every control in order (the audio box only where it applies)
    def chain() -> list[object]:
        dialog.format.setFocus()
        out = []
        for _ in range(3):
            dialog.focusNextChild()
            out.append(dialog.focusWidget())
        return out

    assert chain()[:2] == [dialog.path, dialog.browse]
    assert [dialog.format.itemData(i) for i in range(dialog.format.count())] == [f for f, _s, _l in FORMATS]
    assert dialog.path.text() == str(tmp_path / "Test Book.html")
    dialog.format.setCurrentIndex(2)  # DiViNa: the audio choice becomes available
    assert dialog.audio.isEnabled() and dialog.path.text().endswith("Test Book.divina")
    assert chain() == [dialog.audio, dialog.path, dialog.browse]
    dialog.format.setCurrentIndex(0)
    assert not dialog.audio.isEnabled()
    out = tmp_path / "exported.html"
    dialog.path.setText(str(out))
    dialog.accept()
    qtbot.waitUntil(
        lambda: (
            out.is_file()
            and dialog.process is not None
            and dialog.process.state() == dialog.process.ProcessState.NotRunning
        ),
        timeout=240_000,
    )
    reader.speech.wait_idle(5)
    heard = spy.texts(SpyEvent.STARTED)
    assert "Exporting to exported.html. You can go on reading." in heard
    assert "The export is done: exported.html." in heard
    assert "<h1>Test Book</h1>" in out.read_text(encoding="utf-8")


def test_the_command_is_panelvox_export(tmp_path: Path) -> None:
    cmd = export_command(tmp_path / "b.cbz", "divina", tmp_path / "b.divina", audio=True)
    assert cmd[-7:] == [
        "export",
        str(tmp_path / "b.cbz"),
        "--format",
        "divina",
        "--out",
        str(tmp_path / "b.divina"),
        "--audio",
    ]
    assert "--audio" not in export_command(tmp_path / "b.cbz", "html", tmp_path / "b.html", audio=True)


def test_every_label_with_an_access_key_has_its_field(qtbot: QtBot, tmp_path: Path) -> None:
    """A label's "&" marks its access key only when the label has a buddy; without one Qt
    shows a literal "&" ("&Save as:") and the key does nothing."""
    dialog = ExportDialog(tmp_path / "b.cbz", lambda _text: None)
    qtbot.addWidget(dialog)
    labels = {w.text(): w.buddy() for w in dialog.findChildren(QLabel) if "&" in w.text()}
    assert labels == {"&Format:": dialog.format, "&Save as:": dialog.path}
