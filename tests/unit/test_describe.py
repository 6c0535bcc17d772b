"""The describer's pieces without running a model: registry, grammar, parsing, prompt, memory."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from vlm_fixtures import make_tiny_vlm, page

from panelvox.cli.models import run_models
from panelvox.errors import ModelUnavailable
from panelvox.model import BBox
from panelvox.models.registry import ModelRegistry, ModelRole, manifest_path, read_gguf_info
from panelvox.narration.describe import (
    SYSTEM_PROMPT,
    ClaimKind,
    DescribeConfig,
    build_prompt,
    claims_grammar,
    claims_schema,
    crop_png,
    panel_facts,
    parse_claims,
)
from panelvox.narration.vlm_backend import Generation, TokenProb, check_fits


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    pytest.importorskip("gguf")
    return make_tiny_vlm(tmp_path_factory.mktemp("tinyvlm"))


# -- GGUF header and registry -------------------------------------------------------------------
def test_header_of_the_tiny_model_is_read_and_agrees_with_gguf(tiny: tuple[Path, Path]) -> None:
    import gguf

    model, mmproj = tiny
    info, proj = read_gguf_info(model), read_gguf_info(mmproj)
    assert (info.architecture, info.embedding_length, info.has_chat_template) == ("llama", 64, True)
    assert (proj.architecture, proj.projector, proj.has_vision) == ("clip", "mlp", True)
    reader = gguf.GGUFReader(model)
    assert info.tensor_count == len(reader.tensors)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"GGML" + b"\0" * 20,
        b"GGUF" + struct.pack("<I", 3),
        b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + b"\xff" * 8,
    ],
)
def test_hostile_or_truncated_files_are_refused_plainly(tmp_path: Path, data: bytes) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(data)
    with pytest.raises(ModelUnavailable) as err:
        read_gguf_info(bad)
    assert err.value.message == "bad.gguf is not a readable GGUF model file."


def test_add_records_sha256_and_check_notices_changes(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    model, mmproj = tiny
    copy = tmp_path / "m.gguf"
    copy.write_bytes(model.read_bytes())
    reg = ModelRegistry()
    assert reg.path == manifest_path() and "xdg_data_home" in str(reg.path)
    entry = reg.add(copy, mmproj, name="tiny")
    assert entry.role is ModelRole.VLM and entry.projector == "mlp" and len(entry.sha256) == 64
    assert json.loads(reg.path.read_text())["models"][0]["name"] == "tiny"
    assert reg.check(entry).ok
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0xFF
    copy.write_bytes(bytes(data))
    result = reg.check(entry)
    assert not result.ok and "m.gguf has changed since it was added." in result.problems


def test_mmproj_in_the_wrong_place_is_refused(tiny: tuple[Path, Path]) -> None:
    model, mmproj = tiny
    with pytest.raises(ModelUnavailable, match="image encoder"):
        ModelRegistry().add(mmproj)
    with pytest.raises(ModelUnavailable, match="not an image encoder"):
        ModelRegistry().add(model, model)
    assert ModelRegistry().entries() == []


def test_models_command_lists_adds_and_checks(tiny: tuple[Path, Path]) -> None:
    model, mmproj = tiny
    out = io.StringIO()
    assert run_models("list", out=out) == 0 and "No models have been added" in out.getvalue()
    out = io.StringIO()
    assert run_models("add", model=model, mmproj=mmproj, name="tiny", out=out) == 0
    assert "Added tiny (llama + mlp image encoder)." in out.getvalue()
    out = io.StringIO()
    assert run_models("check", out=out) == 0
    assert out.getvalue().startswith("tiny: llama + mlp image encoder") and "— ok" in out.getvalue()


def test_too_large_a_model_is_refused_before_loading(tiny: tuple[Path, Path]) -> None:
    with pytest.raises(ModelUnavailable) as err:
        check_fits(list(tiny), available=1024 * 1024)
    assert "too large for the memory" in err.value.message and "GiB" in err.value.detail
    check_fits(list(tiny), available=64 * 1024**3)


# -- grammar, parsing, prompt ------------------------------------------------------------------------
def test_grammar_is_accepted_by_llama_cpp() -> None:
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar")
    llama_grammar.LlamaGrammar.from_string(claims_grammar(), verbose=False)
    grammar = claims_grammar(DescribeConfig(max_characters=2, short_chars=7))
    assert "{0,1}" in grammar and "ch{0,7}" in grammar
    assert claims_schema()["properties"]["characters"]["maxItems"] == 4


def _gen(obj: object) -> Generation:
    text = json.dumps(obj, ensure_ascii=False)
    # one token per character, the summary's characters improbable
    at = text.index("a pier")
    tokens = tuple(
        TokenProb(0, ch.encode(), np.log(0.05 if at <= i < at + 6 else 0.9)) for i, ch in enumerate(text)
    )
    return Generation(text, tokens)


def test_claims_are_parsed_with_their_token_probabilities() -> None:
    gen = _gen(
        {
            "characters": [
                {
                    "who": "Steenie",
                    "appearance": "",
                    "expression": "worried",
                    "posture": "",
                    "action": "points",
                }
            ],
            "setting": "a harbour",
            "objects": ["a boat", ""],
            "summary": "a pier",
        }
    )
    claims = parse_claims(gen)
    kinds = [c.kind for c in claims.claims]
    assert kinds == [
        ClaimKind.CHARACTER,
        ClaimKind.EXPRESSION,
        ClaimKind.ACTION,
        ClaimKind.SETTING,
        ClaimKind.OBJECT,
        ClaimKind.SUMMARY,
    ]
    assert claims.claims[1].character == 0 and claims.who(0) == "Steenie"
    assert claims.claims[0].prob == pytest.approx(0.9)
    assert claims.claims[-1].prob == pytest.approx(0.05)


def test_answers_that_are_not_the_json_asked_for_are_refused() -> None:
    with pytest.raises(ValueError):
        parse_claims(Generation('{"characters": [1], "setting": ""}'))
    with pytest.raises(ValueError):
        parse_claims(Generation('{"characters": [], "setting": "a'))


def test_prompt_gives_verified_facts_and_forbids_reading_text() -> None:
    a = page()
    facts = panel_facts(a, a.panels[0])
    assert facts.dialogue == (("Steenie", "WHERE IS THE BOAT?"), ("Dougal", "IT SANK LAST NIGHT."))
    assert facts.characters == (("Steenie", "left"), ("Dougal", "right"))
    prompt = build_prompt(facts, DescribeConfig(word_budget=50))
    assert "Characters detected in this panel: 2." in prompt and "at most 50 words" in prompt
    assert "- Dougal: IT SANK LAST NIGHT." in prompt
    assert "Never read, quote or paraphrase" in SYSTEM_PROMPT


def test_crop_is_the_panel_scaled_down() -> None:
    image = np.zeros((600, 400, 3), np.uint8)
    image[300:, :] = 255
    png = crop_png(image, BBox(0, 300, 400, 600), max_side=100)
    crop = PILImage.open(io.BytesIO(png))
    assert crop.size == (100, 75)
    assert np.asarray(crop).min() == 255
