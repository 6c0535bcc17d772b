"""An audiobook: the whole book as one audio file with a chapter per page, the chapters both
inside the file (Vorbis ``CHAPTERnnn`` comments, for an OGG) and in a CUE sheet beside it."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from panelvox.export.audio_export import Chapter, ExportError, write_cue, write_wav
from panelvox.export.book_content import BookMeta, PageContent
from panelvox.export.package import clear_partials, partial_path, remove
from panelvox.export.page_audio import PageRenderer, heading, page_chapter_title
from panelvox.i18n import _


def chapter_comments(chapters: Sequence[Chapter], sample_rate: int, title: str) -> list[str]:
    """Vorbis comments that players read as chapters (the ``CHAPTERxxx`` convention)."""
    out = [f"TITLE={title}"]
    for i, ch in enumerate(chapters, 1):
        ms = round(ch.start_sample * 1000 / sample_rate)
        hours, rest = divmod(ms, 3_600_000)
        minutes, rest = divmod(rest, 60_000)
        seconds, millis = divmod(rest, 1000)
        out += [
            f"CHAPTER{i:03d}={hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}",
            f"CHAPTER{i:03d}NAME={ch.title}",
        ]
    return out


def write_audiobook(
    pages: Iterable[PageContent], meta: BookMeta, out: Path, renderer: PageRenderer
) -> list[Path]:
    """The book at ``out`` (``.ogg`` with SoX, else ``.wav``) and its ``.cue``; returns both."""
    chapters: list[Chapter] = []
    chunks: list[np.ndarray] = []
    start = 0
    for page in pages:
        audio = renderer.render([heading(page.overview), *(line.utterance for line in page.lines)])
        chapters.append(Chapter(page_chapter_title(page.number), start))
        chunks.append(audio.samples)
        start += audio.samples.size
    samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
    rate = renderer.sample_rate
    cue = out.with_suffix(".cue")
    clear_partials(out)
    staging = partial_path(out)
    try:
        if out.suffix.lower() == ".ogg":
            _write_ogg(staging, samples, rate, chapter_comments(chapters, rate, meta.title))
        else:
            write_wav(staging, samples, rate)
        write_cue(cue, out.name, chapters, rate, title=meta.title)
        staging.replace(out)  # last: the audio file's presence says the book is done
    finally:
        remove(staging)
    return [out, cue]


def _write_ogg(path: Path, samples: np.ndarray, rate: int, comments: list[str]) -> None:
    sox = shutil.which("sox")
    if sox is None:
        raise ExportError(
            _("OGG export needs SoX; install it or write WAV instead."), detail="sox not on PATH"
        )
    with tempfile.TemporaryDirectory(prefix="panelvox-") as tmp:
        wav = write_wav(Path(tmp) / "book.wav", samples, rate)
        comment_file = Path(tmp) / "comments.txt"
        comment_file.write_text("\n".join(comments) + "\n", encoding="utf-8")
        proc = subprocess.run(
            [sox, str(wav), "--comment-file", str(comment_file), "-t", "ogg", "-C", "4", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise ExportError(_("Could not write the audio file {path}.").format(path=path), detail=proc.stderr)
