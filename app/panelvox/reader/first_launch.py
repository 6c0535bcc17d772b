"""The first launch speaks: one welcome sentence, once per user.

With a screen reader running it is handed to the screen reader, like every message (said in
its voice, after it has read the window, never over it); otherwise it goes through the
reader's speech queue (the bundled voice, Piper then espeak-ng). A marker file in the state
folder records that the welcome was heard to the end; if it was cut off (the user pressed a
key, the voice failed) it is said again on the next launch. A screen reader reports no end:
handed to it, the welcome counts as heard.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from panelvox import paths
from panelvox.i18n import _
from panelvox.speech.backend import Priority, SpeechRequest
from panelvox.speech.queue import SpeechQueue

log = logging.getLogger(__name__)

MARKER_NAME = "welcomed"


def marker_path(state: Path | None = None) -> Path:
    """The file that records the welcome was heard."""
    return (state if state is not None else paths.state_dir()) / MARKER_NAME


def welcome_text() -> str:
    # Translators: the one sentence spoken the very first time Panelvox starts.
    return _("Welcome to Panelvox. Press F1 to hear the keys.")


def is_first_launch(marker: Path | None = None) -> bool:
    return not (marker or marker_path()).exists()


def welcome_once(
    speech: SpeechQueue,
    marker: Path | None = None,
    *,
    priority: Priority = Priority.NOW,
    hand_over: Callable[[str], bool] | None = None,
) -> bool:
    """Say the welcome if it was never heard; return True when it was queued.

    ``priority`` NORMAL lets it follow what was just queued (a book's title) without cutting it.
    ``hand_over`` gives it to a running screen reader (False: none takes it, Panelvox says it).

    The marker is written from the speech thread once the sentence has been heard; a
    read-only home only means the welcome comes again next time.
    """
    target = marker or marker_path()
    if target.exists():
        return False

    def done(_request: SpeechRequest | None, heard: bool) -> None:
        if not heard:
            return
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("1\n", encoding="utf-8")
        except OSError as exc:
            log.warning("cannot record the first-launch welcome at %s: %r", target, exc)

    if hand_over is not None and hand_over(welcome_text()):
        done(None, True)
        return True
    speech.say(SpeechRequest(welcome_text(), tag="welcome"), priority, done)
    return True
