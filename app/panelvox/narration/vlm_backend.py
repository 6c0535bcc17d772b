"""Running a GGUF language or vision-language model with llama-cpp-python (the ``llm`` extra).

One :class:`LlamaBackend` holds one loaded model (and its mmproj image encoder) and is reused
for every panel. Layers go to the GPU when this llama.cpp build can offload
(``llama_supports_gpu_offload()``: a CUDA/Metal/Vulkan build), else everything runs on the
CPU. Before loading on the CPU, the files' size is compared with the memory available, so a
model that cannot fit is refused with a plain sentence instead of the machine swapping to a
halt; a model the GPU cannot hold (llama.cpp fails to allocate) is loaded on the CPU instead,
under the same check.

Token probabilities come from a logits processor: at each step it keeps the log-softmax of
the model's own distribution, and at the next step reads the probability of the token that
was actually chosen (grammar-constrained). This costs one softmax per token, not the
``logits_all`` buffer (context x vocabulary floats) that llama.cpp's ``logprobs`` needs.
"""

from __future__ import annotations

import base64
import ctypes
import functools
import importlib.util
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from panelvox.errors import ModelUnavailable
from panelvox.i18n import _
from panelvox.models.device import Device
from panelvox.models.registry import ModelEntry, ModelRegistry, ModelRole, read_gguf_info

_GGML_LOG_ERROR = 3  # enum ggml_log_level

log = logging.getLogger(__name__)

#: Memory kept free for the rest of Panelvox (OCR sessions, page images, the UI).
HEADROOM_BYTES = 768 * 1024 * 1024
#: llama.cpp needs a little more than the file: compute buffers and the KV cache.
LOAD_FACTOR = 1.15


@dataclass(frozen=True, slots=True)
class BackendConfig:
    model: Path
    mmproj: Path | None = None
    device: Device = Device.AUTO  # AUTO: every layer on the GPU when this llama.cpp build can offload
    n_ctx: int = 4096
    threads: int = 0  # 0: llama.cpp decides
    seed: int = 0
    check_memory: bool = True


@dataclass(frozen=True, slots=True)
class TokenProb:
    token: int
    piece: bytes  # the token's bytes (a UTF-8 character may span tokens)
    logprob: float


@dataclass(frozen=True, slots=True)
class Generation:
    """One completion: its text and the model's probability for each generated token."""

    text: str
    tokens: tuple[TokenProb, ...] = ()
    seconds: float = 0.0
    prompt_tokens: int = 0
    finish_reason: str = ""

    @property
    def mean_prob(self) -> float | None:
        if not self.tokens:
            return None
        return float(np.exp(np.mean([t.logprob for t in self.tokens])))

    def span_prob(self, start: int, end: int) -> float | None:
        """Geometric-mean probability of the tokens that produced ``text[start:end]``."""
        start, end = len(self.text[:start].encode()), len(self.text[:end].encode())
        pos = 0
        picked = []
        for tok in self.tokens:
            nxt = pos + len(tok.piece)
            if nxt > start and pos < end:
                picked.append(tok.logprob)
            pos = nxt
        return float(np.exp(np.mean(picked))) if picked else None


def llama_available() -> bool:
    """Whether the ``llm`` extra (llama-cpp-python) is installed."""
    return importlib.util.find_spec("llama_cpp") is not None


def available_memory() -> int | None:
    """Bytes of memory available for a new allocation (Linux /proc/meminfo), None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_fits(files: list[Path], available: int | None) -> None:
    """Refuse (``ModelUnavailable``) when the model files cannot fit in ``available`` bytes."""
    if available is None:
        return
    need = int(sum(p.stat().st_size for p in files) * LOAD_FACTOR) + HEADROOM_BYTES
    if need > available:
        gib = 1024**3
        raise ModelUnavailable(
            # Translators: spoken when a description model is larger than the free memory.
            _("This description model is too large for the memory of this computer."),
            detail=f"needs about {need / gib:.1f} GiB, {available / gib:.1f} GiB available",
        )


@functools.cache
def _log_callback() -> Any:
    """llama.cpp's log callback that writes to Panelvox's log (kept alive by the cache)."""
    import llama_cpp

    llama_log = logging.getLogger("panelvox.llama_cpp")

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, _user_data: Any) -> None:
        message = text.decode("utf-8", "replace").rstrip()
        if message:
            llama_log.log(logging.WARNING if level == _GGML_LOG_ERROR else logging.DEBUG, "%s", message)

    return callback


def _quiet_llama() -> None:
    """Send llama.cpp's and the image encoder's logs to Panelvox's log file, never to stderr.

    llama-cpp-python's own callback prints some lines even with ``verbose=False`` (e.g.
    "llama_kv_cache_iswa: using full-size SWA cache" for Gemma 3), and mtmd prints every
    image slice and prompt: a screen reader following the terminal would read them out.
    """
    try:
        import llama_cpp
        import llama_cpp.mtmd_cpp as mtmd
    except ImportError:
        return
    callback = _log_callback()
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    for setter in ("mtmd_log_set", "mtmd_helper_log_set"):
        fn = getattr(mtmd, setter, None)
        if fn is not None:
            fn(callback, None)


class _ProbRecorder:
    """A llama-cpp logits processor that records the chosen tokens' log-probabilities."""

    def __init__(self) -> None:
        self.logprobs: list[tuple[int, float]] = []
        self._last: npt.NDArray[np.float32] | None = None
        self._start: int | None = None

    def __call__(self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]) -> Any:
        n = len(input_ids)
        if self._start is None:
            self._start = n
        elif self._last is not None and n > self._start:
            token = int(input_ids[-1])
            if 0 <= token < len(self._last):
                self.logprobs.append((token, float(self._last[token])))
        logits = np.asarray(scores, dtype=np.float64)
        peak = float(np.max(logits))
        self._last = (logits - peak - np.log(np.sum(np.exp(logits - peak)))).astype(np.float32)
        return scores


@dataclass
class LlamaBackend:
    """A loaded llama.cpp model; create once, reuse for every panel, :meth:`close` at the end."""

    config: BackendConfig
    _llm: Any = field(default=None, init=False, repr=False)
    gpu_layers: int = field(default=0, init=False)

    def load(self) -> None:
        if self._llm is not None:
            return
        if not llama_available():
            raise ModelUnavailable(
                # Translators: spoken when scene descriptions need the optional llm package.
                _("Scene descriptions need the optional llm package of Panelvox."),
                detail="pip install 'panelvox[llm]' (llama-cpp-python)",
            )
        import llama_cpp

        cfg = self.config
        files = [cfg.model] + ([cfg.mmproj] if cfg.mmproj is not None else [])
        for f in files:
            if not f.is_file():
                raise ModelUnavailable(
                    _("The model file {file} was not found.").format(file=f.name), detail=str(f)
                )
        offload = cfg.device is not Device.CPU and bool(llama_cpp.llama_supports_gpu_offload())
        if cfg.device is Device.GPU and not offload:
            log.warning("GPU asked for, but this llama.cpp build cannot offload; using the CPU")
        _quiet_llama()
        if offload:
            try:
                self._llm = self._open(llama_cpp, gpu=True)
            except (ValueError, RuntimeError, OSError) as exc:
                # most often the GPU's memory is too small: the CPU may still hold the model
                log.warning("loading %s on the GPU failed (%r); trying the CPU", cfg.model.name, exc)
        if self._llm is None:
            if cfg.check_memory:
                check_fits(files, available_memory())
            try:
                self._llm = self._open(llama_cpp, gpu=False)
            except (ValueError, RuntimeError, OSError) as exc:
                raise ModelUnavailable(
                    # Translators: spoken when llama.cpp cannot load a description model.
                    _("The description model could not be loaded. It may be damaged or too large."),
                    detail=f"{cfg.model}: {exc!r}",
                ) from exc
        log.info("loaded %s (mmproj %s), gpu layers %d", cfg.model, cfg.mmproj, self.gpu_layers)

    def _open(self, llama_cpp: Any, *, gpu: bool) -> Any:
        """The llama.cpp model (and image encoder), all layers on the GPU or none."""
        cfg = self.config
        handler = None
        if cfg.mmproj is not None:
            from llama_cpp.llama_chat_format import MTMDChatHandler

            handler = MTMDChatHandler(clip_model_path=str(cfg.mmproj), verbose=False, use_gpu=gpu)
        llm = llama_cpp.Llama(
            model_path=str(cfg.model),
            chat_handler=handler,
            n_ctx=cfg.n_ctx,
            n_gpu_layers=-1 if gpu else 0,
            n_threads=cfg.threads or None,
            seed=cfg.seed,
            verbose=False,
        )
        self.gpu_layers = -1 if gpu else 0
        return llm

    @property
    def has_vision(self) -> bool:
        return self.config.mmproj is not None

    def generate(
        self,
        system: str,
        prompt: str,
        *,
        grammar: str,
        image_png: bytes | None = None,
        temperature: float = 0.7,
        seed: int = 0,
        max_tokens: int = 384,
    ) -> Generation:
        """One grammar-constrained chat completion (with the image when there is an mmproj)."""
        self.load()
        from llama_cpp import LogitsProcessorList
        from llama_cpp.llama_grammar import LlamaGrammar

        content: Any = prompt
        if image_png is not None and self.has_vision:
            url = "data:image/png;base64," + base64.b64encode(image_png).decode("ascii")
            content = [{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": prompt}]
        recorder = _ProbRecorder()
        started = time.perf_counter()
        try:
            result = self._llm.create_chat_completion(
                messages=[{"role": "system", "content": system}, {"role": "user", "content": content}],
                grammar=LlamaGrammar.from_string(grammar, verbose=False),
                temperature=temperature,
                seed=seed,
                max_tokens=max_tokens,
                logits_processor=LogitsProcessorList([recorder]),
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelUnavailable(
                # Translators: spoken when the description model fails while describing a panel.
                _("The description model failed on this panel."),
                detail=repr(exc),
            ) from exc
        seconds = time.perf_counter() - started
        choice = result["choices"][0]
        text = choice["message"]["content"] or ""
        tokens = tuple(
            TokenProb(tok, self._piece(tok), lp) for tok, lp in recorder.logprobs if tok != self._eos()
        )
        return Generation(
            text=text,
            tokens=tokens,
            seconds=seconds,
            prompt_tokens=int(result.get("usage", {}).get("prompt_tokens", 0)),
            finish_reason=str(choice.get("finish_reason") or ""),
        )

    def _piece(self, token: int) -> bytes:
        return bytes(self._llm.detokenize([token]))

    def _eos(self) -> int:
        return int(self._llm.token_eos())

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            self._llm = None


def entry_for(name: str | None, registry: ModelRegistry) -> ModelEntry:
    """The named model (or the first vision model added, else the first text model)."""
    try:
        return registry.get(name, None if name else ModelRole.VLM)
    except ModelUnavailable:
        if name is not None:
            raise
        return registry.get(None, ModelRole.LLM)


def backend_for(name: str | None, registry: ModelRegistry, device: Device = Device.AUTO) -> LlamaBackend:
    """A backend for the named model (or the first vision model added)."""
    entry = entry_for(name, registry)
    read_gguf_info(entry.path)  # a moved or damaged file fails here with a clear message
    return LlamaBackend(BackendConfig(entry.path, entry.mmproj, device=device))
