"""`panelvox doctor`: each probe on made-up machines, then the real run on this one."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelvox import doctor
from panelvox.doctor import Finding, Topic, VoiceStatus
from panelvox.speech.backend import CheckResult, SpeechBackend
from panelvox.speech.backends.spy_backend import SpyBackend

SMI = """GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1234)
GPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-5678)
"""


def _spoken(f: Finding) -> None:
    """One plain sentence: no tracebacks, no underscores, ends like a sentence."""
    assert f.sentence.strip() == f.sentence and f.sentence.endswith((".", "!", "?")), f.sentence
    assert "Traceback" not in f.sentence and "\n" not in f.sentence


def test_nvidia_smi_lines_become_card_names() -> None:
    assert doctor.parse_nvidia_smi(SMI) == ["NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090"]
    assert doctor.parse_nvidia_smi("No devices were found\n") == []


def test_find_gpus_uses_nvidia_smi_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor.shutil, "which", lambda name: "/usr/bin/nvidia-smi")
    assert doctor.find_gpus(run=lambda cmd: SMI) == ["NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090"]

    def broken(cmd: list[str]) -> str:
        raise OSError("driver gone")

    assert doctor.find_gpus(run=broken) == []
    monkeypatch.setattr(doctor.shutil, "which", lambda name: None)
    assert doctor.find_gpus(run=lambda cmd: SMI) == []


@pytest.mark.parametrize(
    ("providers", "gpus", "ok", "words"),
    [
        (["CUDAExecutionProvider", "CPUExecutionProvider"], ["H100"], True, "CUDA"),
        (["CPUExecutionProvider"], ["H100"], True, "GPU build"),
        (["CPUExecutionProvider"], [], True, "processor"),
        (None, [], False, "not installed"),
    ],
)
def test_ocr_device(providers: list[str] | None, gpus: list[str], ok: bool, words: str) -> None:
    f = doctor.ocr_device_finding(providers, gpus)
    assert f.ok is ok and words in f.sentence
    _spoken(f)


def test_gpu_and_llm_findings() -> None:
    assert "H100" in doctor.gpu_finding(["NVIDIA H100"]).sentence
    assert "No NVIDIA" in doctor.gpu_finding([]).sentence
    assert "optional" in doctor.llm_device_finding(False, None).sentence
    assert "graphics card" in doctor.llm_device_finding(True, True).sentence
    assert "processor" in doctor.llm_device_finding(True, False).sentence


def test_voices_name_what_works_and_why_the_others_do_not() -> None:
    found = doctor.voice_findings(
        [
            VoiceStatus("piper", "", True),
            VoiceStatus("pyttsx3", "", False, "The espeak-ng voice is not installed"),
            VoiceStatus("silence", "", True),
            VoiceStatus("spy", "", True),
        ]
    )
    assert [f.sentence for f in found] == [
        "Voice piper works.",
        "Voice pyttsx3 does not work: The espeak-ng voice is not installed.",
    ]
    assert [f.ok for f in found] == [True, False]
    for f in found:
        _spoken(f)


def test_screen_reader_output_is_not_said_to_work_when_no_screen_reader_runs() -> None:
    voices = [VoiceStatus("screenreader", "", True)]
    idle = doctor.voice_findings(voices, screen_reader_running=False)
    assert [f.sentence for f in idle] == ["Speech through a screen reader is ready for when one runs."]
    running = doctor.voice_findings(voices, screen_reader_running=True)
    assert [f.sentence for f in running] == ["Voice screenreader works."]


def test_no_voice_at_all_is_a_problem() -> None:
    found = doctor.voice_findings([VoiceStatus("piper", "", False, "Piper is not installed.")])
    assert found[-1].topic is Topic.VOICE and not found[-1].ok
    assert doctor.summary(found).sentence == "Found 2 things to fix."


def test_models_and_sample_book_findings() -> None:
    assert doctor.ocr_models_finding(None).ok
    bad = doctor.ocr_models_finding("A model file of the text reader is missing, so text cannot be read.")
    assert not bad.ok and "missing" in bad.sentence
    assert "has been added" in doctor.vlm_models_finding([]).sentence
    assert "qwen" in doctor.vlm_models_finding(["qwen"]).sentence
    assert "no picture describer" in doctor.vlm_models_finding(None).sentence
    assert not doctor.sample_book_finding(None).ok


def test_ocr_model_problem_is_spoken_when_the_wheel_lacks_the_models(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from panelvox.models import ocr

    monkeypatch.setattr(ocr, "rapidocr_models_dir", lambda: tmp_path)
    problem = doctor.ocr_models_problem()
    assert problem == "A model file of the text reader is missing, so text cannot be read."


def test_the_real_run_on_this_machine(capsys: pytest.CaptureFixture[str]) -> None:
    code = doctor.run_doctor()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("This is Panelvox ")
    assert "The text reader's models are present and intact." in lines
    assert any(line.startswith("Voice ") for line in lines)
    assert code in (0, 1)
    assert (code == 0) == (lines[-1] == "Everything Panelvox needs is here.")


def test_speak_says_every_sentence_through_the_chosen_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spy = SpyBackend()
    chosen: list[str | None] = []

    def chain(preferred: str | None = None) -> list[SpeechBackend]:
        chosen.append(preferred)
        return [spy]

    monkeypatch.setattr("panelvox.speech.discovery.build_chain", chain)
    monkeypatch.setattr(doctor, "voice_statuses", lambda: [VoiceStatus("spy2", "", True)])
    doctor.run_doctor(speak=True, backend="spy")
    printed = capsys.readouterr().out.splitlines()
    assert chosen == ["spy"]
    assert spy.texts() == printed


def test_cli_doctor_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    from panelvox.cli import main

    assert main(["doctor"]) in (0, 1)
    assert "This is Panelvox" in capsys.readouterr().out


def test_check_result_reason_is_spoken_as_given() -> None:
    # the voices' own check() reasons are one sentence already; doctor does not reword them
    result = CheckResult(False, "Speech Dispatcher is not installed.")
    f = doctor.voice_findings([VoiceStatus("screenreader", "", result.available, result.reason)])[0]
    assert f.sentence == "Voice screenreader does not work: Speech Dispatcher is not installed."
