"""A voice per language: the lettering is said by a voice of its language, the narration's
own words ("Panel 2", "Character 1 says") by the interface's voice.

:class:`LanguageVoices` cuts a request into language runs (:func:`panelvox.languages.
language_runs`) and gives each run to the main voice when it speaks that language, else to
a voice of that language. Where none is installed it says so once, with what to install,
and leaves those words out: a voice that spells "Japanese letter, Chinese letter" tells the
listener nothing and takes minutes. The speech queue (reading aloud) and the file backend
(audio export) both plan through it, so they route the same way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from panelvox.i18n import _
from panelvox.languages import language_runs
from panelvox.speech.backend import SpeechBackend, SpeechRequest

log = logging.getLogger(__name__)

#: Languages espeak-ng reads in their own script (the pyttsx3 voice on Linux, and Speech
#: Dispatcher's default module). Japanese is not one: it spells kanji as "Chinese letter"
#: and kana one by one, so Japanese lettering goes to a Japanese voice.
ESPEAK_LANGUAGES: tuple[str, ...] = (
    "en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "sk", "ru",
    "uk", "el", "tr", "hu", "ro", "bg", "hr", "ca", "id", "vi", "hi", "ko",
)  # fmt: skip
#: Called once per language that no installed voice speaks, with the sentence said.
MissingCallback = Callable[[str, str], None]


def language_name(language: str) -> str:
    """The language's name for the listener."""
    names = {
        # Translators: a language's name, in "No Japanese voice is installed".
        "ja": _("Japanese"),
        # Translators: a language's name, in "No English voice is installed".
        "en": _("English"),
    }
    return names.get(language, language)


def install_hint(language: str) -> str:
    """What to install for a voice of ``language``; empty when Panelvox knows of none."""
    if language == "ja":
        # Translators: how to install the Japanese voice, after "No Japanese voice is installed;".
        return _("run scripts/setup, or pip install 'panelvox[ja]'")
    return ""


def missing_voice_message(language: str) -> str:
    """The one sentence said when lettering of ``language`` has no voice."""
    how = install_hint(language)
    if how:
        # Translators: said once when lettering is in a language no installed voice speaks; {how} says what to install.
        return _("No {language} voice is installed; {how}.").format(language=language_name(language), how=how)
    # Translators: said once when lettering is in a language no installed voice speaks.
    return _("No {language} voice is installed; its lettering is not read aloud.").format(
        language=language_name(language)
    )


@dataclass(frozen=True, slots=True)
class Part:
    """One run of a request and the backend that says it."""

    request: SpeechRequest
    backend: SpeechBackend
    notice: bool = False  # the "no voice for this language" sentence, not the book's words


class LanguageVoices:
    """The voices of languages other than the main voice's, and the once-only notices."""

    def __init__(
        self,
        voices: Mapping[str, Sequence[SpeechBackend]],
        *,
        interface: str,
        on_missing: MissingCallback | None = None,
    ) -> None:
        self._voices = {lang: list(backends) for lang, backends in voices.items()}
        self.interface = interface
        self.on_missing = on_missing
        self._told: set[str] = set()
        self._lock = threading.Lock()

    def backends(self) -> list[SpeechBackend]:
        """Every language voice, once each."""
        with self._lock:
            return list({id(b): b for bs in self._voices.values() for b in bs}.values())

    def voice_for(self, language: str) -> SpeechBackend | None:
        with self._lock:
            found = self._voices.get(language.split("-")[0].lower())
            return found[0] if found else None

    def drop(self, backend: SpeechBackend) -> None:
        """Stop using a language voice that failed; the next of its language takes over."""
        with self._lock:
            for backends in self._voices.values():
                if backend in backends:
                    backends.remove(backend)

    def plan(self, request: SpeechRequest, main: SpeechBackend) -> list[Part]:
        """The parts of ``request`` in speaking order, each with who says it."""
        caps = main.capabilities
        parts: list[Part] = []
        # Words outside Japanese script are in the request's language (a French book's
        # lettering), or the interface's when the request is a Japanese line.
        other = request.language if request.language and not request.language.startswith("ja") else ""
        for piece, lang in language_runs(request.text, other or self.interface):
            if not piece.strip():
                continue
            # The uncertainty cue belongs before the utterance, not before each of its runs.
            req = replace(request, text=piece, language=lang, tone_before=request.tone_before and not parts)
            if caps.speaks(lang):
                # a run in another language than the request's gets the speaker's voice of it
                if lang != request.language:
                    req = replace(req, voice=_voice_in(main, request, lang))
                parts.append(Part(req, main))
                continue
            voice = self.voice_for(lang)
            if voice is not None:
                parts.append(Part(replace(req, voice=_voice_in(voice, request, lang)), voice))
            elif notice := self._tell(lang):
                parts.append(Part(replace(req, text=notice, language=self.interface, voice=None), main, True))
        return parts

    def _tell(self, language: str) -> str:
        with self._lock:
            if language in self._told:
                return ""
            self._told.add(language)
        message = missing_voice_message(language)
        log.warning("no voice speaks %s: its lettering is left out of speech", language)
        if self.on_missing is not None:
            self.on_missing(language, message)
        return message

    def stop(self) -> None:
        for backend in self.backends():
            backend.stop()

    def terminate(self) -> None:
        for backend in self.backends():
            backend.terminate()


def _voice_in(backend: SpeechBackend, request: SpeechRequest, language: str) -> str | None:
    """The speaker's voice in ``backend``: its variant ("f2") as that backend's voice id
    ("ja+f2"), which the backend resolves to its nearest voice; None: its default."""
    variant = request.variant or (request.voice or "").partition("+")[2]
    return f"{language}+{variant}" if variant and backend.capabilities.per_utterance_voice else None
