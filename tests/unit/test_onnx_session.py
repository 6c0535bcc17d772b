"""The one onnxruntime session factory: errors, and onnxruntime's telemetry kept off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from panelvox.errors import ModelUnavailable
from panelvox.models.device import Device
from panelvox.models.onnx_session import create_session

APP = Path(__file__).resolve().parents[2] / "app"


def test_missing_or_damaged_model_is_a_domain_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable) as err:
        create_session(tmp_path / "nope.onnx", message="Spoken.")
    assert err.value.message == "Spoken." and "nope.onnx" in err.value.detail
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelUnavailable) as err:
        create_session(junk, Device.CPU)
    assert err.value.message.endswith(".")


def test_a_cuda_session_that_fails_is_made_again_on_the_cpu(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import onnxruntime

    from panelvox.models.ocr import BUNDLED_DET, rapidocr_models_dir

    real = onnxruntime.InferenceSession
    asked: list[list[str]] = []

    def session(path: str, sess_options: object = None, providers: list[str] | None = None) -> object:
        asked.append(list(providers or []))
        if providers and providers[0] == "CUDAExecutionProvider":
            raise onnxruntime.capi.onnxruntime_pybind11_state.Fail("no CUDA here")
        return real(path, sess_options=sess_options, providers=providers)

    monkeypatch.setattr(
        onnxruntime, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"]
    )
    monkeypatch.setattr(onnxruntime, "InferenceSession", session)
    model = rapidocr_models_dir() / BUNDLED_DET.filename
    assert create_session(model, Device.CPU).get_providers() == ["CPUExecutionProvider"]
    assert asked == [["CPUExecutionProvider"]]  # CPU asked for: CUDA never tried
    asked.clear()
    with caplog.at_level("WARNING", logger="panelvox.models.onnx_session"):
        assert create_session(model).get_providers() == ["CPUExecutionProvider"]
    assert asked == [["CUDAExecutionProvider", "CPUExecutionProvider"], ["CPUExecutionProvider"]]
    assert "falling back to the CPU" in caplog.text


def test_device_words_are_the_cli_words() -> None:
    assert [d.value for d in Device] == ["auto", "cpu", "gpu"]


# rapidocr and piper import onnxruntime themselves: importing panelvox first must be enough
_THROUGH_THE_FACTORY = """
from panelvox.models.ocr import BUNDLED_DET, rapidocr_models_dir
from panelvox.models.onnx_session import create_session
create_session(rapidocr_models_dir() / BUNDLED_DET.filename)
"""
_ANOTHER_PACKAGE_IMPORTS_IT = """
import panelvox
import onnxruntime
from panelvox.models.ocr import BUNDLED_DET, rapidocr_models_dir
onnxruntime.InferenceSession(str(rapidocr_models_dir() / BUNDLED_DET.filename))
"""


@pytest.mark.parametrize("script", [_THROUGH_THE_FACTORY, _ANOTHER_PACKAGE_IMPORTS_IT])
def test_onnxruntime_writes_no_telemetry_id(tmp_path: Path, script: str) -> None:
    """onnxruntime >= 1.29 writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid and
    sends telemetry from its import on, unless ORT_DISABLE_TELEMETRY was set before."""
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env |= {
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / ".cache"),
        "PYTHONPATH": os.pathsep.join([str(APP), env.get("PYTHONPATH", "")]),
    }
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=120)
    assert not (tmp_path / ".cache" / "Microsoft").exists()


def test_a_cpu_session_is_made_from_the_model_optimised_once(tmp_path: Path) -> None:
    import numpy as np

    from panelvox.models.ocr import BUNDLED_DET, rapidocr_models_dir

    model = rapidocr_models_dir() / BUNDLED_DET.filename
    folder = tmp_path / "optimized"
    plain = create_session(model, Device.CPU)
    first = create_session(model, Device.CPU, optimized_dir=folder)
    (copy,) = folder.glob("*.onnx")
    assert copy.name.startswith(model.stem) and copy.stat().st_size > 0
    made = copy.stat().st_mtime_ns
    again = create_session(model, Device.CPU, optimized_dir=folder)
    assert copy.stat().st_mtime_ns == made and list(folder.glob("*.onnx")) == [copy]  # reused
    x = np.random.default_rng(1).standard_normal((1, 3, 96, 128)).astype(np.float32)
    name = plain.get_inputs()[0].name
    want = plain.run(None, {name: x})[0]
    assert np.array_equal(first.run(None, {name: x})[0], want)
    assert np.array_equal(again.run(None, {name: x})[0], want)
    # a damaged copy is never run, even one that would still load (a weight changed): it is
    # made again from the model
    good = copy.read_bytes()
    for damaged in (
        b"damaged",
        good[: len(good) // 2] + bytes([good[len(good) // 2] ^ 0xFF]) + good[len(good) // 2 + 1 :],
    ):
        copy.write_bytes(damaged)
        assert np.array_equal(
            create_session(model, Device.CPU, optimized_dir=folder).run(None, {name: x})[0], want
        )
        assert copy.read_bytes() == good
