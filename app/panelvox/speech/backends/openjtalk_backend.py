"""A light Japanese voice: Open JTalk's HTS voice "Mei" from ``pyopenjtalk-plus`` (extra
``ja``; the package carries its dictionary and the voice, so nothing is fetched).

Less natural than Kokoro but about twenty times faster: the Japanese voice that remains
when Kokoro cannot load, and the quicker one on a slow computer.
"""

from __future__ import annotations

import importlib.util
import math
from types import ModuleType

import numpy as np

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.backend import Capabilities, CheckResult, ChunkedPcmBackend, SpeechRequest, Voice
from panelvox.speech.language_voices import install_hint

SAMPLE_RATE = 48000


class OpenJTalkBackend(ChunkedPcmBackend):
    """Open JTalk with the Mei voice; pitch is shifted in half tones."""

    name = "openjtalk"
    # Translators: description of the light Japanese voice output.
    description = _("Open JTalk Japanese voice (light; reads Japanese lettering)")

    @classmethod
    def check_engine(cls) -> CheckResult:
        if importlib.util.find_spec("pyopenjtalk") is None:
            return CheckResult(
                False, _("The Japanese voice is not installed ({how}).").format(how=install_hint("ja"))
            )
        return CheckResult(True)

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            can_stream=False,
            writes_files=True,
            can_tone=True,
            voices=(Voice("ja+mei", "Mei", "ja", "female"),),
            rate_range=(0.5, 2.0),
            pitch_range=(0.6, 1.6),
            volume_range=(0.0, 1.0),
            sample_rate=SAMPLE_RATE,
            languages=("ja",),
        )

    def _engine(self) -> ModuleType:
        try:
            import pyopenjtalk
        except ImportError as exc:
            raise BackendUnavailable(
                _("The Japanese voice is not installed ({how}).").format(how=install_hint("ja")),
                detail=repr(exc),
            ) from exc
        return pyopenjtalk

    def pieces(self, request: SpeechRequest) -> list[str]:
        self._engine()
        # The whole line is one piece: this voice does not stream (can_stream=False).
        return [request.text] if request.text.strip() else []

    def samples(self, piece: str, request: SpeechRequest) -> np.ndarray:
        with self._lock:  # one HTS engine per process
            audio, rate = self._engine().tts(
                piece, speed=request.rate, half_tone=12 * math.log2(max(request.pitch, 0.1))
            )
        if int(rate) != SAMPLE_RATE:
            raise RuntimeError(f"Open JTalk rendered {rate} Hz, not {SAMPLE_RATE}")
        # tts() gives float samples already on the 16-bit scale
        return np.clip(np.asarray(audio) * request.volume, -32768, 32767).astype(np.int16)
