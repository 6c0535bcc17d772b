"""A page's utterances rendered to PCM with the narration's voices: the audio of
``narrate --wav``/``--audio`` and of the exports (audiobook, DiViNa ``--audio``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from panelvox.i18n import _
from panelvox.narration.prefs import NarrationPrefs, UtteranceKind
from panelvox.narration.script import Utterance, page_voices, to_request
from panelvox.speech.backend import Priority
from panelvox.speech.backends.file_backend import Heard
from panelvox.speech.language_voices import LanguageVoices, MissingCallback
from panelvox.speech.voices import VoiceManifest, load_manifest


@dataclass(frozen=True, slots=True)
class PageAudio:
    samples: np.ndarray  # 16-bit mono
    sample_rate: int
    #: block id -> (start, end) in seconds, for each utterance that came from a block
    spans: dict[str, tuple[float, float]]
    #: every language run and the voice that said it, in order
    heard: tuple[Heard, ...] = ()

    @property
    def seconds(self) -> float:
        return self.samples.size / self.sample_rate


def heading(overview: str) -> Utterance:
    """The page overview, said before the page (a notice in the narrator's voice)."""
    return Utterance(UtteranceKind.NOTICE, overview, overview, priority=Priority.NORMAL)


class PageRenderer:
    """Renders pages through a PCM engine (``backend``: "piper", "pyttsx3" or the first
    that works); raises :class:`~panelvox.errors.BackendUnavailable` when none does.

    Lettering in a language the engine does not speak goes to a voice of that language
    (``languages``; by default the installed ones); ``on_missing`` hears once of a language
    no voice speaks."""

    def __init__(
        self,
        prefs: NarrationPrefs,
        *,
        backend: str | None = None,
        manifest: VoiceManifest | None = None,
        languages: LanguageVoices | None = None,
        on_missing: MissingCallback | None = None,
    ) -> None:
        from panelvox.speech.backends.file_backend import FileBackend, engine_by_name
        from panelvox.speech.discovery import language_voices

        if languages is None:
            languages = language_voices(for_files=True, on_missing=on_missing)
        self.file = FileBackend(engine_by_name(backend) if backend else None, languages=languages)
        self.prefs = prefs
        self.manifest = manifest if manifest is not None else load_manifest()

    @property
    def sample_rate(self) -> int:
        return self.file.sample_rate

    def render(self, utterances: Sequence[Utterance]) -> PageAudio:
        cancel = threading.Event()
        voices = page_voices(utterances, self.manifest)
        caps = self.file.capabilities
        for utt in utterances:
            self.file.speak(to_request(utt, self.prefs, caps, self.manifest, voices), cancel)
        samples, marks = self.file.take()
        rate = self.sample_rate
        starts = [(m.tag, m.sample) for m in marks]
        spans: dict[str, tuple[float, float]] = {}
        for i, (tag, start) in enumerate(starts):
            end = starts[i + 1][1] if i + 1 < len(starts) else samples.size
            spans.setdefault(tag, (start / rate, end / rate))
        return PageAudio(samples, rate, spans, tuple(self.file.take_heard()))

    def close(self) -> None:
        self.file.terminate()


def page_chapter_title(number: int) -> str:
    # Translators: the chapter name of one page in an exported audio book.
    return _("Page {n}").format(n=number)
