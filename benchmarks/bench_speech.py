"""Speech latency benchmark (issue 6).

For a page whose analysis is cached (read back from its JSON), measures per backend:
- command to first audio sample: from "read this page" (script + queue) until the first
  PCM chunk reaches the audio sink (a recording sink that plays in real time);
- interrupt to silence: from ``SpeechQueue.interrupt()`` until the sink is aborted, and
  until the queue is idle again;
- Piper's real-time factor (synthesis time / audio duration).

Run: .venv/bin/python benchmarks/bench_speech.py [--runs N] [--no-write]
Writes the "## Speech (issue 6)" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from doc_marks import replace_section

from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
)
from panelvox.narration.prefs import NarrationPrefs
from panelvox.narration.script import page_voices, script_page, to_request
from panelvox.speech.audio_sink import RecordingSink
from panelvox.speech.backend import PcmBackend, SpeechRequest
from panelvox.speech.queue import SpeechQueue
from panelvox.speech.voices import load_manifest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Speech (issue 6)"


def cached_page() -> PageAnalysis:
    """A typical page (4 panels, 8 blocks), round-tripped through JSON as the cache does."""
    lines = [
        (BalloonKind.CAPTION, "MEANWHILE, BACK AT THE FARM...", "p1", None),
        (BalloonKind.SPEECH, "WHO ARE YOU, STRANGER? WHAT DO YOU WANT HERE?", "p1", "c1"),
        (BalloonKind.SPEECH, "JUST A FRIEND -- PASSING THROUGH.", "p2", "c2"),
        (BalloonKind.SFX, "KRAKOOM!", "p2", None),
        (BalloonKind.THOUGHT, "HE'S LYING. I CAN TELL.", "p3", "c1"),
        (BalloonKind.SPEECH, "THE STORM IS COMING. YOU'D BETTER LET ME IN.", "p3", "c2"),
        (BalloonKind.SPEECH, "FINE. BUT ONLY UNTIL MORNING!", "p4", "c1"),
        (BalloonKind.CAPTION, "THAT NIGHT, NOBODY SLEPT.", "p4", None),
    ]
    panels = tuple(
        Panel(
            f"p{i}",
            BBox((i - 1) % 2 * 600, (i - 1) // 2 * 900, (i - 1) % 2 * 600 + 580, (i - 1) // 2 * 900 + 880),
            0.95,
            "bench",
            order=i,
        )
        for i in range(1, 5)
    )
    blocks = tuple(
        Balloon(
            f"b{i}", kind, BBox(50, 50 + i * 90, 400, 120 + i * 90), text, 0.9, "bench", panel=pid, order=i
        )
        for i, (kind, text, pid, _c) in enumerate(lines, 1)
    )
    chars = (
        Character("c1", BBox(10, 500, 200, 880), 0.8, "bench", panel="p1", name="Steenie"),
        Character("c2", BBox(300, 500, 500, 880), 0.8, "bench", panel="p2"),
    )
    links = tuple(
        SpeakerLink(f"b{i}", c, 0.8, SpeakerReason.TAIL, "bench")
        for i, (_k, _t, _p, c) in enumerate(lines, 1)
        if c
    )
    page = PageAnalysis(1, 1200, 1800, ReadingDirection.LTR, panels, (), blocks, chars, links)
    return PageAnalysis.from_json(json.loads(json.dumps(page.to_json())))


def first_sample_ms(
    make: Callable[[RecordingSink], PcmBackend], runs: int
) -> tuple[list[float], list[float], list[float]]:
    """(command→first sample, interrupt→sink silent, interrupt→queue idle) in ms per run."""
    page = cached_page()
    prefs = NarrationPrefs()
    manifest = load_manifest()
    first, silent, idle = [], [], []
    sink = RecordingSink(realtime=True)
    backend = make(sink)
    with SpeechQueue([backend]) as queue:
        for _ in range(runs):
            t0 = time.perf_counter()
            utterances = script_page(page, prefs)
            voices = page_voices(utterances, manifest)
            caps = backend.capabilities
            for utt in utterances:
                queue.say(to_request(utt, prefs, caps, manifest, voices), utt.priority)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                cur = sink.utterances[-1] if sink.utterances else None
                if cur is not None and cur.first_sample_at is not None and cur.first_sample_at >= t0:
                    break
                time.sleep(0.0005)
            first.append((sink.utterances[-1].first_sample_at - t0) * 1000)  # type: ignore[operator]
            time.sleep(0.3)  # speaking now: interrupt in the middle of playback
            t1 = time.perf_counter()
            queue.interrupt()
            queue.wait_idle(10)
            t2 = time.perf_counter()
            aborted = sink.utterances[-1].aborted_at
            silent.append(((aborted or t2) - t1) * 1000)
            idle.append((t2 - t1) * 1000)
    return first, silent, idle


def piper_rtf(backend: PcmBackend) -> tuple[float, float]:
    text = " ".join(u.text for u in script_page(cached_page(), NarrationPrefs()))
    t0 = time.perf_counter()
    audio = backend.render(SpeechRequest(text), threading.Event())
    elapsed = time.perf_counter() - t0
    seconds = audio.size / backend.capabilities.sample_rate
    return elapsed / seconds, seconds


def _fmt(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ms (min {min(values):.1f}, max {max(values):.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    rows: list[str] = []
    notes: list[str] = []
    from panelvox.speech.backends.pyttsx3_backend import Pyttsx3Backend

    if Pyttsx3Backend.check_engine():
        f, s, i = first_sample_ms(lambda sink: Pyttsx3Backend(sink), args.runs)
        rows.append(f"| pyttsx3 (espeak-ng) | {_fmt(f)} | ≤ 150 ms | {_fmt(s)} | {_fmt(i)} |")
    else:
        notes.append("pyttsx3/espeak-ng not installed: not measured.")

    from panelvox.speech.backends.piper_backend import PiperBackend

    if PiperBackend.check_engine():
        t0 = time.perf_counter()
        loader = PiperBackend()
        loader.load()
        load_s = time.perf_counter() - t0

        def make_piper(sink: RecordingSink) -> PcmBackend:
            loader.sink = sink
            return loader

        f, s, i = first_sample_ms(make_piper, args.runs)
        rows.append(f"| piper (en_US-joe-medium, loaded) | {_fmt(f)} | ≤ 400 ms | {_fmt(s)} | {_fmt(i)} |")
        rtf, secs = piper_rtf(loader)
        notes.append(
            f"Piper real-time factor: {rtf:.3f} (synthesis time / audio time, whole page, {secs:.1f} s of audio); "
            f"voice load incl. sha256 check: {load_s:.2f} s (once per session)."
        )
    else:
        notes.append("Piper not installed (extra `piper`): not measured.")

    table = [
        "| backend | command → first audio sample (median of runs) | goal | interrupt → sink silent | interrupt → queue idle |",
        "| --- | --- | --- | --- | --- |",
        *rows,
    ]
    body = "\n".join(
        [
            SECTION,
            "",
            f"Measured 2026-11-22 on a 2-core Debian 12 CPU with `benchmarks/bench_speech.py --runs {args.runs}`.",
            "A page of 4 panels and 8 text blocks, its analysis read back from JSON (a cache hit);",
            '"first audio sample" is the first PCM chunk handed to the audio sink (a recording sink',
            "that plays in real time; a sound card's own buffer latency is not included). Interrupt goal ≤ 50 ms.",
            "",
            *table,
            "",
            *(f"- {n}" for n in notes),
            "",
        ]
    )
    print(body)
    if not args.no_write:
        replace_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
