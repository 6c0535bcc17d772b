"""What the reader says: utterances to the speech queue, and a page announcement that waits.

Every sentence of the reader goes through :class:`ReaderSpeech`: it makes speech requests
of utterances (the narration preferences, a voice per character), cuts off what is being
said when they come NOW, hands a "done" callback back to the view's thread through ``post``,
and keeps what was said last for Repeat. With a screen reader running, a move is left to
the screen reader, which speaks the focused item; saying it here too would say it twice.
For the same reason a message (where am I, the keys, an error) is handed to the screen
reader through ``announce`` when the view can do that, so it is said in the screen
reader's voice and queue, and shown on its braille display, instead of beside it. Say all
too: each stop is handed to the screen reader (``present``: the view moves the focus to its
item, or announces it), and the next follows after the time the screen reader needs to say
it (:mod:`panelvox.reader.screen_reader_pace`), since it reports no end of speech. Text in
a language the screen reader's speech server cannot say (Japanese on espeak-ng, which spells
it "Japanese letter") stays with Panelvox, whose voice of that language says it, or which
says once that none is installed: Orca (43) gives a list item or a notification no language.

It also holds the one "say the current page when its analysis arrives" flag, so that
:meth:`stop`, which the reader's interrupt calls, drops that announcement with the speech.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from panelvox.i18n import _, interface_language
from panelvox.languages import language_runs
from panelvox.narration.script import Utterance, join_sentences, page_voices, to_request, word_cued
from panelvox.reader.listener import message
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.preferences import Preferences
from panelvox.reader.screen_reader_pace import ScreenReaderPace
from panelvox.speech.backend import Priority, SpeechRequest
from panelvox.speech.queue import SpeechQueue
from panelvox.speech.voices import VoiceManifest

Post = Callable[[Callable[[], None]], None]
#: hands a message to the running screen reader; False when the view cannot
Announce = Callable[[str], bool]
#: runs a callable on the view's thread after some seconds (a Qt single-shot timer)
Later = Callable[[float, Callable[[], None]], None]


class ReaderSpeech:
    """The reader's voice: speaks utterances, remembers the last, keeps a waiting announcement."""

    def __init__(
        self,
        queue: SpeechQueue,
        preferences: Preferences,
        manifest: VoiceManifest,
        *,
        post: Post,
        moves_by_focus: bool = False,
        announce: Announce | None = None,
        later: Later | None = None,
        pace: ScreenReaderPace | None = None,
    ) -> None:
        self.queue = queue
        self.preferences = preferences
        self.manifest = manifest
        self.post = post
        #: True when a screen reader runs: moves are spoken by it from the focus event alone
        self.moves_by_focus = moves_by_focus
        #: what was said last (Repeat says it again)
        self.last: list[Utterance] = []
        self._page_waiting = False
        self._announce = announce or (lambda _text: False)
        #: with a screen reader, a text handed to it is over after ``pace`` says (``later``
        #: runs the "done" then); without ``later`` what needs its end reported stays here
        self._later = later
        self.pace = pace or ScreenReaderPace()

    def speak(
        self,
        utterances: Sequence[Utterance],
        *,
        priority: Priority = Priority.NOW,
        move: bool = False,
        on_done: Callable[[bool], None] | None = None,
        present: Announce | None = None,
    ) -> None:
        """Say ``utterances``; NOW cuts off what is being said. ``on_done(heard)`` runs on the
        view's thread after the last one. A ``move`` is left to a running screen reader, and
        anything else it is handed to say (by ``present`` when given, else as a message);
        where the end must be reported, after the time the screen reader takes to say it."""
        self.last = list(utterances)
        if priority is Priority.NOW:
            self.queue.interrupt()
        if move and self.moves_by_focus:
            return
        prefs = self.preferences.prefs
        text = join_sentences(word_cued(u, prefs) for u in utterances)
        if (
            self.moves_by_focus
            and self._screen_reader_speaks(text)
            and self._hand_over(text, present or self._announce, on_done)
        ):
            return
        caps = self.queue.backend.capabilities
        voices = page_voices(utterances, self.manifest)
        items = list(utterances)
        for i, utt in enumerate(items):
            request = to_request(utt, prefs, caps, self.manifest, voices)
            done = None
            if on_done is not None and i == len(items) - 1:
                post, callback = self.post, on_done

                def done(
                    _req: SpeechRequest, ok: bool, post: Post = post, cb: Callable[[bool], None] = callback
                ) -> None:
                    post(lambda: cb(ok))

            self.queue.say(request, Priority.NORMAL if priority is Priority.NOW else priority, done)

    def _hand_over(self, text: str, present: Announce, on_done: Callable[[bool], None] | None) -> bool:
        """Give ``text`` to the running screen reader; False where it stays with Panelvox."""
        if not self.moves_by_focus or not text or (on_done is not None and self._later is None):
            return False
        if not present(text):
            return False
        if on_done is not None and self._later is not None:
            self._later(self.pace.seconds(text), lambda: on_done(True))
        return True

    def _screen_reader_speaks(self, text: str) -> bool:
        """Whether every language run of ``text`` is one the screen reader's voice speaks (with
        a screen reader running, the speech chain starts with its speech server)."""
        caps = self.queue.backend.capabilities
        runs = language_runs(text, interface_language())
        return all(caps.speaks(lang) for piece, lang in runs if piece.strip())

    def announce(self, text: str) -> bool:
        """Hand ``text`` to the running screen reader as a message; False when none takes it."""
        return (
            self.moves_by_focus
            and self._screen_reader_speaks(text)
            and self._hand_over(text, self._announce, None)
        )

    def say(self, text: str, priority: Priority = Priority.NOW) -> None:
        """Say one sentence."""
        self.speak([message(text)], priority=priority)

    def wait_for_page(self) -> None:
        """Say where the reader is once the current page's analysis arrives."""
        self._page_waiting = True

    def say_page_pending(self, outline: PageOutline) -> None:
        """The page is still being analysed: say so, and where the reader is once it arrives."""
        self.wait_for_page()
        # Translators: said when moving inside a page that is still being analysed.
        self.say(_("Page {n} is still being analysed.").format(n=outline.number))

    def page_arrived(self) -> bool:
        """The current page's analysis arrived: True when its announcement waited (it is due now)."""
        waiting, self._page_waiting = self._page_waiting, False
        return waiting

    def stop(self) -> None:
        """Stop speaking now, and drop the announcement waiting for a page."""
        self._page_waiting = False
        self.queue.interrupt()
