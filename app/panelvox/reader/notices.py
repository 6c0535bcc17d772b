"""One-time notices (something could not be saved, a damaged store was reset), said until heard.

:func:`panelvox.jsonfile.take_notices` gives each sentence once per session. The reader
queues it after what it is saying, so a key pressed at once would cut it and it would never
be heard. Here, in Panelvox's own voice, a notice stays unheard until it was spoken to its
end, and is offered again after where-am-I (W) and after the next page turn until then.
With a screen reader the notice is handed to it like every message, and Panelvox cannot
know whether it was heard: where-am-I ends with it for the rest of the session (one
message, so the screen reader says both), and page turns do not repeat it.
"""

from __future__ import annotations

from collections.abc import Callable

from panelvox.jsonfile import take_notices
from panelvox.reader.listener import message
from panelvox.reader.reader_speech import ReaderSpeech
from panelvox.speech.backend import Priority


class Notices:
    """The notices taken from :mod:`panelvox.jsonfile` and not yet heard to their end."""

    def __init__(self, voice: ReaderSpeech) -> None:
        self.voice = voice
        self.unheard: list[str] = []

    def _take(self) -> list[str]:
        new = [text for text in take_notices() if text not in self.unheard]
        self.unheard.extend(new)
        return new

    def say_new(self) -> None:
        """Queue the notices noted since the last call, after what is being said."""
        self._say(self._take())

    def say_unheard(self) -> None:
        """Queue every notice not heard yet (the new ones too), after what is being said;
        with a screen reader, only the new ones (W says the others)."""
        new = self._take()
        self._say(new if self.voice.moves_by_focus else list(self.unheard))

    def say_after(self, text: str) -> None:
        """Say ``text`` now (W), then every notice not heard yet."""
        self._take()
        if self.voice.moves_by_focus:
            self.voice.say(" ".join([text, *self.unheard]))
            return
        self.voice.say(text)
        self._say(list(self.unheard))

    def _say(self, texts: list[str]) -> None:
        for text in texts:
            if self.voice.moves_by_focus:
                self.voice.say(text, Priority.NORMAL)  # the screen reader's; W says it again
            else:
                self.voice.speak([message(text)], priority=Priority.NORMAL, on_done=self._heard(text))

    def _heard(self, text: str) -> Callable[[bool], None]:
        """The "done" callback of ``text``: heard to its end, it is not offered again."""

        def done(completed: bool) -> None:
            if completed and text in self.unheard:
                self.unheard.remove(text)

        return done
