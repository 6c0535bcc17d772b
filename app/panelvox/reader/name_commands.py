"""The reader's rename command (F2): give the speaker of the current balloon a name.

A mixin of :class:`~panelvox.reader.reader_controller.ReaderController`, kept apart so each
module stays small; it uses only the controller members declared below. The name goes to
the same store as ``panelvox names --rename`` (:class:`NameStore`), with the character's
look, so it sticks for the book: on this page by key, on other pages by the figure that
looks most like it. Pages are then read again through the page service, which applies the
names to the cached analysis; nothing is re-analysed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from panelvox.books import Book
from panelvox.i18n import _
from panelvox.model import Character, PageAnalysis
from panelvox.names.stores import character_key
from panelvox.pages import PageService
from panelvox.reader.controller_members import ControllerMembers

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RenameTarget:
    """The character speaking at the reader's position."""

    key: str  # the store key ("p4:c2")
    name: str  # what the reader calls it now ("character 2", or its name)
    character: Character
    analysis: PageAnalysis


class NameCommands(ControllerMembers):
    # Members of the controller this mixin uses (beside ControllerMembers').
    pages: PageService[Book] | None

    def rename_target(self) -> RenameTarget | None:
        """Who speaks the current balloon, or None (and says why) when nobody can be renamed."""
        if not self._need_book():
            return None
        analysis = self.results.analysis(self.position.page)
        outline = self.outline(self.position.page)
        step = self.position.step
        if analysis is None or not 0 <= step < len(outline.steps):
            # Translators: said for F2 (rename) when the reader is not on a balloon.
            self.say_message(_("Move to a balloon first, then press F2 to name its speaker."))
            return None
        chars = {c.id: c for c in analysis.characters}
        for utterance in outline.steps[step].utterances:
            link = analysis.speaker_of(utterance.region.block) if utterance.region.block else None
            if link is not None and link.character in chars:
                character = chars[link.character]
                spoken = character.label or character.name or ""
                return RenameTarget(character_key(analysis.page, character), spoken, character, analysis)
        # Translators: said for F2 (rename) on a caption, a sound effect or a balloon with no known speaker.
        self.say_message(_("No character is known to say this, so there is nobody to name."))
        return None

    def rename_speaker(self, target: RenameTarget, name: str) -> None:
        """Store ``name`` for ``target`` (empty: forget the user's name) and re-read the pages."""
        if self.pages is None:
            return
        try:
            self.pages.rename(target.analysis, target.character, name)
        except OSError as exc:
            log.warning("cannot store the name of %s: %r", target.key, exc)
            # Translators: said when a character's new name cannot be saved.
            self.say_message(_("The name could not be saved."))
            return
        # the shown outline stays until the page comes back from the cache with the name
        self.results.forget_analyses(keep_outline=self.position.page)
        self._update_jobs()
        new = " ".join(name.split())
        if new:
            # Translators: said after renaming a character; {old} and {new} are names.
            said = _("{old} is now called {new}, in this whole book.").format(old=target.name, new=new)
        else:
            # Translators: said after clearing a character's name given by the user.
            said = _("Your name for {old} is forgotten.").format(old=target.name)
        self.say_message(said[:1].upper() + said[1:])  # "character 2 is …" starts a sentence
