"""The accessible-output2 path against a real, headless Speech Dispatcher.

Speech Dispatcher runs in a private HOME/XDG dirs with libao's null driver, so nothing
is heard and the user's own speech server is never touched. Skipped only where
speech-dispatcher or the ``screenreader`` extra is absent.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from panelvox.speech.backend import SpeechRequest
from panelvox.speech.backends.screenreader_backend import ScreenReaderBackend
from panelvox.speech.queue import SpeechQueue

pytest.importorskip("accessible_output2")
pytest.importorskip("speechd")
pytestmark = pytest.mark.skipif(
    shutil.which("speech-dispatcher") is None
    or not Path("/usr/lib/speech-dispatcher-modules/sd_espeak-ng").exists(),
    reason="speech-dispatcher with espeak-ng is not installed",
)

SPEECHD_CONF = """\
AudioOutputMethod "libao"
AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"
DefaultModule espeak-ng
LogLevel 3
"""


@pytest.fixture
def headless_speechd(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # A short path: the Unix socket lives under XDG_RUNTIME_DIR (108-byte limit).
    root = Path(tempfile.mkdtemp(prefix="pv-spd-"))
    (root / "config" / "speech-dispatcher").mkdir(parents=True)
    (root / "config" / "speech-dispatcher" / "speechd.conf").write_text(SPEECHD_CONF, encoding="utf-8")
    (root / ".libao").write_text("default_driver=null\n", encoding="utf-8")
    (root / "run").mkdir(mode=0o700)
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root / "run"))
    monkeypatch.delenv("SPEECHD_ADDRESS", raising=False)
    yield root
    pidfile = root / "run" / "speech-dispatcher" / "pid" / "speech-dispatcher.pid"
    if pidfile.exists():
        pid = int(pidfile.read_text().strip() or 0)
        if pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)  # the server this test autospawned, by its id
    shutil.rmtree(root, ignore_errors=True)


def test_speaks_through_speech_dispatcher_and_reports_done(headless_speechd: Path) -> None:
    assert ScreenReaderBackend.check()
    backend = ScreenReaderBackend()
    try:
        assert backend.capabilities.reports_done
        assert backend.speak(
            SpeechRequest("Hello from Panelvox.", voice="en+f2", rate=1.3), threading.Event()
        )
    finally:
        backend.terminate()
    log = headless_speechd / "run" / "speech-dispatcher" / "log" / "speech-dispatcher.log"
    assert log.exists()  # the private server really ran


def test_queue_interrupts_speech_dispatcher(headless_speechd: Path) -> None:
    backend = ScreenReaderBackend()
    done: list[bool] = []
    with SpeechQueue([backend]) as q:
        q.say("One.", on_done=lambda _r, ok: done.append(ok))
        q.say("Two.", on_done=lambda _r, ok: done.append(ok))
        assert q.wait_idle(20)
        q.say("A long text. " * 20, on_done=lambda _r, ok: done.append(ok))
        time.sleep(0.05)
        q.interrupt()
        assert q.wait_idle(5)
    assert done[:2] == [True, True]
    assert len(done) == 3


def test_japanese_lettering_leaves_espeak_ng_for_a_japanese_voice(headless_speechd: Path) -> None:
    """Speech Dispatcher's espeak-ng spells kanji ("Chinese letter"): the screen reader path
    keeps the narration's words and gives the Japanese run to a Japanese voice."""
    from panelvox.speech.backends.spy_backend import SpyBackend
    from panelvox.speech.language_voices import LanguageVoices

    backend = ScreenReaderBackend()
    japanese = SpyBackend(languages=("ja",))
    with SpeechQueue([backend], languages=LanguageVoices({"ja": [japanese]}, interface="en")) as q:
        assert not backend.capabilities.speaks("ja") and backend.capabilities.speaks("en")
        q.say(SpeechRequest("Character 1 says: そんな借金なんて!", language="ja"))
        assert q.wait_idle(20)
    assert japanese.texts() == ["そんな借金なんて!"]
