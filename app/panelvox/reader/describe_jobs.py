"""Describe a panel (D) and answer a question about the page (Q), off the UI thread.

The controller puts one :class:`DescribeRequest` on a :class:`DescribeJobs` list; a worker
thread runs :class:`DescribeWorker` on it and hands a :class:`DescribeResult` (utterances
ready to speak) back with a queued signal. Qt-free. The model is loaded lazily, on the
worker's thread, the first time it is needed, and reused for every later request;
verified panels are kept so asking after describing does not run the model again.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from panelvox.books import Book
from panelvox.errors import PanelvoxError
from panelvox.model import PageAnalysis
from panelvox.models.registry import ModelRegistry, ModelRole
from panelvox.narration.describe import DescribeConfig, Describer, no_description_notice
from panelvox.narration.page_answers import Answer, BookTitle, ask, cant_tell, cited_words
from panelvox.narration.page_narration import panel_utterances
from panelvox.narration.prefs import NarrationPrefs, UncertaintyCue
from panelvox.narration.script import Utterance
from panelvox.narration.verify import FlaggedPolicy, VerifiedPanel, verify_panel
from panelvox.narration.vlm_backend import LlamaBackend, backend_for
from panelvox.reader.analysis_jobs import WorkQueue
from panelvox.reader.listener import message
from panelvox.reader.position import page_number

log = logging.getLogger(__name__)

_KEPT_PANELS = 64  # verified panels remembered by the worker (a few pages' worth)


class RequestKind(Enum):
    DESCRIBE = "describe"
    ASK = "ask"


@dataclass(frozen=True, slots=True)
class DescribeRequest:
    token: int  # which opening of which book
    gen: int  # which request: a newer one (or any interruption) makes the result stale
    kind: RequestKind
    book: Book
    page: int  # 0-based page index
    analysis: PageAnalysis
    panel: str | None = None  # DESCRIBE: the panel's id
    question: str = ""  # ASK
    use_model: bool = True  # ASK: a model is registered, so it may be consulted
    policy: FlaggedPolicy = FlaggedPolicy.CUE
    cue: UncertaintyCue = UncertaintyCue.WORD
    #: ASK: the narration the listener hears (answers quote and name as it does)
    prefs: NarrationPrefs = field(default_factory=NarrationPrefs)


@dataclass(frozen=True, slots=True)
class DescribeResult:
    token: int
    gen: int
    kind: RequestKind
    utterances: tuple[Utterance, ...]
    seconds: float


class DescribeJobs(WorkQueue[DescribeRequest]):
    """At most one wanted request: a new key press replaces the one not yet started."""


def model_configured(registry: ModelRegistry) -> bool:
    """Whether the user has added a model the describer can use (reads a small manifest)."""
    return any(e.role in (ModelRole.VLM, ModelRole.LLM) for e in registry.entries())


def answer_utterances(answer: Answer, analysis: PageAnalysis) -> list[Utterance]:
    text = answer.text if answer.text.endswith((".", "!", "?", "…", "”")) else answer.text + "."
    # An unsure answer already says "Uncertain" or "I can't tell" in its words: no second cue.
    return [message(f"{text} {cited_words(answer, analysis)}".strip())]


@dataclass
class DescribeWorker:
    """Runs describe and ask requests on the worker thread; one backend, loaded once."""

    registry: ModelRegistry = field(default_factory=ModelRegistry)
    config: DescribeConfig = field(default_factory=DescribeConfig)
    _backend: LlamaBackend | None = field(default=None, init=False, repr=False)
    _verified: OrderedDict[tuple[str, int, str], VerifiedPanel] = field(
        default_factory=OrderedDict, init=False, repr=False
    )

    def __call__(self, request: DescribeRequest) -> DescribeResult:
        start = time.perf_counter()
        try:
            if request.kind is RequestKind.DESCRIBE:
                utterances = self._describe(request)
            else:
                utterances = self._ask(request)
        except PanelvoxError as exc:
            log.warning("%s on page %d failed: %s", request.kind.value, page_number(request.page), exc.detail)
            utterances = [message(exc.message)]
        seconds = time.perf_counter() - start
        log.info("%s on page %d took %.2f s", request.kind.value, page_number(request.page), seconds)
        return DescribeResult(request.token, request.gen, request.kind, tuple(utterances), seconds)

    def backend(self) -> LlamaBackend:
        """The loaded model (loaded here, the first time; a failed load is retried next time)."""
        if self._backend is None:
            self._backend = backend_for(None, self.registry)
        self._backend.load()
        return self._backend

    def _verified_panels(self, request: DescribeRequest, panel_ids: Sequence[str]) -> list[VerifiedPanel]:
        key = request.book.content_hash, request.page
        missing = [p for p in panel_ids if (*key, p) not in self._verified]
        if missing:
            backend = self.backend()
            image = request.book.load_page_array(request.page) if backend.has_vision else None
            panels = [p for p in request.analysis.panels_in_order() if p.id in missing]
            describer = Describer(backend, self.config)
            for desc in describer.describe_page(image, request.analysis, panels=panels):
                self._verified[(*key, desc.facts.panel_id)] = verify_panel(desc, request.analysis)
            while len(self._verified) > _KEPT_PANELS:
                self._verified.popitem(last=False)
        return [self._verified[(*key, p)] for p in panel_ids if (*key, p) in self._verified]

    def _describe(self, request: DescribeRequest) -> list[Utterance]:
        if request.panel is None:
            return [message(no_description_notice())]
        verified = self._verified_panels(request, [request.panel])
        utterances: list[Utterance] = []
        for vp in verified:
            utterances += panel_utterances(vp, policy=request.policy, cue=request.cue)
        return utterances or [message(no_description_notice())]

    def _ask(self, request: DescribeRequest) -> list[Utterance]:
        analysis = request.analysis
        # The verified structure answers "who says", "how many" and quoted lines at once.
        prefs, book = request.prefs, BookTitle.of(request.book)
        answer = ask(request.question, analysis, prefs=prefs, book=book)
        if answer != cant_tell() or not request.use_model:
            return answer_utterances(answer, analysis)
        try:
            verified = self._verified_panels(request, [p.id for p in analysis.panels_in_order()])
            answer = ask(request.question, analysis, verified, backend=self.backend(), prefs=prefs, book=book)
        except PanelvoxError as exc:
            log.warning("ask without the model: %s", exc.detail)
            return [message(exc.message), *answer_utterances(answer, analysis)]
        return answer_utterances(answer, analysis)

    def close(self) -> None:
        """Free the model (call once the worker thread has ended)."""
        if self._backend is not None:
            self._backend.close()
            self._backend = None
