"""Audio files for offline listening: WAV (always), OGG Vorbis when SoX is installed,
and a CUE sheet so a book rendered as one file has a chapter per page."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from panelvox.errors import PanelvoxError
from panelvox.i18n import _


class ExportError(PanelvoxError):
    """Audio could not be written."""


@dataclass(frozen=True, slots=True)
class Chapter:
    title: str
    start_sample: int


def write_wav(path: Path, audio: np.ndarray, sample_rate: int) -> Path:
    """Write 16-bit mono PCM as a WAV file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with wave.open(str(path), "wb") as wf:
            wf.setnchannels(1)
            wf.setsampwidth(2)
            wf.setframerate(sample_rate)
            wf.writeframes(np.asarray(audio, dtype="<i2").tobytes())
    except OSError as exc:
        raise ExportError(
            # Translators: spoken when an audio file cannot be written; {path} is the file.
            _("Could not write the audio file {path}.").format(path=path),
            detail=repr(exc),
        ) from exc
    return path


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A mono 16-bit WAV as (samples, sample rate)."""
    with wave.open(str(path), "rb") as wf:
        if wf.getsampwidth() != 2 or wf.getnchannels() != 1:
            raise ValueError(f"{path}: not 16-bit mono")
        return np.frombuffer(wf.readframes(wf.getnframes()), dtype="<i2"), wf.getframerate()


def write_cue(
    path: Path, audio_name: str, chapters: Sequence[Chapter], sample_rate: int, *, title: str
) -> Path:
    """A CUE sheet with one track (chapter) per entry, for players that show chapters."""
    kind = "WAVE" if audio_name.lower().endswith(".wav") else "OGG"
    lines = [f'TITLE "{_cue_text(title)}"', f'FILE "{_cue_text(audio_name)}" {kind}']
    for i, ch in enumerate(chapters, 1):
        frames = round(ch.start_sample / sample_rate * 75)  # CUE time is mm:ss:ff at 75 frames/s
        minutes, rest = divmod(frames, 75 * 60)
        seconds, ff = divmod(rest, 75)
        lines += [
            f"  TRACK {i:02d} AUDIO",
            f'    TITLE "{_cue_text(ch.title)}"',
            f"    INDEX 01 {minutes:02d}:{seconds:02d}:{ff:02d}",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cue_text(text: str) -> str:
    return text.replace('"', "'")


def write_audio(path: Path, audio: np.ndarray, sample_rate: int) -> Path:
    """Write ``audio`` as WAV or, for a ``.ogg`` path, as OGG Vorbis through SoX."""
    if path.suffix.lower() != ".ogg":
        return write_wav(path, audio, sample_rate)
    sox = shutil.which("sox")
    if sox is None:
        raise ExportError(
            # Translators: spoken when OGG export needs a program that is not installed.
            _("OGG export needs SoX; install it or write WAV instead."),
            detail="sox not on PATH",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="panelvox-") as tmp:
        wav = write_wav(Path(tmp) / "audio.wav", audio, sample_rate)
        proc = subprocess.run(
            [sox, str(wav), "-C", "4", str(path)], capture_output=True, text=True, check=False
        )
    if proc.returncode != 0:
        raise ExportError(_("Could not write the audio file {path}.").format(path=path), detail=proc.stderr)
    return path
