#!/usr/bin/env python3
"""Write a tiny, random-weight vision-language model as two GGUF files llama.cpp loads.

    python scripts/make_tiny_vlm.py OUT_DIR [--seed N]

makes ``OUT_DIR/tiny-vlm.gguf`` (text model, architecture ``llama``, byte-level BPE
vocabulary with a ChatML template) and ``OUT_DIR/tiny-vlm-mmproj.gguf`` (a CLIP vision
encoder with a LLaVA "mlp" projector). Both together are a few hundred kilobytes.

Why: no small VLM GGUF is on PyPI, yet the describer's whole chain (image -> mmproj ->
text model -> grammar-constrained JSON -> verifier) must run for real in CI. Random
weights produce nonsense words, but the grammar forces valid JSON, which is all the
chain test needs. Nothing here is a trained model; never ship it to users.

Key and tensor names follow the llama.cpp vendored by llama-cpp-python 0.3.36
(tools/mtmd/clip-impl.h: KEY_* / TN_*; src/llama-arch.cpp: LLM_ARCH_LLAMA tensors).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

try:
    import gguf
except ImportError:  # pragma: no cover - a clear message instead of a traceback
    sys.exit("make_tiny_vlm needs the 'gguf' package: pip install 'panelvox[llm]'")

TEXT_NAME = "tiny-vlm.gguf"
MMPROJ_NAME = "tiny-vlm-mmproj.gguf"

# text model
N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 4
N_FF = 128
N_LAYER = 2
N_CTX = 4096
# vision encoder
V_EMBD = 32
V_HEAD = 2
V_FF = 48  # != V_EMBD, so llama.cpp's "swapped ffn" heuristic cannot misfire
V_LAYER = 2  # llava graphs stop one layer early: one layer runs
IMAGE_SIZE = 32
PATCH = 8
MM_HIDDEN = 64

SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
# a few merges so the BPE tables are not empty; the merged tokens are in the vocabulary
MERGES = (("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("e", "r"), ('"', ":"), ("Ġ", '"'))


def byte_alphabet() -> list[str]:
    """GPT-2's byte -> printable unicode mapping, as byte-level BPE vocabularies use."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    table = dict(zip(bs, cs, strict=True))
    return [chr(table[b]) for b in range(256)]


def vocabulary() -> tuple[list[str], list[int], list[str]]:
    tokens = byte_alphabet()
    merges = []
    for a, b in MERGES:
        merges.append(f"{a} {b}")
        tokens.append(a + b)
    types = [gguf.TokenType.NORMAL] * len(tokens)
    for special in SPECIALS:
        tokens.append(special)
        types.append(gguf.TokenType.CONTROL)
    return tokens, [int(t) for t in types], merges


def _rand(rng: np.random.Generator, *shape: int, scale: float = 0.05) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def write_text_model(path: Path, rng: np.random.Generator) -> None:
    tokens, types, merges = vocabulary()
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("panelvox tiny random VLM (test only)")
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_add_bos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    n_vocab = len(tokens)
    w.add_tensor("token_embd.weight", _rand(rng, n_vocab, N_EMBD, scale=0.5))
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    w.add_tensor("output.weight", _rand(rng, n_vocab, N_EMBD, scale=0.5))
    head = N_EMBD // N_HEAD
    for i in range(N_LAYER):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        w.add_tensor(p + "attn_q.weight", _rand(rng, N_EMBD, N_EMBD))
        w.add_tensor(p + "attn_k.weight", _rand(rng, N_HEAD_KV * head, N_EMBD))
        w.add_tensor(p + "attn_v.weight", _rand(rng, N_HEAD_KV * head, N_EMBD))
        w.add_tensor(p + "attn_output.weight", _rand(rng, N_EMBD, N_EMBD))
        w.add_tensor(p + "ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        w.add_tensor(p + "ffn_gate.weight", _rand(rng, N_FF, N_EMBD))
        w.add_tensor(p + "ffn_up.weight", _rand(rng, N_FF, N_EMBD))
        w.add_tensor(p + "ffn_down.weight", _rand(rng, N_EMBD, N_FF))
    _finish(w)


def write_mmproj(path: Path, rng: np.random.Generator) -> None:
    w = gguf.GGUFWriter(str(path), "clip")
    w.add_name("panelvox tiny random mmproj (test only)")
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_bool("clip.has_vision_encoder", True)
    w.add_bool("clip.has_llava_projector", True)
    w.add_string("clip.projector_type", "mlp")
    w.add_bool("clip.use_gelu", True)
    w.add_uint32("clip.vision.image_size", IMAGE_SIZE)
    w.add_uint32("clip.vision.patch_size", PATCH)
    w.add_uint32("clip.vision.embedding_length", V_EMBD)
    w.add_uint32("clip.vision.feed_forward_length", V_FF)
    w.add_uint32("clip.vision.block_count", V_LAYER)
    w.add_uint32("clip.vision.projection_dim", N_EMBD)
    w.add_uint32("clip.vision.attention.head_count", V_HEAD)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    w.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    w.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])
    n_patches = (IMAGE_SIZE // PATCH) ** 2
    # numpy shapes are reversed ggml shapes: conv kernel ne = [PATCH, PATCH, 3, V_EMBD]
    w.add_tensor("v.patch_embd.weight", _rand(rng, V_EMBD, 3, PATCH, PATCH, scale=0.1))
    w.add_tensor("v.position_embd.weight", _rand(rng, n_patches, V_EMBD))
    w.add_tensor("v.pre_ln.weight", np.ones(V_EMBD, dtype=np.float32))
    w.add_tensor("v.pre_ln.bias", np.zeros(V_EMBD, dtype=np.float32))
    for i in range(V_LAYER):
        p = f"v.blk.{i}."
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            w.add_tensor(p + name + ".weight", _rand(rng, V_EMBD, V_EMBD))
            w.add_tensor(p + name + ".bias", np.zeros(V_EMBD, dtype=np.float32))
        for name in ("ln1", "ln2"):
            w.add_tensor(p + name + ".weight", np.ones(V_EMBD, dtype=np.float32))
            w.add_tensor(p + name + ".bias", np.zeros(V_EMBD, dtype=np.float32))
        w.add_tensor(p + "ffn_up.weight", _rand(rng, V_FF, V_EMBD))
        w.add_tensor(p + "ffn_up.bias", np.zeros(V_FF, dtype=np.float32))
        w.add_tensor(p + "ffn_down.weight", _rand(rng, V_EMBD, V_FF))
        w.add_tensor(p + "ffn_down.bias", np.zeros(V_EMBD, dtype=np.float32))
    w.add_tensor("mm.0.weight", _rand(rng, MM_HIDDEN, V_EMBD))
    w.add_tensor("mm.0.bias", np.zeros(MM_HIDDEN, dtype=np.float32))
    w.add_tensor("mm.2.weight", _rand(rng, N_EMBD, MM_HIDDEN))
    w.add_tensor("mm.2.bias", np.zeros(N_EMBD, dtype=np.float32))
    _finish(w)


def _finish(w: gguf.GGUFWriter) -> None:
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def make_tiny_vlm(out_dir: Path, seed: int = 0) -> tuple[Path, Path]:
    """Write both files into ``out_dir``; returns (model, mmproj)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    model, mmproj = out_dir / TEXT_NAME, out_dir / MMPROJ_NAME
    write_text_model(model, rng)
    write_mmproj(mmproj, rng)
    return model, mmproj


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    model, mmproj = make_tiny_vlm(args.out_dir, args.seed)
    print(model)
    print(mmproj)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
