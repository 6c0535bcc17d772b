"""Where synthesised PCM goes: a system audio player, or a recorder for tests and benchmarks.

Playback streams raw 16-bit mono PCM into a player process (PipeWire, PulseAudio, ALSA or
SoX ``play``) so the first chunk is heard while the rest is still being synthesised;
stopping kills the player, which silences the sound card at once.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _

#: Players in order of preference; {rate} is filled in. Each reads raw s16le mono on stdin.
PLAYERS: tuple[tuple[str, ...], ...] = (
    ("pw-play", "--rate={rate}", "--channels=1", "--format=s16", "-"),
    ("paplay", "--raw", "--rate={rate}", "--channels=1", "--format=s16le"),
    ("aplay", "-q", "-t", "raw", "-f", "S16_LE", "-r", "{rate}", "-c", "1"),
    ("play", "-q", "-t", "raw", "-r", "{rate}", "-e", "signed", "-b", "16", "-c", "1", "-"),
)


def find_player() -> tuple[str, ...] | None:
    """The first audio player command installed here, or None."""
    for cmd in PLAYERS:
        if shutil.which(cmd[0]):
            return cmd
    return None


class AudioSink(ABC):
    """Receives PCM for one utterance: open, write*, drain (or abort), close."""

    @abstractmethod
    def open(self, sample_rate: int) -> None: ...

    @abstractmethod
    def write(self, chunk: np.ndarray) -> None: ...

    @abstractmethod
    def drain(self, cancel: threading.Event) -> None:
        """Wait until everything written has been heard, or ``cancel`` is set."""

    @abstractmethod
    def abort(self) -> None:
        """Drop what is buffered and fall silent now. Safe from any thread, any time."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what :meth:`open` took."""


class PlayerSink(AudioSink):
    """Streams PCM into an audio player process."""

    def __init__(self, command: tuple[str, ...]) -> None:
        self.command = command
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def open(self, sample_rate: int) -> None:
        args = [a.format(rate=sample_rate) for a in self.command]
        with self._lock:
            self._proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )

    def write(self, chunk: np.ndarray) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        try:
            proc.stdin.write(chunk.astype("<i2").tobytes())
            proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            if proc.poll() not in (None, 0, -9, -15):
                raise BackendUnavailable(
                    # Translators: spoken when the computer's sound output cannot be used.
                    _("The sound output is not working."),
                    detail=f"{self.command[0]} exited with {proc.returncode}",
                ) from None

    def drain(self, cancel: threading.Event) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
        while proc.poll() is None and not cancel.wait(0.01):
            pass
        if cancel.is_set():
            self.abort()
        elif proc.returncode not in (0, None):
            raise BackendUnavailable(
                _("The sound output is not working."),
                detail=f"{self.command[0]} exited with {proc.returncode}",
            )

    def abort(self) -> None:
        with self._lock:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if proc.stdin is not None and not proc.stdin.closed:
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.close()


@dataclass
class RecordedUtterance:
    sample_rate: int
    chunks: list[np.ndarray] = field(default_factory=list)
    first_sample_at: float | None = None  # time.perf_counter() of the first non-empty chunk
    aborted_at: float | None = None
    completed: bool = False

    @property
    def audio(self) -> np.ndarray:
        return np.concatenate(self.chunks) if self.chunks else np.zeros(0, dtype=np.int16)


class RecordingSink(AudioSink):
    """Keeps the audio instead of playing it. With ``realtime``, draining takes as long as
    the audio would play, so interruption behaves as with a sound card."""

    def __init__(self, *, realtime: bool = False) -> None:
        self.realtime = realtime
        self.utterances: list[RecordedUtterance] = []
        self._lock = threading.Lock()
        self._aborted = threading.Event()
        self._started = 0.0

    def open(self, sample_rate: int) -> None:
        with self._lock:
            self.utterances.append(RecordedUtterance(sample_rate))
            self._aborted.clear()
            self._started = time.perf_counter()

    def write(self, chunk: np.ndarray) -> None:
        with self._lock:
            if not self.utterances or self._aborted.is_set():
                return
            cur = self.utterances[-1]
            if chunk.size and cur.first_sample_at is None:
                cur.first_sample_at = time.perf_counter()
            cur.chunks.append(np.asarray(chunk, dtype=np.int16))

    def drain(self, cancel: threading.Event) -> None:
        if self.utterances and self.realtime:
            cur = self.utterances[-1]
            start = cur.first_sample_at or self._started
            end = start + sum(c.size for c in cur.chunks) / max(cur.sample_rate, 1)
            while not cancel.is_set() and not self._aborted.is_set() and time.perf_counter() < end:
                cancel.wait(min(0.005, max(0.0, end - time.perf_counter())))
        if self.utterances and not cancel.is_set() and not self._aborted.is_set():
            self.utterances[-1].completed = True

    def abort(self) -> None:
        with self._lock:
            self._aborted.set()
            if self.utterances and self.utterances[-1].aborted_at is None:
                self.utterances[-1].aborted_at = time.perf_counter()


def default_sink() -> AudioSink:
    """A sink that plays through this computer's audio; raises if there is no player."""
    cmd = find_player()
    if cmd is None:
        raise BackendUnavailable(
            # Translators: spoken when no program to play sound is installed.
            _("No audio player is installed, so speech cannot be played."),
            detail="none of pw-play, paplay, aplay, play found on PATH",
        )
    return PlayerSink(cmd)
