"""Japanese voices (issue 31): how soon a Japanese line is heard, and how fast it is made.

For each Japanese voice installed (extra ``ja``: Kokoro, Open JTalk), with espeak-ng as the
interface's voice:
- first audio: from ``SpeechQueue.say(<line>)`` (through the language routing, espeak-ng
  the main voice) until the line's first sample reaches the Japanese voice's sink (a
  recording sink that plays in real time), median over the lines;
- real-time factor: synthesis time / audio time over all lines, the voice loaded;
- the voice's load (first use in a process, model joined and checked).

Run: .venv/bin/python benchmarks/bench_japanese_voice.py [--no-write]
Writes the "## Japanese voices (issue 31)" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

from doc_marks import replace_section

from panelvox.speech.audio_sink import RecordingSink
from panelvox.speech.backend import PcmBackend, SpeechRequest
from panelvox.speech.backends.pyttsx3_backend import Pyttsx3Backend
from panelvox.speech.language_voices import LanguageVoices
from panelvox.speech.queue import SpeechQueue

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Japanese voices (issue 31)"
#: short manga lines of the kinds a page holds (made up here; no book's text)
LINES = (
    "そんな借金なんて!",
    "レーネさん、大丈夫?",
    "待って!",
    "今日はもう帰ろう。",
    "あの人、誰だったんだろう…",
    "お前には関係ない。",
    "ドン",
    "本当にありがとうございました。また明日。",
)


def _japanese_voices() -> list[tuple[str, type[PcmBackend]]]:
    from panelvox.speech.backends.kokoro_backend import KokoroJapaneseBackend
    from panelvox.speech.backends.openjtalk_backend import OpenJTalkBackend

    return [
        (label, cls)
        for label, cls in (
            ("kokoro-ja (Kokoro-82M int8, jf_alpha)", KokoroJapaneseBackend),
            ("openjtalk (HTS voice Mei)", OpenJTalkBackend),
        )
        if cls.check_engine()
    ]


def first_audio_ms(voice: PcmBackend) -> list[float]:
    """say → first sample of the Japanese run, per line (the voice already loaded)."""
    main_sink, ja_sink = RecordingSink(realtime=True), RecordingSink(realtime=True)
    voice.sink = ja_sink
    out: list[float] = []
    with SpeechQueue(
        [Pyttsx3Backend(main_sink)], languages=LanguageVoices({"ja": [voice]}, interface="en")
    ) as queue:
        for line in LINES:
            before = len(ja_sink.utterances)
            t0 = time.perf_counter()
            queue.say(SpeechRequest(line, language="ja"))
            queue.wait_idle(60)
            first = ja_sink.utterances[before].first_sample_at
            assert first is not None
            out.append((first - t0) * 1000)
    voice.sink = None
    return out


def rtf(voice: PcmBackend) -> tuple[float, float]:
    rate = voice.capabilities.sample_rate
    t0 = time.perf_counter()
    seconds = sum(voice.render(SpeechRequest(line), threading.Event()).size / rate for line in LINES)
    return (time.perf_counter() - t0) / seconds, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    for label, cls in _japanese_voices():
        voice = cls()
        t0 = time.perf_counter()
        voice.render(SpeechRequest("あ"))  # load: model, dictionary, session
        load_s = time.perf_counter() - t0
        firsts = first_audio_ms(voice)
        factor, seconds = rtf(voice)
        rows.append(
            f"| {label} | {statistics.median(firsts):.0f} ms (min {min(firsts):.0f}, max {max(firsts):.0f}) "
            f"| {factor:.2f} ({seconds:.1f} s of audio) | {load_s:.2f} s |"
        )
        voice.terminate()
        print(rows[-1], flush=True)
    body = "\n".join(
        [
            SECTION,
            "",
            f"Measured {time.strftime('%Y-%m-%d')} on a 2-core Debian 12 CPU shared with other work "
            f"(load average {os.getloadavg()[0]:.1f} at the end), with",
            f"`benchmarks/bench_japanese_voice.py`: {len(LINES)} short Japanese lines "
            f"({min(map(len, LINES))} to {max(map(len, LINES))} characters),",
            "each queued alone through the language routing (espeak-ng the main voice); first audio is",
            "from `say()` to the line's first sample at a sink that plays in real time.",
            "",
            "| Japanese voice | say → first Japanese audio (median) | real-time factor | load (once) |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
        ]
    )
    print(body)
    if not args.no_write:
        replace_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
