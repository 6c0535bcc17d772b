"""The whole describer chain for real: image -> mmproj -> model -> grammar JSON -> verifier -> utterances.

The model is the tiny random-weight VLM that scripts/make_tiny_vlm.py writes (nothing binary
is committed). Its words are nonsense, but llama.cpp really loads both GGUF files, encodes
the panel image, and the grammar forces valid JSON, so every step below runs for real.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from vlm_fixtures import REPO, make_tiny_vlm, page

from panelvox.cli import main
from panelvox.models.device import Device
from panelvox.narration.describe import DescribeConfig, Describer
from panelvox.narration.page_answers import ask
from panelvox.narration.page_narration import compose_page_narration, panel_utterances
from panelvox.narration.prefs import UtteranceKind
from panelvox.narration.verify import Decision, verify_panel
from panelvox.narration.vlm_backend import BackendConfig, LlamaBackend

pytestmark = pytest.mark.slow
pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

SMALL = DescribeConfig(samples=3, max_characters=2, max_objects=2, short_chars=16, long_chars=32)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_tiny_vlm(tmp_path_factory.mktemp("tinyvlm"))


@pytest.fixture(scope="module")
def backend(tiny: tuple[Path, Path]) -> Iterator[LlamaBackend]:
    b = LlamaBackend(BackendConfig(tiny[0], tiny[1], device=Device.AUTO, n_ctx=2048, threads=1))
    b.load()
    yield b
    b.close()


def _image() -> np.ndarray:
    img = np.full((600, 400, 3), 255, np.uint8)
    img[80:290, 20:150] = (200, 60, 40)  # "Steenie"
    img[80:290, 230:380] = (40, 60, 200)  # "Dougal"
    return img


def test_image_to_verified_utterances(backend: LlamaBackend) -> None:
    assert backend.has_vision and backend.gpu_layers in (0, -1)
    a = page()
    desc = Describer(backend, SMALL).describe_panel(_image(), a, a.panels[0])
    assert desc.failed_samples == 0 and len(desc.samples) == 3
    for s in desc.samples:
        json.loads(s.raw)  # the grammar made every answer valid JSON
        assert s.tokens > 0
    first = desc.samples[0]
    assert first.claims, "random weights still fill the fields"
    assert all(c.prob is not None and 0.0 < c.prob <= 1.0 for c in first.claims)
    assert all(len(c.text) <= SMALL.long_chars for c in first.claims)
    verified = verify_panel(desc, a)
    assert len(verified.claims) == len(first.claims)
    # nonsense cannot agree across samples nor name a known character: nothing is spoken as fact
    assert all(v.decision is not Decision.KEEP for v in verified.claims)
    assert all(v.flags and all(f.evidence for f in v.flags) for v in verified.claims)
    utterances = panel_utterances(verified)
    assert utterances and all(u.kind is UtteranceKind.DESCRIPTION for u in utterances)
    assert all(u.uncertain and u.text.startswith("Uncertain:") for u in utterances)
    narration = compose_page_narration(a, [verified])
    assert "Steenie says: “WHERE IS THE BOAT?”" in narration.text and narration.words < 400


def test_greedy_sample_is_reproducible(backend: LlamaBackend) -> None:
    a = page()
    one = Describer(
        backend, DescribeConfig(samples=1, max_characters=1, max_objects=1, short_chars=8, long_chars=8)
    )
    first = one.describe_panel(_image(), a, a.panels[0]).samples[0].raw
    again = one.describe_panel(_image(), a, a.panels[0]).samples[0].raw
    assert first == again


def test_ask_answers_from_structure_and_holds_the_model_to_the_checks(backend: LlamaBackend) -> None:
    a = page()
    answer = ask("Who says it sank last night?", a, backend=backend)
    assert answer.text == "Dougal, in balloon 2." and answer.citations == ("b2",)
    # a question the structure cannot answer goes to the model, whose nonsense is not trusted
    answer = ask("Is it raining?", a, backend=backend)
    assert answer.text.startswith(("I can't tell", "Uncertain:"))
    assert not answer.supported


def test_cli_models_describe_and_ask(tiny: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    model, mmproj = tiny
    assert main(["models", "add", str(model), "--mmproj", str(mmproj), "--name", "tiny"]) == 0
    assert "sha256" in capsys.readouterr().out
    book = REPO / "assets" / "sample-rtl.cbz"
    assert (
        main(
            [
                "describe",
                str(book),
                "--page",
                "1",
                "--panel",
                "1",
                "--samples",
                "2",
                "--json",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    panels = json.loads(capsys.readouterr().out)
    assert len(panels) == 1 and panels[0]["claims"]
    assert {"kind", "decision", "flags", "token_prob"} <= set(panels[0]["claims"][0])
    assert main(["ask", str(book), "--page", "1", "--no-model", "who says is the train late"]) == 0
    out = capsys.readouterr().out
    assert "in balloon 1." in out and "From balloon 1." in out  # cited as the user counts


def test_cli_describe_without_a_model_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    book = REPO / "assets" / "sample-rtl.cbz"
    assert main(["describe", str(book), "--page", "1"]) == 1
    assert "No description model has been added" in capsys.readouterr().err


def test_wrong_file_as_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "x.gguf"
    fake.write_bytes(b"not a model")
    assert main(["models", "add", str(fake)]) == 1
    err = io.StringIO(capsys.readouterr().err).getvalue()
    assert err.strip() == "x.gguf is not a readable GGUF model file."


def test_a_model_the_gpu_cannot_hold_is_loaded_on_the_cpu(
    tiny: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import llama_cpp

    from panelvox.errors import ModelUnavailable
    from panelvox.narration import vlm_backend

    real = llama_cpp.Llama
    asked: list[int] = []

    def llama(*args: object, n_gpu_layers: int = 0, **kw: object) -> object:
        asked.append(n_gpu_layers)
        if n_gpu_layers != 0:  # what llama.cpp does when the GPU's memory is too small
            raise ValueError("Failed to load model from file")
        return real(*args, n_gpu_layers=n_gpu_layers, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(llama_cpp, "llama_supports_gpu_offload", lambda: True)
    monkeypatch.setattr(llama_cpp, "Llama", llama)
    b = LlamaBackend(BackendConfig(tiny[0], tiny[1], n_ctx=1024, threads=1))
    b.load()
    try:
        assert asked == [-1, 0] and b.gpu_layers == 0
    finally:
        b.close()
    # and when the computer's memory cannot hold it either, the user hears why
    monkeypatch.setattr(vlm_backend, "available_memory", lambda: 1024 * 1024)
    small = LlamaBackend(BackendConfig(tiny[0], tiny[1], n_ctx=1024, threads=1))
    with pytest.raises(ModelUnavailable) as err:
        small.load()
    assert "too large for the memory" in err.value.message
