"""The reader's describe (D) and ask (Q) commands: requests to a worker, results spoken.

A mixin of :class:`~panelvox.reader.reader_controller.ReaderController`, kept apart so each
module stays small; it uses only the controller members declared below. The work itself
(model, verifier, answers) runs in :class:`~panelvox.reader.describe_jobs.DescribeWorker`
on a worker thread the view starts; nothing here waits for it.
"""

from __future__ import annotations

from panelvox.i18n import _
from panelvox.model import PageAnalysis
from panelvox.models.registry import ModelRegistry
from panelvox.narration.describe import DescribeConfig
from panelvox.narration.prefs import NarrationPrefs
from panelvox.reader.controller_members import ControllerMembers
from panelvox.reader.describe_jobs import (
    DescribeJobs,
    DescribeRequest,
    DescribeResult,
    DescribeWorker,
    RequestKind,
    model_configured,
)
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Level
from panelvox.reader.reader_speech import ReaderSpeech
from panelvox.speech.backend import Priority


class DescribeCommands(ControllerMembers):
    # Members of the controller this mixin uses (beside ControllerMembers').
    models: ModelRegistry
    describe_config: DescribeConfig
    describe_jobs: DescribeJobs
    _describe_gen: int
    voice: ReaderSpeech

    @property
    def prefs(self) -> NarrationPrefs:
        raise NotImplementedError

    def _need_ready(self, outline: PageOutline) -> bool:
        raise NotImplementedError

    def describe_worker(self) -> DescribeWorker:
        """The worker a view runs on its describe thread (it loads the model there, lazily)."""
        return DescribeWorker(self.models, self.describe_config)

    def _ready_analysis(self) -> PageAnalysis | None:
        """The current page's analysis; None (after saying why) when there is none yet."""
        if not self._need_book():
            return None
        outline = self.outline(self.position.page)
        if not self._need_ready(outline):
            return None
        analysis = self.results.analysis(self.position.page)
        if analysis is None:
            self.say_message(outline.heading)  # the unreadable page's own sentence
        return analysis

    def _queue(self, request: DescribeRequest) -> None:
        self.describe_jobs.set_wanted([request])

    def describe(self) -> None:
        """D: describe the current panel (the page's first at page level) with the model."""
        if self.book is not None and not model_configured(self.models):
            self.no_model()
            return
        analysis = self._ready_analysis()
        if analysis is None:
            return
        panels = analysis.panels_in_order()
        if not panels:
            # Translators: said for describe (D) on a page where no panel was found.
            self.say_message(_("This page has no panels to describe."))
            return
        outline = self.outline(self.position.page)
        index = -1
        if self.position.level is not Level.PAGE and 0 <= self.position.step < len(outline.steps):
            index = outline.group_of(self.position.step)  # -1: text outside every panel
        group = outline.panels[index] if index >= 0 else None
        panel_id = group.panel if group is not None and group.panel else panels[0].id
        numbers = {p.id: i for i, p in enumerate(panels, 1)}
        numbers |= {g.panel: g.number for g in outline.panels if g.panel and g.number is not None}
        number = numbers.get(panel_id, 1)
        self.interrupt()
        self._queue(self._request(RequestKind.DESCRIBE, analysis, panel=panel_id))
        # Translators: said while the model describes a panel; {n} is its number.
        self.say_message(_("Describing panel {n}…").format(n=number))

    def ask(self, question: str) -> None:
        """Q: answer a typed question from the page's structure (and the model, when added)."""
        analysis = self._ready_analysis()
        if analysis is None:
            return
        if not question.strip():
            # Translators: said when the question box was left empty.
            self.say_message(_("Type a question, like: how many panels?"))
            return
        use_model = model_configured(self.models)
        self.interrupt()
        self._queue(self._request(RequestKind.ASK, analysis, question=question.strip(), use_model=use_model))

    def _request(
        self,
        kind: RequestKind,
        analysis: PageAnalysis,
        *,
        panel: str | None = None,
        question: str = "",
        use_model: bool = True,
    ) -> DescribeRequest:
        assert self.book is not None
        return DescribeRequest(
            self.results.token,
            self._describe_gen,
            kind,
            self.book,
            self.position.page,
            analysis,
            panel=panel,
            question=question,
            use_model=use_model,
            cue=self.prefs.uncertainty_cue,
        )

    def on_describe_result(self, result: DescribeResult) -> None:
        """A description or answer is ready (call on the view's thread); stale ones are dropped."""
        if result.token != self.results.token or result.gen != self._describe_gen or self.book is None:
            return
        # after the "Describing…" announcement, not over it
        self.voice.speak(result.utterances, priority=Priority.NORMAL)

    def describe_pending(self, worker: DescribeWorker) -> int:
        """Run waiting describe/ask requests on this thread (tests without a worker thread)."""
        done = 0
        while (request := self.describe_jobs.take(timeout=0)) is not None:
            self.on_describe_result(worker(request))
            done += 1
        return done

    def no_model(self) -> None:
        # Translators: said for describe (D) and ask (Q) while no local vision model is set up.
        self.say_message(_("No description model is configured."))
