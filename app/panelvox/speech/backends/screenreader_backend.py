"""The user's screen reader through accessible-output2 (extra ``screenreader``).

NVDA, JAWS, SAPI on Windows, VoiceOver on macOS, Speech Dispatcher on Linux (the speech
server Orca speaks through, so Panelvox uses the user's configured voice and rate). When a
screen reader is running this is the default backend.

On Speech Dispatcher we use the client accessible-output2 opened, with callbacks, so
:meth:`speak` returns when the speech really ended. Other screen readers only take text:
``reports_done`` is False there.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.backend import Capabilities, CheckResult, SpeechBackend, SpeechRequest, Voice
from panelvox.speech.language_voices import ESPEAK_LANGUAGES

log = logging.getLogger(__name__)

#: espeak-style variants (as in voices/manifest.json) → Speech Dispatcher voice types
_SPD_VOICES = {
    "m1": "MALE1",
    "m2": "MALE2",
    "m3": "MALE3",
    "f1": "FEMALE1",
    "f2": "FEMALE2",
    "f3": "FEMALE3",
    "m4": "CHILD_MALE",
    "f4": "CHILD_FEMALE",
}
_SCREEN_READERS = ("orca", "nvda", "jaws", "fenrir", "speakup")
#: longest we wait for Speech Dispatcher to report the end of one utterance
_DONE_TIMEOUT_S = 120.0


def screen_reader_running() -> bool:
    """True when a screen reader is running for this user now."""
    if sys.platform.startswith("linux"):
        return _linux_screen_reader_running()
    try:
        from accessible_output2.outputs import jaws, nvda, voiceover
    except ImportError:
        return False
    for module in (nvda, jaws, voiceover):
        try:
            if module.output_class().is_active():
                return True
        except (OSError, RuntimeError, AttributeError):
            continue
    return False


def _linux_screen_reader_running() -> bool:
    uid = os.getuid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.stat().st_uid != uid:
                continue
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [Path(a.decode("utf-8", "replace")).name.lower() for a in cmdline[:2] if a]
        if any(w in _SCREEN_READERS for w in words):
            return True
    return False


class ScreenReaderBackend(SpeechBackend):
    """Speech through the screen reader or speech server the user already has."""

    name = "screenreader"
    # Translators: description of the speech output that uses the user's screen reader.
    description = _("Your screen reader (NVDA, JAWS, VoiceOver, Orca's Speech Dispatcher)")

    def __init__(self, *, client_name: str = "panelvox") -> None:
        self._client_name = client_name
        self._output: Any = None
        self._module: str | None = None  # Speech Dispatcher's output module, once asked
        self._lock = threading.Lock()

    @classmethod
    def check(cls) -> CheckResult:
        try:
            import accessible_output2  # noqa: F401
        except ImportError:
            return CheckResult(
                False,
                # Translators: spoken when the screen reader support package is missing.
                _("Screen reader support is not installed (pip install panelvox[screenreader])."),
            )
        if sys.platform.startswith("linux"):
            try:
                import speechd  # noqa: F401
            except ImportError:
                return CheckResult(
                    False, _("Screen reader support is not installed (pip install panelvox[screenreader]).")
                )
            if shutil.which("speech-dispatcher") is None:
                # Translators: spoken when the Linux speech server is not installed.
                return CheckResult(False, _("Speech Dispatcher is not installed."))
        return CheckResult(True)

    # -- output ------------------------------------------------------------------------
    def _get_output(self) -> Any:
        with self._lock:
            if self._output is None:
                self._output = self._open()
            return self._output

    def _open(self) -> Any:
        try:
            if sys.platform.startswith("linux"):
                from accessible_output2.outputs.speech_dispatcher import SpeechDispatcher

                out = SpeechDispatcher()
            else:
                from accessible_output2.outputs.auto import Auto

                out = Auto()
        except (ImportError, OSError, RuntimeError) as exc:
            raise BackendUnavailable(
                # Translators: spoken when the screen reader cannot be reached.
                _("Your screen reader cannot be reached."),
                detail=repr(exc),
            ) from exc
        if not out.is_active():
            raise BackendUnavailable(_("Your screen reader cannot be reached."), detail="output not active")
        return out

    @property
    def capabilities(self) -> Capabilities:
        if not sys.platform.startswith("linux"):
            return Capabilities(reports_done=False, can_stream=True)
        return Capabilities(
            can_stream=True,
            per_utterance_voice=True,
            reports_done=True,
            voices=tuple(Voice(f"en+{k}", v.replace("_", " ").lower()) for k, v in _SPD_VOICES.items()),
            rate_range=(0.3, 3.0),
            pitch_range=(0.2, 1.8),
            volume_range=(0.0, 1.0),
            languages=self._languages(),
        )

    def _languages(self) -> tuple[str, ...]:
        """What Speech Dispatcher's output module reads: espeak-ng (Debian's default) spells
        Japanese ("Chinese letter"), so that lettering goes to a Japanese voice; another
        module is trusted with every language, which goes with each run of text."""
        if self._module is None:
            module = ""
            try:
                client = getattr(self._get_output(), "_client", None)
                module = str(client.get_output_module()) if client is not None else ""
            except (BackendUnavailable, OSError, RuntimeError, AttributeError) as exc:
                log.info("speech dispatcher's output module unknown: %r", exc)
            self._module = module
        return ESPEAK_LANGUAGES if self._module.startswith("espeak") else ("*",)

    def speak(self, request: SpeechRequest, cancel: threading.Event) -> bool:
        out = self._get_output()
        client = getattr(out, "_client", None)
        if client is None:
            out.speak(request.text, interrupt=False)
            return not cancel.is_set()
        import speechd

        done = threading.Event()
        result: list[str] = []

        def on_event(kind: Any, **_kw: Any) -> None:
            result.append(str(kind))
            done.set()

        try:
            client.set_rate(_to_spd(request.rate, 0.3, 3.0))
            client.set_pitch(_to_spd(request.pitch, 0.2, 1.8))
            client.set_volume(round(request.volume * 200) - 100)
            if request.language:
                client.set_language(request.language[:2])
            variant = (request.voice or "").partition("+")[2]
            if variant in _SPD_VOICES:
                client.set_voice(_SPD_VOICES[variant])
            client.speak(
                request.text,
                callback=on_event,
                event_types=(speechd.CallbackType.END, speechd.CallbackType.CANCEL),
            )
        except (OSError, speechd.SSIPCommunicationError) as exc:
            with self._lock:
                self._output = None
            raise BackendUnavailable(_("Your screen reader cannot be reached."), detail=repr(exc)) from exc
        deadline = time.monotonic() + _DONE_TIMEOUT_S
        while not done.wait(0.01):
            if cancel.is_set():
                self.stop()
                done.wait(1.0)
                return False
            if time.monotonic() > deadline:
                log.warning("speech dispatcher never reported the end of an utterance")
                return True
        return result[:1] == [str(speechd.CallbackType.END)] and not cancel.is_set()

    def stop(self) -> None:
        out = self._output
        if out is None:
            return
        try:
            out.silence()
        except OSError as exc:
            log.warning("screen reader silence failed: %r", exc)

    def terminate(self) -> None:
        with self._lock:
            out, self._output = self._output, None
        if out is not None and getattr(out, "_client", None) is not None:
            try:
                out.close()
            except OSError as exc:
                log.debug("closing speech dispatcher: %r", exc)


def _to_spd(value: float, low: float, high: float) -> int:
    """Map a multiplier (1.0 = normal) to Speech Dispatcher's -100..100."""
    if value >= 1.0:
        return round(min(100.0, (value - 1.0) / (high - 1.0) * 100))
    return round(max(-100.0, (value - 1.0) / (1.0 - low) * 100))
