"""``panelvox narrate``: print the script of pages, speak it, or write it as audio."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import numpy as np

from panelvox.cli.common import check_range, parse_pages
from panelvox.export.audio_export import Chapter, write_audio, write_cue
from panelvox.export.page_audio import PageRenderer, heading, page_chapter_title
from panelvox.export.transcript import transcript_lines
from panelvox.i18n import _
from panelvox.model import ReadingDirection
from panelvox.narration.overview import page_overview
from panelvox.narration.prefs import NarrationPrefs, UtteranceKind, Verbosity, load_prefs
from panelvox.narration.script import Utterance, page_voices, script_page, to_request
from panelvox.pages.opening import open_book_pages
from panelvox.speech.voices import VoiceManifest, load_manifest


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Translators: help for `panelvox narrate`.
    p = sub.add_parser("narrate", help=_("print, speak or record what is on the pages"))
    p.add_argument("book", type=Path)
    which = p.add_mutually_exclusive_group()
    # Translators: help for --page of `panelvox narrate`.
    which.add_argument("--page", type=int, metavar="N", help=_("only page N (from 1)"))
    # Translators: help for --pages of `panelvox narrate`.
    which.add_argument("--pages", metavar="A-B", help=_("only pages A to B"))
    p.add_argument("--speak", action="store_true", help=_("read the pages aloud"))
    p.add_argument("--text", action="store_true", help=_("print the script (the default)"))
    dest = p.add_mutually_exclusive_group()
    # Translators: help for --wav of `panelvox narrate`.
    dest.add_argument("--wav", type=Path, metavar="FILE", help=_("write one audio file (.wav or .ogg)"))
    # Translators: help for --audio of `panelvox narrate`.
    dest.add_argument("--audio", type=Path, metavar="DIR", help=_("write one audio file per page into DIR"))
    p.add_argument("--format", choices=["wav", "ogg"], default="wav", help=_("file type for --audio"))
    # Translators: help for --backend of `panelvox narrate`.
    p.add_argument(
        "--backend", metavar="NAME", help=_("speech output: piper, pyttsx3, screenreader, silence")
    )
    p.add_argument(
        "--verbosity", choices=["terse", "normal", "full"], help=_("how much is said around the text")
    )
    p.add_argument("--no-sfx", action="store_true", help=_("skip sound effects"))
    p.add_argument(
        "--read-text-pages",
        action="store_true",
        help=_("read pages of small running text (credits, letters) in full, not only their size"),
    )
    p.add_argument("--direction", choices=["ltr", "rtl", "ttb-rtl"], help=_("override reading direction"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_narrate(
        NarrateOptions(
            book=args.book,
            pages=parse_pages(args.page, args.pages),
            speak=args.speak,
            text=args.text,
            wav=args.wav,
            audio_dir=args.audio,
            audio_format=args.format,
            backend=args.backend,
            direction=ReadingDirection(args.direction) if args.direction else None,
            verbosity=Verbosity(args.verbosity) if args.verbosity else None,
            skip_sfx=args.no_sfx,
            read_dense=args.read_text_pages,
        )
    )


@dataclass(frozen=True, slots=True)
class NarrateOptions:
    book: Path
    pages: tuple[int, int] | None = None  # 1-based inclusive range; None: every page
    speak: bool = False
    text: bool = False
    wav: Path | None = None  # one file for the pages read (chapters in a .cue beside it)
    audio_dir: Path | None = None  # one file per page
    audio_format: str = "wav"
    backend: str | None = None
    direction: ReadingDirection | None = None
    verbosity: Verbosity | None = None
    skip_sfx: bool = False
    read_dense: bool = False  # running text read in full (see analysis/text_stage.dense_text)
    progress: bool | None = None  # None: when stderr is a terminal


def run_narrate(opts: NarrateOptions, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The whole command; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    from panelvox.analysis.text_stage import is_dense_notice  # with the pipeline, not at start

    prefs = _prefs(opts)
    print_text = opts.text or not (opts.speak or opts.wav or opts.audio_dir)
    with open_book_pages(opts.book, direction=opts.direction, read_dense=opts.read_dense) as pages:
        book = pages.book
        first, last = opts.pages or (1, book.page_count)
        check_range(first, last, book.page_count)
        progress = _Progress(err, last - first + 1, opts.progress)
        manifest = load_manifest()
        audio = (
            _AudioWriter(opts, prefs, manifest, err, title=book.title)
            if (opts.wav or opts.audio_dir)
            else None
        )
        speaker = _Speaker(opts, prefs, manifest, err) if opts.speak else None
        text_pages = 0  # pages of running text announced, not read
        # A script or a recording is written whole: its pages are learned first, so each page's
        # persons and names are those of all the pages written (as the exports have them).
        # Read aloud, the first page is said without waiting for the others.
        learn_first = speaker is None
        if learn_first:
            for number in range(first, last + 1):
                progress.step(number)
                pages.learn(number)
        try:
            for number in range(first, last + 1):
                if not learn_first:
                    progress.step(number)
                analysis = pages.read_or_notice(number)
                text_pages += any(is_dense_notice(n) for n in analysis.notices)
                utterances = script_page(analysis, prefs)
                overview = page_overview(analysis)
                if print_text:
                    progress.clear()
                    out.write("\n".join(transcript_lines(overview, utterances)) + "\n")
                    out.flush()
                spoken = [heading(overview), *utterances]
                if audio is not None:
                    audio.add_page(number, spoken)
                if speaker is not None:
                    speaker.say_page(spoken)
        finally:
            if speaker is not None:
                speaker.finish()
            progress.clear()
        if text_pages:
            # Translators: printed once after `narrate` announced pages of text without reading them.
            err.write(_("Pages of text were announced, not read: --read-text-pages reads them.") + "\n")
        if audio is not None:
            for path in audio.finish():
                # Translators: printed after writing an audio file; {path} is its name.
                err.write(_("Wrote {path}").format(path=path) + "\n")
    return 0


def _prefs(opts: NarrateOptions) -> NarrationPrefs:
    prefs = load_prefs()
    if opts.verbosity is not None:
        prefs = replace(prefs, verbosity=opts.verbosity)
    if opts.skip_sfx:
        prefs = replace(prefs, kinds=prefs.kinds - {UtteranceKind.SFX})
    return prefs


class _AudioWriter:
    """Renders pages through a PCM engine into one file per page or one per book."""

    def __init__(
        self, opts: NarrateOptions, prefs: NarrationPrefs, manifest: VoiceManifest, err: TextIO, *, title: str
    ) -> None:
        self.renderer = PageRenderer(
            prefs, backend=opts.backend, manifest=manifest, on_missing=_tell_missing_voice(err)
        )
        self.opts, self.title = opts, title
        self.pages: list[tuple[int, np.ndarray]] = []
        self.written: list[Path] = []

    def add_page(self, number: int, utterances: Sequence[Utterance]) -> None:
        audio = self.renderer.render(utterances).samples
        if self.opts.audio_dir is not None:
            name = f"page-{number:03d}.{self.opts.audio_format}"
            self.written.append(write_audio(self.opts.audio_dir / name, audio, self.renderer.sample_rate))
        if self.opts.wav is not None:
            self.pages.append((number, audio))

    def finish(self) -> list[Path]:
        if self.opts.wav is not None and self.pages:
            rate = self.renderer.sample_rate
            chapters, start = [], 0
            for number, audio in self.pages:
                chapters.append(Chapter(page_chapter_title(number), start))
                start += audio.size
            path = write_audio(self.opts.wav, np.concatenate([a for _n, a in self.pages]), rate)
            self.written.append(path)
            if len(self.pages) > 1:
                cue = path.with_suffix(".cue")
                self.written.append(write_cue(cue, path.name, chapters, rate, title=self.title))
        self.renderer.close()
        return self.written


class _Speaker:
    """Speaks pages through the queue and the fallback chain."""

    def __init__(
        self, opts: NarrateOptions, prefs: NarrationPrefs, manifest: VoiceManifest, err: TextIO
    ) -> None:
        from panelvox.speech.discovery import build_chain, language_voices
        from panelvox.speech.queue import SpeechQueue

        def fallback(old: str, new: str, reason: str) -> None:
            # Translators: printed when a voice fails and the next one takes over.
            err.write(_("{reason} Using {new} instead.").format(reason=reason, new=new) + "\n")

        self.queue = SpeechQueue(
            build_chain(opts.backend or prefs.backend),
            on_fallback=fallback,
            languages=language_voices(on_missing=_tell_missing_voice(err)),
        )
        self.prefs, self.manifest = prefs, manifest
        if self.queue.backend.name == "silence":
            # Translators: printed when no voice at all can be used.
            err.write(_("No speech output works here; nothing will be heard.") + "\n")

    def say_page(self, utterances: Sequence[Utterance]) -> None:
        voices = page_voices(utterances, self.manifest)
        for utt in utterances:
            caps = self.queue.backend.capabilities
            self.queue.say(to_request(utt, self.prefs, caps, self.manifest, voices), utt.priority)
        self.queue.wait_idle()

    def finish(self) -> None:
        self.queue.close()


def _tell_missing_voice(err: TextIO) -> Callable[[str, str], None]:
    """Print the once-only "No Japanese voice is installed; …" where it is also said."""

    def tell(_language: str, message: str) -> None:
        err.write(message + "\n")

    return tell


class _Progress:
    """A one-line progress bar on stderr, only on a terminal (screen readers re-read it)."""

    def __init__(self, stream: TextIO, total: int, enabled: bool | None) -> None:
        self.stream, self.total = stream, total
        self.enabled = (stream.isatty() and total > 1) if enabled is None else enabled
        self.done = 0
        self.shown = False

    def step(self, page: int) -> None:
        if not self.enabled:
            return
        width = 20
        filled = round(width * self.done / max(self.total, 1))
        # Translators: the progress bar of a long job; {page} is the page being read.
        label = _("Reading page {page}").format(page=page)
        self.stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}")
        self.stream.flush()
        self.done += 1
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
