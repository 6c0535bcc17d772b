"""The reader's preference commands: rate, what to hear, reading direction, appearance.

A mixin of :class:`~panelvox.reader.reader_controller.ReaderController`, kept apart so each
module stays small; it uses only the controller members declared below.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from panelvox.books import DirectionOverrides
from panelvox.books.direction import direction_words
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.narration.prefs import NarrationPrefs, UtteranceKind, save_prefs
from panelvox.reader.controller_members import ControllerMembers
from panelvox.reader.listener import ReaderListener
from panelvox.reader.position import Position
from panelvox.reader.reader_settings import ReaderSettings, save_reader_settings

log = logging.getLogger(__name__)

_DIRECTIONS = (ReadingDirection.LTR, ReadingDirection.RTL, ReadingDirection.TTB_RTL)
_RATE_RANGE = (0.5, 3.0)


class SettingsCommands(ControllerMembers):
    # Members of the controller this mixin uses (beside ControllerMembers').
    prefs: NarrationPrefs
    settings: ReaderSettings
    persist_settings: bool
    direction: ReadingDirection
    overrides: DirectionOverrides
    listener: ReaderListener
    _waiting: bool

    def _save(self) -> None:
        raise NotImplementedError

    def set_prefs(self, prefs: NarrationPrefs, confirm: str | None = None) -> None:
        self.prefs = prefs
        self._outlines.clear()
        if self.persist_settings:
            try:
                save_prefs(prefs)
            except OSError as exc:
                log.warning("cannot save narration settings: %r", exc)
        if self.book is not None:
            outline = self.outline(self.position.page)
            if self.position.step >= len(outline.steps):
                self.position = Position(self.position.page)
            self.listener.outline_changed(outline)
            self.listener.position_changed(self.position, focus=False)
        if confirm:
            self.say_message(confirm)

    def change_rate(self, delta: float) -> None:
        rate = round(min(max(self.prefs.rate + delta, _RATE_RANGE[0]), _RATE_RANGE[1]), 2)
        # Translators: said after changing the speech rate; {n} is a percentage of normal.
        self.set_prefs(
            replace(self.prefs, rate=rate), _("Speech rate {n} percent.").format(n=round(rate * 100))
        )

    def toggle_sfx(self) -> None:
        on = UtteranceKind.SFX not in self.prefs.kinds
        kinds = self.prefs.kinds | {UtteranceKind.SFX} if on else self.prefs.kinds - {UtteranceKind.SFX}
        # Translators: said after toggling sound effects.
        self.set_prefs(
            replace(self.prefs, kinds=kinds), _("Sound effects on.") if on else _("Sound effects off.")
        )

    def toggle_speakers(self) -> None:
        on = not self.prefs.speakers_announced
        # Translators: said after toggling speaker names.
        words = _("Speaker names on.") if on else _("Speaker names off.")
        self.set_prefs(replace(self.prefs, announce_speakers=on), words)

    def switch_direction(self) -> None:
        if not self._need_book() or self.book is None:
            return
        new = _DIRECTIONS[(_DIRECTIONS.index(self.direction) + 1) % len(_DIRECTIONS)]
        try:
            self.overrides.set(self.book.content_hash, new)
        except OSError as exc:
            log.warning("cannot store the reading direction: %r", exc)
        self.direction = new
        self._token += 1
        self._results.clear()
        self._outlines.clear()
        self.interrupt()
        self.position = Position(self.position.page)
        self._waiting = True
        self.listener.outline_changed(self.outline(self.position.page))
        self.listener.position_changed(self.position, focus=False)
        self._update_jobs()
        self._save()
        # Translators: said after switching the reading direction; {direction} is e.g. "right-to-left".
        self.say_message(
            _("Reading direction: {direction}, for this book.").format(direction=direction_words(new))
        )

    def set_settings(self, settings: ReaderSettings, confirm: str | None = None) -> None:
        self.settings = settings
        if self.persist_settings:
            save_reader_settings(settings)
        self.listener.appearance_changed(settings)
        if confirm:
            self.say_message(confirm)

    def toggle_setting(self, name: str) -> None:
        on = not getattr(self.settings, name)
        words = {
            # Translators: said after toggling zoom to the current panel.
            "zoom": (_("Zoom on."), _("Zoom off.")),
            # Translators: said after toggling large text.
            "large_text": (_("Large text on."), _("Large text off.")),
            # Translators: said after toggling high contrast.
            "high_contrast": (_("High contrast on."), _("High contrast off.")),
        }[name]
        self.set_settings(replace(self.settings, **{name: on}), words[0] if on else words[1])
