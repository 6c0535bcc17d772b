"""``panelvox doctor``: what this machine offers Panelvox, in plain spoken sentences.

It reports the graphics card, whether onnxruntime (the OCR) and llama.cpp (the optional
describer) can use CUDA, whether a screen reader runs, which voices work, and whether the
models are present and intact. Each finding is one short sentence, so ``--speak`` can read
them aloud to someone who cannot see the terminal.

Each probe is a small function of plain inputs, so tests can give it any machine;
:func:`gather` runs them on this one.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from panelvox import __version__, paths
from panelvox.errors import PanelvoxError
from panelvox.i18n import _

log = logging.getLogger(__name__)

_CUDA = "CUDAExecutionProvider"
#: backends that never read aloud to a user (tests, export)
_HIDDEN_BACKENDS = frozenset({"spy", "file"})


class Topic(Enum):
    VERSION = "version"
    GPU = "gpu"
    PRIVACY = "privacy"
    OCR_DEVICE = "ocr_device"
    LLM_DEVICE = "llm_device"
    SCREEN_READER = "screen_reader"
    VOICE = "voice"
    OCR_MODELS = "ocr_models"
    VLM_MODELS = "vlm_models"
    SAMPLE_BOOK = "sample_book"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found, as one sentence; ``ok`` False marks a problem to fix."""

    topic: Topic
    ok: bool
    sentence: str


@dataclass(frozen=True, slots=True)
class VoiceStatus:
    name: str
    description: str
    available: bool
    reason: str = ""


# -- the probes, pure --------------------------------------------------------------------
def version_finding(version: str = __version__, frozen: bool = False) -> Finding:
    if frozen:
        # Translators: first sentence of `panelvox doctor` in the installed program.
        text = _("This is Panelvox {version}, the installed program.").format(version=version)
    else:
        # Translators: first sentence of `panelvox doctor` when run from Python.
        text = _("This is Panelvox {version}, run from Python.").format(version=version)
    return Finding(Topic.VERSION, True, text)


def gpu_finding(gpus: Sequence[str]) -> Finding:
    if not gpus:
        # Translators: `panelvox doctor` found no NVIDIA graphics card.
        return Finding(Topic.GPU, True, _("No NVIDIA graphics card was found; Panelvox uses the processor."))
    # Translators: `panelvox doctor` found graphics cards; {names} lists them.
    return Finding(Topic.GPU, True, _("Graphics card found: {names}.").format(names=", ".join(gpus)))


def telemetry_finding(value: str | None) -> Finding:
    """onnxruntime (the OCR, Piper) sends Microsoft telemetry unless
    ``ORT_DISABLE_TELEMETRY=1`` is set before it starts; Panelvox sets it in every process."""
    if value == "1":
        # Translators: `panelvox doctor`: onnxruntime's telemetry to Microsoft is switched off.
        return Finding(Topic.PRIVACY, True, _("Telemetry is off; Panelvox sends nothing over the network."))
    return Finding(
        Topic.PRIVACY,
        False,
        # Translators: `panelvox doctor`: someone set ORT_DISABLE_TELEMETRY to another value.
        _("Telemetry may be on: ORT_DISABLE_TELEMETRY is set to {value}, not 1.").format(
            value=value or "nothing"
        ),
    )


def ocr_device_finding(providers: Sequence[str] | None, gpus: Sequence[str]) -> Finding:
    if providers is None:
        # Translators: `panelvox doctor`: onnxruntime is missing.
        return Finding(Topic.OCR_DEVICE, False, _("onnxruntime is not installed, so text cannot be read."))
    if _CUDA in providers:
        # Translators: `panelvox doctor`: the OCR can run on the graphics card.
        return Finding(Topic.OCR_DEVICE, True, _("The text reader can use the graphics card through CUDA."))
    if gpus:
        return Finding(
            Topic.OCR_DEVICE,
            True,
            # Translators: `panelvox doctor`: a GPU exists but onnxruntime has no CUDA.
            _("The text reader runs on the processor; install the GPU build to use the graphics card."),
        )
    # Translators: `panelvox doctor`: the OCR runs on the CPU.
    return Finding(Topic.OCR_DEVICE, True, _("The text reader runs on the processor."))


def llm_device_finding(installed: bool, gpu_offload: bool | None) -> Finding:
    if not installed:
        return Finding(
            Topic.LLM_DEVICE,
            True,
            # Translators: `panelvox doctor`: the optional describer (llama.cpp) is not installed.
            _("The picture describer is not installed; it is optional."),
        )
    if gpu_offload:
        # Translators: `panelvox doctor`: llama.cpp was built with CUDA.
        return Finding(Topic.LLM_DEVICE, True, _("The picture describer can use the graphics card."))
    # Translators: `panelvox doctor`: llama.cpp runs on the CPU only.
    return Finding(Topic.LLM_DEVICE, True, _("The picture describer runs on the processor."))


def screen_reader_finding(running: bool) -> Finding:
    if running:
        # Translators: `panelvox doctor`: a screen reader runs.
        return Finding(
            Topic.SCREEN_READER, True, _("A screen reader is running; Panelvox speaks through it.")
        )
    # Translators: `panelvox doctor`: no screen reader runs.
    return Finding(Topic.SCREEN_READER, True, _("No screen reader is running; Panelvox uses its own voice."))


def voice_findings(voices: Sequence[VoiceStatus], *, screen_reader_running: bool = False) -> list[Finding]:
    shown = [v for v in voices if v.name not in _HIDDEN_BACKENDS and v.name != "silence"]
    out = []
    for v in shown:
        if v.available and v.name == "screenreader" and not screen_reader_running:
            # The backend's check only proves the library is installed; nothing listens now.
            # Translators: `panelvox doctor`: screen-reader output is installed but no screen reader runs.
            text = _("Speech through a screen reader is ready for when one runs.")
            out.append(Finding(Topic.VOICE, True, text))
        elif v.available:
            # Translators: `panelvox doctor`: a speech output works; {name} is e.g. "piper".
            out.append(Finding(Topic.VOICE, True, _("Voice {name} works.").format(name=v.name)))
        else:
            reason = v.reason.strip() or _("it cannot run here.")
            # Translators: `panelvox doctor`: a speech output does not work; {reason} is one sentence.
            text = _("Voice {name} does not work: {reason}").format(name=v.name, reason=_sentence(reason))
            out.append(Finding(Topic.VOICE, False, text))
    if not any(v.available for v in shown):
        # Translators: `panelvox doctor`: nothing can speak.
        out.append(Finding(Topic.VOICE, False, _("No voice works, so Panelvox cannot speak.")))
    return out


def ocr_models_finding(problem: str | None) -> Finding:
    if problem is None:
        # Translators: `panelvox doctor`: the OCR model files are present and checked.
        return Finding(Topic.OCR_MODELS, True, _("The text reader's models are present and intact."))
    return Finding(Topic.OCR_MODELS, False, problem)


def vlm_models_finding(names: Sequence[str] | None) -> Finding:
    if names is None:
        # Translators: `panelvox doctor`: this build has no model list at all.
        return Finding(Topic.VLM_MODELS, True, _("This build has no picture describer models."))
    if not names:
        # Translators: `panelvox doctor`: no description model was added.
        return Finding(Topic.VLM_MODELS, True, _("No picture describer model has been added."))
    return Finding(
        Topic.VLM_MODELS,
        True,
        # Translators: `panelvox doctor`: description models added; {names} lists them.
        _("Picture describer models added: {names}.").format(names=", ".join(names)),
    )


def sample_book_finding(path: Path | None) -> Finding:
    if path is None:
        # Translators: `panelvox doctor`: the sample book is missing.
        return Finding(Topic.SAMPLE_BOOK, False, _("The sample book is missing."))
    # Translators: `panelvox doctor`: the sample book exists; {path} is where.
    return Finding(Topic.SAMPLE_BOOK, True, _("The sample book is at {path}.").format(path=path))


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


# -- this machine --------------------------------------------------------------------------
def find_gpus(run: Callable[[list[str]], str] | None = None) -> list[str]:
    """NVIDIA cards by name (``nvidia-smi -L``); empty when there is none or no driver."""
    if shutil.which("nvidia-smi") is None:
        return []
    runner = run or _run
    try:
        text = runner(["nvidia-smi", "-L"])
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("nvidia-smi failed: %r", exc)
        return []
    return parse_nvidia_smi(text)


def parse_nvidia_smi(text: str) -> list[str]:
    """``GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)`` lines → card names."""
    names = []
    for line in text.splitlines():
        head, sep, rest = line.partition(":")
        if sep and head.strip().startswith("GPU"):
            names.append(rest.split("(UUID", 1)[0].strip())
    return [n for n in names if n]


def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=True).stdout


def onnx_providers() -> list[str] | None:
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    return list(ort.get_available_providers())


def llama_status() -> tuple[bool, bool | None]:
    """(installed, can offload to a GPU) of llama-cpp-python, without loading a model."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False, None
    try:
        import llama_cpp

        return True, bool(llama_cpp.llama_supports_gpu_offload())
    except (ImportError, OSError, AttributeError, RuntimeError) as exc:
        log.info("llama_cpp present but not usable: %r", exc)
        return True, None


def voice_statuses() -> list[VoiceStatus]:
    from panelvox.speech.discovery import list_backends

    return [VoiceStatus(b.name, b.description, b.check.available, b.check.reason) for b in list_backends()]


def ocr_models_problem() -> str | None:
    """None when both OCR models are found and match their sha256, else the spoken reason."""
    from panelvox.models.ocr import BUNDLED_DET, BUNDLED_REC, _resolve

    try:
        for bundled in (BUNDLED_DET, BUNDLED_REC):
            _resolve(None, bundled, verify=True)
    except PanelvoxError as exc:
        log.info("OCR models: %s", exc.detail)
        return exc.message
    return None


def vlm_model_names() -> list[str] | None:
    """Names of the added describer models; None when this build has no model registry."""
    if importlib.util.find_spec("panelvox.models.registry") is None:
        return None
    try:
        from panelvox.models.registry import ModelRegistry

        return [e.name for e in ModelRegistry().entries()]
    except (ImportError, AttributeError) as exc:  # the registry is another area's work
        log.info("model registry not usable: %r", exc)
        return None


def gather() -> list[Finding]:
    """Every finding on this machine, in the order they are read."""
    from panelvox.speech.backends.screenreader_backend import screen_reader_running

    gpus = find_gpus()
    installed, offload = llama_status()
    reader_running = screen_reader_running()
    return [
        version_finding(frozen=paths.bundle_dir() is not None),
        gpu_finding(gpus),
        telemetry_finding(os.environ.get("ORT_DISABLE_TELEMETRY")),
        ocr_device_finding(onnx_providers(), gpus),
        llm_device_finding(installed, offload),
        screen_reader_finding(reader_running),
        *voice_findings(voice_statuses(), screen_reader_running=reader_running),
        ocr_models_finding(ocr_models_problem()),
        vlm_models_finding(vlm_model_names()),
        sample_book_finding(paths.sample_book()),
    ]


def summary(findings: Sequence[Finding]) -> Finding:
    problems = sum(not f.ok for f in findings)
    if problems == 0:
        # Translators: last sentence of `panelvox doctor` when all is well.
        return Finding(Topic.VERSION, True, _("Everything Panelvox needs is here."))
    # Translators: last sentence of `panelvox doctor`; {n} is how many problems it found.
    return Finding(Topic.VERSION, False, _("Found {n} things to fix.").format(n=problems))


def run_doctor(*, speak: bool = False, backend: str | None = None, out: Callable[[str], None] = print) -> int:
    """Print (and with ``speak`` say) every finding; 1 when something needs fixing."""
    findings = gather()
    findings.append(summary(findings))
    for f in findings:
        out(f.sentence)
    if speak:
        _speak([f.sentence for f in findings], backend)
    return 0 if all(f.ok for f in findings) else 1


def _speak(sentences: Sequence[str], backend: str | None) -> None:
    from panelvox.speech.discovery import build_chain
    from panelvox.speech.queue import SpeechQueue

    with SpeechQueue(build_chain(backend)) as queue:
        for s in sentences:
            queue.say(s)
        queue.wait_idle()
