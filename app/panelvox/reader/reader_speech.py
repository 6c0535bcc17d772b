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
it "Japanese letter") is not handed to it: Orca (43) gives a list item or a notification no
language. The screen reader says the item's frame in the interface's language, the lettering
named by its language ("Character 1: Japanese."), and Panelvox's voice of that language says
the lettering after it, queued behind the screen reader's time for the frame (or says once
that none is installed); any key stops it (:mod:`panelvox.reader.screen_reader_lettering`).
A message with no words but such lettering stays with Panelvox's voices.

It also holds the one "say the current page when its analysis arrives" flag, so that
:meth:`stop`, which the reader's interrupt calls, drops that announcement with the speech.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from panelvox.i18n import _, interface_language
from panelvox.narration.script import Utterance, join_sentences, page_voices, to_request, word_cued
from panelvox.reader.listener import message
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.preferences import Preferences
from panelvox.reader.screen_reader_lettering import ScreenReaderText, split_for_screen_reader
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
        #: lettering waiting for the screen reader to finish a frame is said only while this
        #: is the generation it was queued in (a key or new speech makes it stale)
        self._gen = 0

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
            self.interrupt_speech()
        prefs = self.preferences.prefs
        text = join_sentences(word_cued(u, prefs) for u in utterances)
        if self.moves_by_focus:
            split = self.for_screen_reader(text)
            if move:  # the screen reader says the focused item's frame; the lettering follows
                self._letter_after(split, utterances, None)
                return
            item = present is not None
            if (item or split.own_words) and self._hand_over(
                split.frame, present or self._announce, on_done, lettering=bool(split.lettering)
            ):
                self._letter_after(split, utterances, on_done)
                return
        caps = self.queue.backend.capabilities
        voices = page_voices(utterances, self.manifest)
        items = list(utterances)
        for i, utt in enumerate(items):
            request = to_request(utt, prefs, caps, self.manifest, voices)
            done = self._done_callback(on_done) if i == len(items) - 1 else None
            self.queue.say(request, Priority.NORMAL if priority is Priority.NOW else priority, done)

    def _done_callback(
        self, on_done: Callable[[bool], None] | None
    ) -> Callable[[SpeechRequest, bool], None] | None:
        """The queue's "done" for ``on_done``: run on the view's thread."""
        if on_done is None:
            return None
        post, callback = self.post, on_done

        def done(_req: SpeechRequest, ok: bool) -> None:
            post(lambda: callback(ok))

        return done

    def for_screen_reader(self, text: str) -> ScreenReaderText:
        """``text`` as the screen reader is given it (its frame), and the lettering its voice
        cannot say, for Panelvox's voices."""
        return split_for_screen_reader(text, self.queue.backend.capabilities.speaks, interface_language())

    def item_text(self, utterances: Sequence[Utterance]) -> str:
        """An item's accessible name: what a screen reader says on landing there."""
        text = join_sentences(word_cued(u, self.preferences.prefs) for u in utterances)
        return self.for_screen_reader(text).frame if self.moves_by_focus else text

    def _letter_after(
        self, split: ScreenReaderText, utterances: Sequence[Utterance], on_done: Callable[[bool], None] | None
    ) -> None:
        """After the screen reader's time for ``split.frame``, say the lettering it cannot
        (each run with its speaker's voice, through the queue's voice of its language);
        ``on_done`` after the last of it."""
        if not split.lettering:
            return
        requests = self._lettering_requests(utterances)
        gen = self._gen

        def say() -> None:
            if gen != self._gen:  # a key, or other speech, came first: cut off
                if on_done is not None:
                    self.post(lambda: on_done(False))
                return
            if not requests and on_done is not None:
                on_done(True)
            for i, request in enumerate(requests):
                done = self._done_callback(on_done) if i == len(requests) - 1 else None
                self.queue.say(request, Priority.NORMAL, done)

        if self._later is None:
            say()
        else:
            self._later(self.pace.seconds(split.frame), say)

    def _lettering_requests(self, utterances: Sequence[Utterance]) -> list[SpeechRequest]:
        """The runs of ``utterances`` the screen reader's voice cannot say, as requests in
        their language with their speaker's voice (the cue was said in the frame)."""
        prefs = self.preferences.prefs
        caps = self.queue.backend.capabilities
        voices = page_voices(utterances, self.manifest)
        out: list[SpeechRequest] = []
        for utt in utterances:
            request = to_request(utt, prefs, caps, self.manifest, voices)
            for piece, lang in self.for_screen_reader(request.text).lettering:
                out.append(replace(request, text=piece, language=lang, tone_before=False))
        return out

    def _hand_over(
        self, text: str, present: Announce, on_done: Callable[[bool], None] | None, *, lettering: bool = False
    ) -> bool:
        """Give ``text`` to the running screen reader; False where it stays with Panelvox.
        With ``lettering`` to follow, ``on_done`` waits for that, not for the screen reader."""
        if not self.moves_by_focus or not text or (on_done is not None and self._later is None):
            return False
        if not present(text):
            return False
        if on_done is not None and self._later is not None and not lettering:
            self._later(self.pace.seconds(text), lambda: on_done(True))
        return True

    def announce(self, text: str) -> bool:
        """Hand ``text`` to the running screen reader as a message; False when none takes it
        (or when its voice cannot say all of it)."""
        return (
            self.moves_by_focus
            and not self.for_screen_reader(text).lettering
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

    def interrupt_speech(self) -> None:
        """Cut off what is said, and the lettering waiting for the screen reader."""
        self._gen += 1
        self.queue.interrupt()

    def stop(self) -> None:
        """Stop speaking now, and drop the announcement waiting for a page."""
        self._page_waiting = False
        self.interrupt_speech()
