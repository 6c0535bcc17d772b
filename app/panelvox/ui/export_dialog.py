"""File > Export this book…: the choices of ``panelvox export`` in a keyboard-complete dialog.

The export runs as ``panelvox export`` in its own process (the same command, the same page
service and cache): the window stays responsive, and the reader hears when it is done.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QProcess
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from panelvox.i18n import _

#: (format, file ending, how it is named in the dialog)
FORMATS = (
    # Translators: an export format in the export dialog.
    ("html", ".html", _("Accessible web page (HTML)")),
    # Translators: an export format in the export dialog.
    ("epub", ".epub", _("EPUB 3 e-book")),
    # Translators: an export format in the export dialog.
    ("divina", ".divina", _("Readium DiViNa with guided navigation")),
    # Translators: an export format in the export dialog.
    ("audiobook", ".ogg", _("Audiobook, a chapter per page (OGG)")),
)


def export_command(book: Path, fmt: str, out: Path, *, audio: bool) -> list[str]:
    """The ``panelvox export`` command line for this program (the frozen app is its own
    command; from Python, the module)."""
    program = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "panelvox.cli"]
    extra = ["--audio"] if audio and fmt == "divina" else []
    return [*program, "export", str(book), "--format", fmt, "--out", str(out), *extra]


class ExportDialog(QDialog):
    """Format, audio, where to write; OK starts the export, ``say`` tells how it went."""

    def __init__(self, book: Path, say: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.book, self.say = book, say
        self.process: QProcess | None = None
        # Translators: title of the export dialog.
        self.setWindowTitle(_("Export this book"))
        self.format = QComboBox()
        for fmt, _suffix, label in FORMATS:
            self.format.addItem(label, fmt)
        # Translators: accessible name of the export format list.
        self.format.setAccessibleName(_("Format"))
        # Translators: the export dialog's check box for DiViNa audio.
        self.audio = QCheckBox(_("With audio for every balloon (DiViNa)"))
        self.path = QLineEdit()
        # Translators: accessible name of the export file box.
        self.path.setAccessibleName(_("Save as"))
        # Translators: the button that opens a save dialog in the export dialog.
        self.browse = QPushButton(_("&Choose…"))
        self.browse.clicked.connect(self._choose)
        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(self.browse)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        # Translators: label of the export format list (with its access key).
        form.addRow(_("&Format:"), self.format)
        form.addRow("", self.audio)
        # The label is a widget with its buddy: a row given a layout, not a field, has no
        # buddy, and Qt then shows the "&" instead of underlining the access key.
        # Translators: label of the export file box (with its access key).
        self.path_label = QLabel(_("&Save as:"))
        self.path_label.setBuddy(self.path)
        form.addRow(self.path_label, where)
        form.addRow(buttons)
        self.format.currentIndexChanged.connect(self._format_changed)
        self._format_changed()
        self.format.setFocus()

    def chosen(self) -> tuple[str, Path, bool]:
        fmt = str(self.format.currentData())
        return fmt, Path(self.path.text()).expanduser(), self.audio.isChecked() and fmt == "divina"

    def _format_changed(self) -> None:
        fmt = str(self.format.currentData())
        suffix = next(s for f, s, _label in FORMATS if f == fmt)
        self.audio.setEnabled(fmt == "divina")
        current = Path(self.path.text()) if self.path.text() else self.book.parent / self.book.stem
        self.path.setText(str(current.with_suffix(suffix)))

    def _choose(self) -> None:
        # Translators: title of the save dialog of the export.
        path, _filter = QFileDialog.getSaveFileName(
            self, _("Export to"), self.path.text(), options=QFileDialog.Option.DontUseNativeDialog
        )
        if path:
            self.path.setText(path)

    def accept(self) -> None:
        fmt, out, audio = self.chosen()
        command = export_command(self.book, fmt, out, audio=audio)
        process = QProcess(self.parent())
        process.setProgram(command[0])
        process.setArguments(command[1:])
        process.finished.connect(lambda code, _status: self._finished(process, code, out))
        self.process = process
        process.start()
        # Translators: said when an export starts; {name} is the file being written.
        self.say(_("Exporting to {name}. You can go on reading.").format(name=out.name))
        super().accept()

    def _finished(self, process: QProcess, code: int, out: Path) -> None:
        err = bytes(process.readAllStandardError().data()).decode("utf-8", "replace").strip().splitlines()
        if code == 0:
            # Translators: said when an export is done; {name} is the file written.
            self.say(_("The export is done: {name}.").format(name=out.name))
        else:
            # Translators: said when an export failed; {reason} is the one-sentence reason.
            self.say(_("The export failed: {reason}").format(reason=err[-1] if err else ""))
