"""A backend for tests: records every request and its outcome, like NVDA's spy driver.

With ``seconds_per_char`` it takes time to "speak", so interruption and priorities can be
tested by what would have been heard.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum

from panelvox.i18n import _
from panelvox.speech.backend import Capabilities, CheckResult, SpeechBackend, SpeechRequest, Voice


class SpyEvent(Enum):
    STARTED = "started"
    DONE = "done"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class SpyRecord:
    event: SpyEvent
    request: SpeechRequest


class SpyBackend(SpeechBackend):
    """Records instead of speaking."""

    name = "spy"
    # Translators: description of the test speech output (developers only).
    description = _("Records speech for tests")

    def __init__(
        self,
        *,
        seconds_per_char: float = 0.0,
        fail_with: Exception | None = None,
        languages: tuple[str, ...] = ("*",),
    ) -> None:
        self.seconds_per_char = seconds_per_char
        self.languages = languages
        self.fail_with = fail_with
        self.records: list[SpyRecord] = []
        self.stops = 0
        self.terminated = False
        self._lock = threading.Lock()
        self._started = threading.Condition(self._lock)

    @classmethod
    def check(cls) -> CheckResult:
        return CheckResult(True)

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            can_stream=True,
            per_utterance_voice=True,
            can_tone=True,
            voices=(Voice("narrator", "Narrator"), Voice("a", "Voice A"), Voice("b", "Voice B")),
            rate_range=(0.5, 3.0),
            pitch_range=(0.5, 1.5),
            volume_range=(0.0, 1.0),
            languages=self.languages,
        )

    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        if self.fail_with is not None:
            raise self.fail_with
        with self._lock:
            self.records.append(SpyRecord(SpyEvent.STARTED, request))
            self._started.notify_all()
        cancelled = (
            cancel.wait(self.seconds_per_char * len(request.text))
            if self.seconds_per_char
            else cancel.is_set()
        )
        with self._lock:
            self.records.append(SpyRecord(SpyEvent.CANCELLED if cancelled else SpyEvent.DONE, request))
        return not cancelled

    def stop(self) -> None:
        with self._lock:
            self.stops += 1

    def terminate(self) -> None:
        self.terminated = True

    # -- what tests ask ---------------------------------------------------------------
    def texts(self, event: SpyEvent = SpyEvent.DONE) -> list[str]:
        """Texts that reached ``event`` (by default: heard to the end), in order."""
        with self._lock:
            return [r.request.text for r in self.records if r.event is event]

    def wait_started(self, count: int, timeout: float = 5.0) -> bool:
        """Block until ``count`` utterances have started."""
        with self._started:
            return self._started.wait_for(
                lambda: sum(r.event is SpyEvent.STARTED for r in self.records) >= count, timeout
            )
