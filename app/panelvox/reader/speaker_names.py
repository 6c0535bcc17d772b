"""The reader's rename command (F2): give the speaker of the current balloon a name.

The name goes to the same store as ``panelvox names --rename`` (:class:`NameStore`), with
the person of the book the character belongs to: said as given on the renamed figure, and
as a guess where the book believes that person speaks again, never on anyone else. The
listener hears how many balloons now carry the name, and Control Z undoes the last rename.
Pages are then read again through the page service, which applies the names to the cached
analysis; nothing is re-analysed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from panelvox.books import Book
from panelvox.i18n import _
from panelvox.model import Character, PageAnalysis
from panelvox.names.book_names import BookNames
from panelvox.names.stores import NameStore, character_key
from panelvox.pages import PageService
from panelvox.reader.page_results import Here
from panelvox.reader.reader_speech import ReaderSpeech

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RenameTarget:
    """The character speaking at the reader's position."""

    key: str  # the store key ("p4:c2")
    name: str  # what the reader calls it now ("character 2", or its name)
    character: Character
    analysis: PageAnalysis


class SpeakerNames:
    """The user's names for characters: who can be named here, and keeping a new name."""

    def __init__(self, store: NameStore, voice: ReaderSpeech) -> None:
        #: the user's character names, the same file as ``panelvox names``
        self.store = store
        self.voice = voice
        #: the last rename, and the user's name it replaced ("" for none): what Control Z undoes
        self._undo: tuple[RenameTarget, str] | None = None

    def for_book(self, book: Book) -> BookNames:
        """The names a book's page service applies (ComicInfo, the user's, those learned)."""
        return BookNames.for_book(book, self.store)

    def target(self, here: Here) -> RenameTarget | None:
        """Who speaks the balloon ``here``, or None (after saying why) when nobody can be named."""
        outline, step, analysis = here.outline, here.position.step, here.analysis
        if analysis is None or not 0 <= step < len(outline.steps):
            # Translators: said for F2 (rename) when the reader is not on a balloon.
            self.voice.say(_("Move to a balloon first, then press F2 to name its speaker."))
            return None
        chars = {c.id: c for c in analysis.characters}
        for utterance in outline.steps[step].utterances:
            link = analysis.speaker_of(utterance.region.block) if utterance.region.block else None
            if link is not None and link.character in chars:
                character = chars[link.character]
                spoken = character.label or character.name or ""
                return RenameTarget(character_key(analysis.page, character), spoken, character, analysis)
        # Translators: said for F2 (rename) on a caption, a sound effect or a balloon with no known speaker.
        self.voice.say(_("No character is known to say this, so there is nobody to name."))
        return None

    def rename(self, pages: PageService[Book], target: RenameTarget, name: str) -> bool:
        """Keep ``name`` for ``target`` (empty: forget the user's name) and say so, with how
        many balloons now carry it; False (after saying why) when it cannot be saved. The
        caller reads the pages again."""
        before = pages.names.store.names(pages.names.content_hash).get(target.key, "")
        if not self._store(pages, target, name):
            return False
        self._undo = (target, before)
        new = " ".join(name.split())
        if new:
            here, book = pages.names.balloons_named(new, target.analysis.page)
            # Translators: said after renaming a character; {old} and {new} are names, {here}
            # and {book} numbers of balloons.
            said = _(
                "{old} is now called {new}. Balloons with the name: {here} on this page, "
                "{book} in the pages read so far. Control Z undoes it."
            ).format(old=target.name, new=new, here=here, book=book)
        else:
            # Translators: said after clearing a character's name given by the user.
            said = _("Your name for {old} is forgotten.").format(old=target.name)
        self.voice.say(said[:1].upper() + said[1:])  # "character 2 is …" starts a sentence
        return True

    def undo(self, pages: PageService[Book]) -> bool:
        """Undo the last rename (say so); False (after saying why) when there is none."""
        if self._undo is None:
            # Translators: said for Control Z when no name was given in this session.
            self.voice.say(_("There is no name to undo."))
            return False
        target, before = self._undo
        if not self._store(pages, target, before):
            return False
        self._undo = None
        # Translators: said after Control Z put back a character's earlier name; {name} is it.
        said = _("Undone: the name is {name} again.").format(name=before) if before else _("Undone.")
        self.voice.say(said)
        return True

    def _store(self, pages: PageService[Book], target: RenameTarget, name: str) -> bool:
        """Keep ``name`` for ``target``; False (after saying so) when it cannot be saved."""
        try:
            pages.rename(target.analysis, target.character, name)
        except OSError as exc:
            log.warning("cannot store the name of %s: %r", target.key, exc)
            # Translators: said when a character's new name cannot be saved.
            self.voice.say(_("The name could not be saved."))
            return False
        return True
