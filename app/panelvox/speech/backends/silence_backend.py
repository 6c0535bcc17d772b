"""The end of every fallback chain: says nothing, and says so in the log."""

from __future__ import annotations

import logging
import threading

from panelvox.i18n import _
from panelvox.speech.backend import Capabilities, CheckResult, SpeechBackend, SpeechRequest

log = logging.getLogger(__name__)


class SilenceBackend(SpeechBackend):
    """No speech at all: a real backend so a broken voice never crashes the reader."""

    name = "silence"
    # Translators: description of the speech output that makes no sound.
    description = _("No speech (text is still shown)")

    def __init__(self) -> None:
        self.dropped = 0  # how many utterances went unheard, for "why is it silent?" reports

    @classmethod
    def check(cls) -> CheckResult:
        return CheckResult(True)

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            reports_done=True, rate_range=(0.5, 3.0), pitch_range=(0.5, 1.5), volume_range=(0.0, 1.0)
        )

    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        self.dropped += 1
        if self.dropped == 1:
            log.warning("speech output is silent: no working speech backend")
        log.debug("silence: %s", request.text)
        return not cancel.is_set()
