"""How long the screen reader takes to say a text: say all's pace through a screen reader.

A screen reader tells an application nothing of its speech: when say all hands it one stop
after another, Panelvox moves on after the time the screen reader needs at the user's rate.
Orca queues what it is handed (its Speech Dispatcher output never cuts one message with the
next; only a key press or a new window does), so an estimate a little short only lets the
next stop wait in Orca's queue, never cuts a word; one too long leaves a pause. The rate is
read from Orca's own settings, where they are; other screen readers get Orca's default.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: characters a second at Orca's default rate (50, Speech Dispatcher's 0): espeak-ng at its
#: default 175 words a minute says 89 characters of a comic line in 5.9 s (15.1 a second)
CHARS_PER_SECOND = 15.0
#: the gap between two stops the screen reader leaves itself (its own end-of-message pause)
_GAP_S = 0.25
#: Orca's speech rate where its settings say nothing (0..100)
ORCA_DEFAULT_RATE = 50


@dataclass(frozen=True, slots=True)
class ScreenReaderPace:
    """Seconds the screen reader needs for a text, at ``chars_per_second``."""

    chars_per_second: float = CHARS_PER_SECOND

    def seconds(self, text: str) -> float:
        return _GAP_S + len(text.strip()) / self.chars_per_second

    @classmethod
    def of_orca(cls, settings_dir: Path | None = None) -> ScreenReaderPace:
        """The pace at the rate of the user's Orca settings (its default where they say nothing)."""
        return cls(CHARS_PER_SECOND * rate_factor(orca_rate(settings_dir)))


def rate_factor(orca_rate: float) -> float:
    """How much faster than at Orca's default a rate of ``orca_rate`` (0..100) speaks.

    Orca hands Speech Dispatcher ``(rate - 50) * 2``; its espeak-ng module maps -100, 0 and
    100 to 80, 170 and 449 words a minute, linearly on each side."""
    spd = max(-100.0, min(100.0, (orca_rate - 50.0) * 2.0))
    wpm = 170.0 + spd / 100.0 * ((449.0 - 170.0) if spd >= 0 else (170.0 - 80.0))
    return wpm / 170.0


def orca_rate(settings_dir: Path | None = None) -> float:
    """The default voice's rate in Orca's settings (``user-settings.conf``), 0..100."""
    if settings_dir is None:
        data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        settings_dir = Path(data) / "orca"
    path = settings_dir / "user-settings.conf"
    try:
        prefs = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ORCA_DEFAULT_RATE
    except (OSError, ValueError) as exc:
        log.info("cannot read Orca's settings at %s: %r", path, exc)
        return ORCA_DEFAULT_RATE
    general = prefs.get("general") if isinstance(prefs, dict) else None
    general = general if isinstance(general, dict) else {}
    profiles = prefs.get("profiles") if isinstance(prefs, dict) else None
    profiles = profiles if isinstance(profiles, dict) else {}
    starting = general.get("startingProfile")
    name = starting[1] if isinstance(starting, list) and len(starting) == 2 else "default"
    for source in (profiles.get(name), general):  # a profile's voices, else the general ones
        voices = source.get("voices") if isinstance(source, dict) else None
        default = voices.get("default") if isinstance(voices, dict) else None
        rate = default.get("rate") if isinstance(default, dict) else None
        if isinstance(rate, int | float):
            return float(rate)
    return ORCA_DEFAULT_RATE
