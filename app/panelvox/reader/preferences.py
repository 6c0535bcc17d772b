"""The reader's preferences: what to hear, how the window looks, each book's reading direction.

The user's choices live here and are saved where they belong (narration and the window's
look in settings.json when the reader persists its settings, a book's direction in the
direction overrides). A toggle returns the new choices with the sentence that confirms
them; the controller applies them, because new narration choices rebuild the page's outline
and new looks restyle the view.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from panelvox.books import Book, DirectionOverrides
from panelvox.books.direction import direction_words
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.narration.prefs import NarrationPrefs, UtteranceKind, save_prefs
from panelvox.reader.reader_settings import ReaderSettings, save_reader_settings

log = logging.getLogger(__name__)

_DIRECTIONS = (ReadingDirection.LTR, ReadingDirection.RTL, ReadingDirection.TTB_RTL)
_RATE_RANGE = (0.5, 3.0)


class Preferences:
    """The current narration preferences and window settings, and the books' directions."""

    def __init__(
        self,
        prefs: NarrationPrefs,
        settings: ReaderSettings,
        overrides: DirectionOverrides,
        *,
        persist: bool = True,
    ) -> None:
        self.prefs = prefs
        self.settings = settings
        #: the reading direction the user chose for a book (Control R), by content hash
        self.overrides = overrides
        #: False in tests and tools: choices apply for the session and touch no file
        self.persist = persist

    def keep_prefs(self, prefs: NarrationPrefs) -> None:
        self.prefs = prefs
        if self.persist:
            try:
                save_prefs(prefs)
            except OSError as exc:
                log.warning("cannot save narration settings: %r", exc)

    def keep_settings(self, settings: ReaderSettings) -> None:
        self.settings = settings
        if self.persist:
            save_reader_settings(settings)

    def with_rate_changed(self, delta: float) -> tuple[NarrationPrefs, str]:
        rate = round(min(max(self.prefs.rate + delta, _RATE_RANGE[0]), _RATE_RANGE[1]), 2)
        # Translators: said after changing the speech rate; {n} is a percentage of normal.
        return replace(self.prefs, rate=rate), _("Speech rate {n} percent.").format(n=round(rate * 100))

    def with_sfx_toggled(self) -> tuple[NarrationPrefs, str]:
        on = UtteranceKind.SFX not in self.prefs.kinds
        kinds = self.prefs.kinds | {UtteranceKind.SFX} if on else self.prefs.kinds - {UtteranceKind.SFX}
        # Translators: said after toggling sound effects.
        return replace(self.prefs, kinds=kinds), _("Sound effects on.") if on else _("Sound effects off.")

    def with_speakers_toggled(self) -> tuple[NarrationPrefs, str]:
        on = not self.prefs.speakers_announced
        # Translators: said after toggling speaker names.
        words = _("Speaker names on.") if on else _("Speaker names off.")
        return replace(self.prefs, announce_speakers=on), words

    def with_setting_toggled(self, name: str) -> tuple[ReaderSettings, str]:
        on = not getattr(self.settings, name)
        words = {
            # Translators: said after toggling zoom to the current panel.
            "zoom": (_("Zoom on."), _("Zoom off.")),
            # Translators: said after toggling large text.
            "large_text": (_("Large text on."), _("Large text off.")),
            # Translators: said after toggling high contrast.
            "high_contrast": (_("High contrast on."), _("High contrast off.")),
        }[name]
        return replace(self.settings, **{name: on}), words[0] if on else words[1]

    def switch_direction(self, book: Book, current: ReadingDirection) -> tuple[ReadingDirection, str]:
        """The direction after ``current``, kept for ``book``, and the sentence that says so."""
        new = _DIRECTIONS[(_DIRECTIONS.index(current) + 1) % len(_DIRECTIONS)]
        try:
            self.overrides.set(book.content_hash, new)
        except OSError as exc:  # the direction still applies for this session
            log.warning("cannot store the reading direction: %r", exc)
        # Translators: said after switching the reading direction; {direction} is e.g. "right-to-left".
        words = _("Reading direction: {direction}, for this book.").format(direction=direction_words(new))
        return new, words
