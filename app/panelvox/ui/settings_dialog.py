"""Settings (Control comma): what to hear, how fast, and how the window looks."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QWidget,
)

from panelvox.i18n import _
from panelvox.narration.prefs import UncertaintyCue, UtteranceKind, Verbosity
from panelvox.reader.reader_controller import ReaderController
from panelvox.reader.reader_settings import ReaderSettings


class SettingsDialog(QDialog):
    def __init__(self, controller: ReaderController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        prefs, settings = controller.prefs, controller.settings
        # Translators: title of the settings dialog.
        self.setWindowTitle(_("Settings"))
        form = QFormLayout(self)
        self.verbosity = QComboBox()
        # Translators: verbosity choices in settings.
        for label, value in (
            (_("Text only"), Verbosity.TERSE),
            (_("Normal"), Verbosity.NORMAL),
            (_("Full"), Verbosity.FULL),
        ):
            self.verbosity.addItem(label, value)
        self.verbosity.setCurrentIndex(self.verbosity.findData(prefs.verbosity))
        # Translators: settings label.
        form.addRow(_("&How much is said:"), self.verbosity)
        self.rate = QDoubleSpinBox()
        self.rate.setRange(0.5, 3.0)
        self.rate.setSingleStep(0.1)
        self.rate.setValue(prefs.rate)
        # Translators: settings label; the rate is a multiple of normal speed.
        form.addRow(_("Speech &rate (1 is normal):"), self.rate)
        self.cue = QComboBox()
        # Translators: uncertainty cue choices in settings.
        for label, cue in (
            (_("The word uncertain"), UncertaintyCue.WORD),
            (_("A tone"), UncertaintyCue.TONE),
            (_("A different voice"), UncertaintyCue.VOICE),
        ):
            self.cue.addItem(label, cue)
        self.cue.setCurrentIndex(self.cue.findData(prefs.uncertainty_cue))
        # Translators: settings label.
        form.addRow(_("When the reading is &uncertain:"), self.cue)
        # Translators: settings check box.
        self.sfx = QCheckBox(_("Read &sound effects"))
        self.sfx.setChecked(UtteranceKind.SFX in prefs.kinds)
        # Translators: settings check box.
        self.speakers = QCheckBox(_("Say &speaker names"))
        self.speakers.setChecked(prefs.speakers_announced)
        # Translators: settings check box.
        self.panels = QCheckBox(_("Say &panel numbers before each balloon"))
        self.panels.setChecked(prefs.panels_announced)
        # Translators: settings check box.
        self.voices = QCheckBox(_("A different &voice for each character"))
        self.voices.setChecked(prefs.character_voices)
        # Translators: settings check box.
        self.large = QCheckBox(_("&Large text"))
        self.large.setChecked(settings.large_text)
        # Translators: settings check box.
        self.contrast = QCheckBox(_("&High contrast"))
        self.contrast.setChecked(settings.high_contrast)
        # Translators: settings check box.
        self.zoom = QCheckBox(_("&Zoom to the current panel or balloon"))
        self.zoom.setChecked(settings.zoom)
        # Translators: settings check box; the reader learns who is who from every page.
        self.learn = QCheckBox(_("Learn the &whole book's names in the background"))
        self.learn.setChecked(settings.learn_book)
        for box in (
            self.sfx,
            self.speakers,
            self.panels,
            self.voices,
            self.large,
            self.contrast,
            self.zoom,
            self.learn,
        ):
            form.addRow(box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.accepted.connect(self.apply)

    def apply(self) -> None:
        c = self.controller
        kinds = (
            c.prefs.kinds | {UtteranceKind.SFX}
            if self.sfx.isChecked()
            else c.prefs.kinds - {UtteranceKind.SFX}
        )
        prefs = replace(
            c.prefs,
            verbosity=self.verbosity.currentData(),
            rate=round(self.rate.value(), 2),
            uncertainty_cue=self.cue.currentData(),
            kinds=kinds,
            announce_speakers=self.speakers.isChecked(),
            announce_panels=self.panels.isChecked(),
            character_voices=self.voices.isChecked(),
        )
        c.set_settings(
            ReaderSettings(
                self.large.isChecked(),
                self.contrast.isChecked(),
                self.zoom.isChecked(),
                self.learn.isChecked(),
            )
        )
        # Translators: said when the settings dialog closes with OK.
        c.set_prefs(prefs, _("Settings saved."))
