"""The reader's logic: the open book, the position, the reading commands.

Qt-free, so every command can be tested by what would be heard (with the spy backend).
A view registers a :class:`ReaderListener`; the controller tells it what to show and moves
the focus. Analysis results arrive through :meth:`ReaderController.on_result` on the view's
thread; speech "done" callbacks come from the speech thread and are handed back through
``post`` (the view passes a function that runs a callable on its own thread).

The controller owns the book and the position; small collaborators own the rest, each its
own state (preferences, the pages' results, speech, say all, describe and ask, names, a page
of text read on request, notices), and :meth:`ReaderController.interrupt` stops them together.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from panelvox.books import Book, DirectionOverrides, LetteringProbe, open_book
from panelvox.errors import PanelvoxError
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.models.registry import ModelRegistry
from panelvox.names.stores import NameStore
from panelvox.narration.describe import DescribeConfig
from panelvox.narration.prefs import NarrationPrefs
from panelvox.narration.script import Utterance, join_sentences, word_cued
from panelvox.pages import PageService, PageSource
from panelvox.reader import navigation
from panelvox.reader import position_words as words
from panelvox.reader.analysis_jobs import JobResult
from panelvox.reader.commands import Command, help_text
from panelvox.reader.describe_ask import DescribeAsk
from panelvox.reader.describe_jobs import DescribeResult, DescribeWorker
from panelvox.reader.listener import ReaderListener
from panelvox.reader.navigation import Edge
from panelvox.reader.notices import Notices
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.page_results import Here, PageResults
from panelvox.reader.position import Position
from panelvox.reader.position_store import PositionStore
from panelvox.reader.preferences import Preferences
from panelvox.reader.reader_settings import ReaderSettings
from panelvox.reader.reader_speech import Later, Post, ReaderSpeech
from panelvox.reader.say_all import SayAll
from panelvox.reader.screen_reader_pace import ScreenReaderPace
from panelvox.reader.speaker_names import RenameTarget, SpeakerNames
from panelvox.reader.text_reading import TextReading
from panelvox.speech.backend import Priority
from panelvox.speech.queue import SpeechQueue
from panelvox.speech.voices import VoiceManifest

log = logging.getLogger(__name__)
_RATE_STEP = 0.1


class ReaderController:
    """Book, position, reading unit (the position's level) and every reading command."""

    def __init__(
        self,
        speech: SpeechQueue,
        analyzer: PageSource,
        *,
        prefs: NarrationPrefs | None = None,
        settings: ReaderSettings | None = None,
        store: PositionStore | None = None,
        overrides: DirectionOverrides | None = None,
        manifest: VoiceManifest | None = None,
        post: Post | None = None,
        moves_by_focus: bool = False,
        lookahead: int = 3,
        persist_settings: bool = True,
        models: ModelRegistry | None = None,
        describe_config: DescribeConfig | None = None,
        names: NameStore | None = None,
        lettering: LetteringProbe | None = None,
        later: Later | None = None,
        pace: ScreenReaderPace | None = None,
    ) -> None:
        self.speech = speech
        self.lettering = lettering  # tells a book that says nothing of its direction by its pages
        #: analyses a page of the open book (the reader's worker process, or stages in tests)
        self.analyzer = analyzer
        self.store = store or PositionStore()
        self.listener = ReaderListener()
        #: narration preferences, the window's settings and each book's reading direction
        self.preferences = Preferences(
            prefs or NarrationPrefs(),
            settings or ReaderSettings(),
            overrides or DirectionOverrides(),
            persist=persist_settings,
        )
        #: the open book's pages: wanted from the worker, analysed, outlined
        self.results = PageResults(self.preferences, lookahead=lookahead, learn_book=self.settings.learn_book)
        #: pages to analyse, most wanted first, for the analysis thread the view runs
        self.jobs = self.results.jobs
        #: everything the reader says, and the announcement waiting for the current page
        self.voice = ReaderSpeech(
            speech,
            self.preferences,
            manifest or VoiceManifest(),
            post=post or (lambda fn: fn()),
            moves_by_focus=moves_by_focus,
            announce=lambda text: self.listener.announce(text),
            later=later,
            pace=pace,
        )
        #: notices offered again until heard; T: a page of text read in full by the worker
        self.notices = Notices(self.voice)
        self.text = TextReading(self.results, self.voice, analyzer, self.interrupt, self.toggle_say_all)
        #: say all (Space): reads on from the position, page after page
        self.say_all = SayAll(self._read_here, self._read_on, lambda: self._end_of_book(Priority.NORMAL))
        #: describe (D) and ask (Q)
        self.describe_ask = DescribeAsk(
            self.voice,
            self.preferences,
            self.interrupt,
            models=models or ModelRegistry(),
            config=describe_config or DescribeConfig(),
        )
        #: describe and ask requests, for the worker thread the view starts on first use
        self.describe_jobs = self.describe_ask.jobs
        #: the user's character names (F2), handed to each book's page service
        self.speaker_names = SpeakerNames(names or NameStore(), self.voice)
        #: the open book read through the page service: cached analysis, then the book's names
        self.pages: PageService[Book] | None = None
        self.book: Book | None = None
        self.direction = ReadingDirection.LTR
        self.position = Position(0)

    # -- book --------------------------------------------------------------------------
    def open(self, path: Path) -> bool:
        """Open ``path`` and resume where the reader left it. Bad input: one spoken sentence."""
        try:
            book = open_book(Path(path), overrides=self.preferences.overrides, lettering=self.lettering)
        except PanelvoxError as exc:
            log.warning("cannot open %s: %s", path, exc.detail)
            self.say_message(exc.message)
            return False
        self.close_book()
        self.book = book
        self.pages = PageService(book, self.analyzer, self.speaker_names.for_book(book))
        self.results.start()
        self.direction = book.direction
        saved = self.store.get(book.content_hash) or Position(0)
        self.position = pos = saved if 0 <= saved.page < book.page_count else Position(0)
        self.voice.wait_for_page()
        self.store.save(book.content_hash, pos, path=Path(path).resolve(), title=book.title)
        self.listener.book_changed()
        self._update_jobs()
        self._show_current(focus=False)
        outline = self.outline(pos.page)
        self.say_message(
            words.opening_words(book.title, book.page_count, pos, outline, resumed=pos != Position(0))
        )
        self.notices.say_unheard()  # after the opening words, which interrupt
        return True

    def close_book(self) -> None:
        self.stop()
        self.jobs.set_wanted(())  # nothing more for the worker from this book
        if self.pages is not None:
            self.pages.save_names()  # what the pages' words taught, for the next session
        if self.book is not None:
            self.book.close()
        self.book = None
        self.pages = None
        self.results.clear()

    def close(self) -> None:
        self.close_book()
        self.jobs.close()
        self.describe_ask.close()

    @property
    def page_count(self) -> int:
        return self.book.page_count if self.book is not None else 0

    @property
    def title(self) -> str:
        return self.book.title if self.book is not None else ""

    @property
    def prefs(self) -> NarrationPrefs:
        return self.preferences.prefs

    @property
    def settings(self) -> ReaderSettings:
        return self.preferences.settings

    @property
    def moves_by_focus(self) -> bool:
        """True when a screen reader runs: it speaks a move from the focus event alone."""
        return self.voice.moves_by_focus

    # -- analysis ----------------------------------------------------------------------
    def outline(self, page: int) -> PageOutline:
        """Page ``page``'s steps and panels (a pending outline while it is analysed)."""
        return self.results.outline(page)

    def _update_jobs(self) -> None:
        if self.pages is None:
            return
        self.results.want(self.pages, self.direction, self.position.page, self.page_count)
        self._update_status()

    def on_result(self, result: JobResult) -> None:
        """A page's analysis is done (call on the view's thread)."""
        if self.book is None or not self.results.accept(result):
            return
        if result.learned:
            self._relabelled(result)
            return
        if result.page == self.position.page:
            outline = self.outline(result.page)
            if self.position.step >= len(outline.steps):
                self.position = Position(self.position.page)
            self.listener.outline_changed(outline)
            self.listener.position_changed(self.position, focus=not self.say_all.active)
            if self.say_all.active:
                self.say_all.page_arrived()  # reads on, if it was waiting for this page
            elif not self.text.arrived(result) and self.voice.page_arrived():
                self.voice.speak(self.position_utterances(), priority=Priority.NORMAL, move=True)
        self._update_status()

    def _relabelled(self, result: JobResult) -> None:
        """A page learned in the background: when the book's names now say something else on
        the current page, its outline is shown anew where the reader is, nothing said and the
        focus left where it is (a screen reader reads the new name when the user moves)."""
        if self.position.page not in self.results.relabel(result):
            return
        outline = self.outline(self.position.page)
        if self.position.step >= len(outline.steps):
            self.position = Position(self.position.page)
        self.listener.outline_changed(outline)
        self.listener.position_changed(self.position, focus=False)

    def analyze_pending(self, limit: int | None = None) -> int:
        """Run waiting jobs on this thread (tests and benchmarks without a worker)."""
        return self.results.run_pending(self.on_result, limit)

    def _update_status(self) -> None:
        self.listener.status_changed(words.status_words(self.position, self.results, self.book))

    def _show_current(self, *, focus: bool) -> None:
        outline = self.outline(self.position.page)
        self.listener.outline_changed(outline)
        self.listener.position_changed(self.position, focus=focus)
        self._update_status()

    # -- speech ------------------------------------------------------------------------
    def say_message(self, text: str, priority: Priority = Priority.NOW) -> None:
        self.voice.say(text, priority)

    def interrupt(self) -> None:
        """The one place speech, say all, a waiting announcement and describe/ask stop."""
        self.say_all.stop()
        self.describe_ask.cancel()
        self.text.stop()
        self.voice.stop()

    stop = interrupt

    def position_utterances(self, position: Position | None = None) -> list[Utterance]:
        """What landing on ``position`` says (the accessible name of its item, in pieces)."""
        pos = position or self.position
        return words.landing_utterances(self.outline(pos.page), pos)

    def position_text(self, position: Position | None = None) -> str:
        """``position``'s accessible name; a screen reader reads it, so any cue is the word.
        With a screen reader, lettering its voice cannot say is named by its language
        ("Character 1: Japanese."): Panelvox's voice of that language says it after."""
        return self.voice.item_text(self.position_utterances(position))

    def position_shown(self, position: Position | None = None) -> str:
        """``position``'s text as shown: the lettering itself, in every language."""
        return join_sentences(word_cued(u, self.prefs) for u in self.position_utterances(position))

    # -- moves -------------------------------------------------------------------------
    def _move(self, pos: Position) -> None:
        """A reading key's move: everything stops, and the reader lands on ``pos``."""
        self.interrupt()
        self._place(pos, focus=True, say=True)

    def _place(self, pos: Position, *, focus: bool, say: bool) -> None:
        """Put the reader at ``pos``: shown (and said, with ``say``), saved, and the worker
        given the pages around it. Say all speaks by itself, so it places without ``say``."""
        page_changed = pos.page != self.position.page
        self.position = pos
        if page_changed:
            outline = self.outline(pos.page)
            if say and not outline.ready:
                self.voice.wait_for_page()
            self.listener.outline_changed(outline)
        self.listener.position_changed(pos, focus=focus)
        if say:
            self.voice.speak(self.position_utterances(pos), move=True)
            if page_changed:
                self.notices.say_unheard()  # a notice cut off before is offered again
        self._save()
        if page_changed:
            self._update_jobs()
        else:
            self._update_status()

    def _save(self) -> None:
        if self.book is not None:
            self.store.save(self.book.content_hash, self.position)
        self.notices.say_new()  # something not saved, a damaged store reset

    def _need_book(self) -> bool:
        if self.book is None:
            # Translators: said when a reading key is pressed with no book open.
            self.say_message(_("No book is open. Press Control O to open one."))
            return False
        return True

    def _here(self) -> Here | None:
        """The reader's place and what is known of its page; None (after saying so) with no book."""
        if not self._need_book() or self.book is None:
            return None
        return self.results.here(self.book, self.position)

    def _end_of_book(self, priority: Priority = Priority.NOW) -> None:
        # Translators: said when moving past the last item of the book.
        self.say_message(_("End of book."), priority)

    def _step(self, move: navigation.Move) -> None:
        """Go where a reading key's ``move`` leads from the position."""
        if not self._need_book():
            return
        target = move(self.position, self.outline, self.page_count)
        if isinstance(target, Position):
            self._move(target)
        elif target is Edge.END:
            self._end_of_book()
        elif target is Edge.START:
            # Translators: said when moving before the first item of the book.
            self.say_message(_("Start of book."))
        else:
            self.voice.say_page_pending(self.outline(self.position.page))

    def next_page(self) -> None:
        """Page Down (the other moves are run as commands, through :meth:`run`)."""
        self._step(navigation.next_page)

    def go_to_page(self, number: int) -> None:
        """Turn to page ``number`` (1-based); out of range: one spoken sentence."""
        if not self._need_book():
            return
        if not 1 <= number <= self.page_count:
            # Translators: said for a page number the book does not have.
            self.say_message(
                _("There is no page {n}. This book has pages 1 to {count}.").format(
                    n=number, count=self.page_count
                )
            )
            return
        self._move(Position.at_number(number))

    def go_to_page_text(self, text: str) -> None:
        """Go to a page typed by the user (anything not a number: one spoken sentence)."""
        try:
            number = int(text.strip())
        except ValueError:
            # Translators: said when the go-to-page box holds something that is not a number.
            self.say_message(_("Type a page number, like 5."))
            return
        self.go_to_page(number)

    def go_to(self, pos: Position) -> None:
        """Move to a position chosen in the view (the structure tree)."""
        if self.book is None or pos == self.position or not 0 <= pos.page < self.page_count:
            return
        self._move(pos)

    # -- say all -----------------------------------------------------------------------
    def toggle_say_all(self, start: Position | None = None) -> None:
        """Space: read on from here (or from ``start``) to the end of the book; Space again stops."""
        if self.say_all.active and start is None:
            self.interrupt()
            return
        if not self._need_book():
            return
        self.interrupt()
        if start is not None:  # T: a page of text, from its first block
            self._place(start, focus=not self.voice.moves_by_focus, say=False)
        self.say_all.start()

    @property
    def saying_all(self) -> bool:
        return self.say_all.active

    def _read_here(self, on_done: Callable[[bool], None]) -> bool:
        """Say all: speak the current stop; False (nothing said) while its page is analysed."""
        if not self.outline(self.position.page).ready:
            return False
        pos = self.position
        # with a screen reader the stop is its item: the focus goes there (or it is announced)
        self.voice.speak(
            self.position_utterances(), on_done=on_done, present=lambda text: self.listener.present(pos, text)
        )
        return True

    def _read_on(self) -> bool:
        """Say all: move to the stop after the one just heard; False past the end of the book."""
        nxt = navigation.reading_next(self.position, self.outline, self.page_count)
        if nxt is None:
            return False
        self._place(nxt, focus=not self.voice.moves_by_focus, say=False)
        return True

    # -- information -------------------------------------------------------------------
    def where_am_i(self) -> None:
        if (here := self._here()) is not None:
            self.notices.say_after(words.where_am_i_words(here))  # what could not be saved, until heard

    def overview(self) -> None:
        if (here := self._here()) is not None:
            self.say_message(words.overview_words(here))

    def repeat(self) -> None:
        self.voice.speak(self.voice.last or self.position_utterances())

    # -- describe and ask ----------------------------------------------------------------
    def describe_worker(self) -> DescribeWorker:
        """The worker a view runs on its describe thread (it loads the model there, lazily)."""
        return self.describe_ask.worker()

    def describe(self) -> None:
        """D: describe the current panel (the page's first at page level) with the model."""
        if (here := self._here()) is not None:
            self.describe_ask.describe(here)

    def ask(self, question: str) -> None:
        """Q: answer a typed question from the page's structure (and the model, when added)."""
        if (here := self._here()) is not None:
            self.describe_ask.ask(here, question)

    def on_describe_result(self, result: DescribeResult) -> None:
        """A description or answer is ready (call on the view's thread); stale ones are dropped."""
        if result.token == self.results.token and self.book is not None:
            self.describe_ask.deliver(result)

    def describe_pending(self, worker: DescribeWorker) -> int:
        """Run waiting describe/ask requests on this thread (tests without a worker thread)."""
        return self.describe_ask.run_pending(worker, self.on_describe_result)

    # -- names (F2) ----------------------------------------------------------------------
    def rename_target(self) -> RenameTarget | None:
        """Who speaks the current balloon, or None (after saying why) when nobody can be named."""
        here = self._here()
        return self.speaker_names.target(here) if here is not None else None

    def rename_speaker(self, target: RenameTarget, name: str) -> None:
        """Keep ``name`` for ``target`` (empty: forget the user's name) and read the pages again."""
        if self.pages is not None and self.speaker_names.rename(self.pages, target, name):
            # the shown outline stays until the page comes back from the cache with the name
            self.results.forget_analyses(keep_outline=self.position.page)
            self._update_jobs()

    def undo_rename(self) -> None:
        """Put back the name the speaker had before the last rename (Control Z)."""
        if self.pages is not None and self.speaker_names.undo(self.pages):
            self.results.forget_analyses(keep_outline=self.position.page)
            self._update_jobs()

    # -- preferences -------------------------------------------------------------------
    def set_prefs(self, prefs: NarrationPrefs, confirm: str | None = None) -> None:
        """New narration preferences: the page's outline is built again with them."""
        self.preferences.keep_prefs(prefs)
        self.results.forget_outlines()
        if self.book is not None:
            outline = self.outline(self.position.page)
            if self.position.step >= len(outline.steps):
                self.position = Position(self.position.page)
            self.listener.outline_changed(outline)
            self.listener.position_changed(self.position, focus=False)
        if confirm:
            self.say_message(confirm)

    def set_settings(self, settings: ReaderSettings, confirm: str | None = None) -> None:
        self.preferences.keep_settings(settings)
        if settings.learn_book != self.results.learn_book:  # the background pass on or off
            self.results.learn_book = settings.learn_book
            self._update_jobs()
        self.listener.appearance_changed(settings)
        if confirm:
            self.say_message(confirm)

    def switch_direction(self) -> None:
        """Control R: the next reading direction, for this book; its pages are read again."""
        if not self._need_book() or self.book is None:
            return
        self.direction, said = self.preferences.switch_direction(self.book, self.direction)
        self.results.start()
        self.interrupt()
        self.position = Position(self.position.page)
        self.voice.wait_for_page()
        self._show_current(focus=False)
        self._update_jobs()
        self._save()
        self.say_message(said)

    # -- dispatch ----------------------------------------------------------------------
    def run(self, command: Command) -> bool:
        """Run a command that needs no dialog; False for those the view must handle."""
        move = navigation.move_for(command)
        if move is not None:
            self._step(move)
            return True
        prefs = self.preferences
        actions: dict[Command, Callable[[], None]] = {
            Command.FIRST_PAGE: lambda: self.go_to_page(1),
            Command.LAST_PAGE: lambda: self.go_to_page(self.page_count),
            Command.SAY_ALL: self.toggle_say_all,
            Command.STOP: self.interrupt,
            Command.REPEAT: self.repeat,
            Command.WHERE_AM_I: self.where_am_i,
            Command.OVERVIEW: self.overview,
            Command.READ_TEXT: lambda: self.text.ask(self._here(), self.pages, self.direction),
            Command.DESCRIBE: self.describe,
            Command.UNDO_RENAME: self.undo_rename,
            Command.RATE_UP: lambda: self.set_prefs(*prefs.with_rate_changed(_RATE_STEP)),
            Command.RATE_DOWN: lambda: self.set_prefs(*prefs.with_rate_changed(-_RATE_STEP)),
            Command.TOGGLE_ZOOM: lambda: self.set_settings(*prefs.with_setting_toggled("zoom")),
            Command.TOGGLE_SFX: lambda: self.set_prefs(*prefs.with_sfx_toggled()),
            Command.TOGGLE_SPEAKERS: lambda: self.set_prefs(*prefs.with_speakers_toggled()),
            Command.SWITCH_DIRECTION: self.switch_direction,
            Command.LARGE_TEXT: lambda: self.set_settings(*prefs.with_setting_toggled("large_text")),
            Command.HIGH_CONTRAST: lambda: self.set_settings(*prefs.with_setting_toggled("high_contrast")),
            Command.HELP: lambda: self.say_message(help_text()),
        }
        action = actions.get(command)
        if action is None:
            return False
        action()
        return True
