"""The one onnxruntime session factory."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelvox.errors import ModelUnavailable
from panelvox.models.device import Device
from panelvox.models.onnx_session import create_session


def test_missing_or_damaged_model_is_a_domain_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable) as err:
        create_session(tmp_path / "nope.onnx", message="Spoken.")
    assert err.value.message == "Spoken." and "nope.onnx" in err.value.detail
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelUnavailable) as err:
        create_session(junk, Device.CPU)
    assert err.value.message.endswith(".")


def test_device_words_are_the_cli_words() -> None:
    assert [d.value for d in Device] == ["auto", "cpu", "gpu"]
