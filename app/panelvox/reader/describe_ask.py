"""The reader's describe (D) and ask (Q): requests to a worker, results spoken.

:class:`DescribeAsk` keeps the one wanted request and a generation: each request carries
the generation it was made in, and a result of an older one (the reader was interrupted,
or a newer request replaced it) is never spoken. The work itself (model, verifier,
answers) runs in :class:`~panelvox.reader.describe_jobs.DescribeWorker` on a worker
thread the view starts; nothing here waits for it.
"""

from __future__ import annotations

from collections.abc import Callable

from panelvox.i18n import _
from panelvox.model import PageAnalysis
from panelvox.models.registry import ModelRegistry
from panelvox.narration.describe import DescribeConfig
from panelvox.reader.describe_jobs import (
    DescribeJobs,
    DescribeRequest,
    DescribeResult,
    DescribeWorker,
    RequestKind,
    model_configured,
)
from panelvox.reader.page_results import Here
from panelvox.reader.position import Level
from panelvox.reader.preferences import Preferences
from panelvox.reader.reader_speech import ReaderSpeech
from panelvox.speech.backend import Priority


class DescribeAsk:
    """Describe a panel and answer questions about the page, off the UI thread."""

    def __init__(
        self,
        voice: ReaderSpeech,
        preferences: Preferences,
        interrupt: Callable[[], None],
        *,
        models: ModelRegistry,
        config: DescribeConfig,
    ) -> None:
        self.voice = voice
        self.preferences = preferences
        self._interrupt = interrupt  # the reader's one interrupt, before every new request
        self.models = models
        self.config = config
        #: the wanted request, run by a worker the view starts on first use
        self.jobs = DescribeJobs()
        self._gen = 0

    def worker(self) -> DescribeWorker:
        """The worker a view runs on its describe thread (it loads the model there, lazily)."""
        return DescribeWorker(self.models, self.config)

    def describe(self, here: Here) -> None:
        """Describe the current panel (the page's first at page level) with the model."""
        if not model_configured(self.models):
            # Translators: said for describe (D) and ask (Q) while no local vision model is set up.
            self.voice.say(_("No description model is configured."))
            return
        analysis = self._analysed(here)
        if analysis is None:
            return
        panels = analysis.panels_in_order()
        if not panels:
            # Translators: said for describe (D) on a page where no panel was found.
            self.voice.say(_("This page has no panels to describe."))
            return
        outline, pos = here.outline, here.position
        index = -1
        if pos.level is not Level.PAGE and 0 <= pos.step < len(outline.steps):
            index = outline.group_of(pos.step)  # -1: text outside every panel
        group = outline.panels[index] if index >= 0 else None
        panel_id = group.panel if group is not None and group.panel else panels[0].id
        numbers = {p.id: i for i, p in enumerate(panels, 1)}
        numbers |= {g.panel: g.number for g in outline.panels if g.panel and g.number is not None}
        number = numbers.get(panel_id, 1)
        self._interrupt()
        self._send(self._request(RequestKind.DESCRIBE, here, analysis, panel=panel_id))
        # Translators: said while the model describes a panel; {n} is its number.
        self.voice.say(_("Describing panel {n}…").format(n=number))

    def ask(self, here: Here, question: str) -> None:
        """Answer a typed question from the page's structure (and the model, when added)."""
        analysis = self._analysed(here)
        if analysis is None:
            return
        if not question.strip():
            # Translators: said when the question box was left empty.
            self.voice.say(_("Type a question, like: how many panels?"))
            return
        use_model = model_configured(self.models)
        self._interrupt()
        request = self._request(
            RequestKind.ASK, here, analysis, question=question.strip(), use_model=use_model
        )
        self._send(request)

    def _analysed(self, here: Here) -> PageAnalysis | None:
        """The page's analysis; None (after saying why) while it is analysed or unreadable."""
        if not here.outline.ready:
            self.voice.say_page_pending(here.outline)
            return None
        if here.analysis is None:
            self.voice.say(here.outline.heading)  # the unreadable page's own sentence
        return here.analysis

    def _request(
        self,
        kind: RequestKind,
        here: Here,
        analysis: PageAnalysis,
        *,
        panel: str | None = None,
        question: str = "",
        use_model: bool = True,
    ) -> DescribeRequest:
        return DescribeRequest(
            here.token,
            self._gen,
            kind,
            here.book,
            here.position.page,
            analysis,
            panel=panel,
            question=question,
            use_model=use_model,
            cue=self.preferences.prefs.uncertainty_cue,
            prefs=self.preferences.prefs,
        )

    def _send(self, request: DescribeRequest) -> None:
        self.jobs.set_wanted([request])  # replaces a request the worker has not started

    def run_pending(self, worker: DescribeWorker, deliver: Callable[[DescribeResult], None]) -> int:
        """Run waiting requests on this thread, each result to ``deliver`` (tests without a thread)."""
        done = 0
        while (request := self.jobs.take(timeout=0)) is not None:
            deliver(worker(request))
            done += 1
        return done

    def deliver(self, result: DescribeResult) -> None:
        """Speak a result of the current generation; an older one is dropped."""
        if result.gen != self._gen:
            return
        # after the "Describing…" announcement, not over it
        self.voice.speak(result.utterances, priority=Priority.NORMAL)

    def cancel(self) -> None:
        """A description or answer still being worked on, or not started, is never spoken."""
        self._gen += 1
        self.jobs.set_wanted(())

    def close(self) -> None:
        self.jobs.close()
