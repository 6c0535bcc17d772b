"""The one place onnxruntime sessions are made (the OCR models and any ONNX detector).

Every session gets the same options and the same device rule: CUDA when it is asked for or
:attr:`Device.AUTO` finds it (onnxruntime-gpu on a machine with an NVIDIA GPU), else the CPU;
a CUDA session that fails to load is made again on the CPU, with a line in the log.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from panelvox.checksum import sha256_of, sha256_remembered
from panelvox.errors import ModelUnavailable
from panelvox.i18n import _
from panelvox.models.device import Device

if TYPE_CHECKING:
    from onnxruntime import InferenceSession, SessionOptions

log = logging.getLogger(__name__)

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def choose_providers(device: Device, available: Sequence[str]) -> list[str]:
    """onnxruntime execution providers in preference order; CPU is always last."""
    if device is not Device.CPU and CUDA in available:
        return [CUDA, CPU]
    if device is Device.GPU:
        log.warning("GPU requested but onnxruntime offers only %s; using the CPU", list(available))
    return [CPU]


def create_session(
    path: Path,
    device: Device = Device.AUTO,
    *,
    threads: int | None = None,
    message: str | None = None,
    optimized_dir: Path | None = None,
) -> InferenceSession:
    """An onnxruntime session for the model at ``path`` on ``device`` (see the module docstring).

    ``threads`` caps onnxruntime's intra-op threads (None: onnxruntime decides). A missing
    or unloadable model raises :class:`ModelUnavailable` with ``message`` as the sentence the
    user hears (a general one when None). With ``optimized_dir``, a CPU session is made from
    the model's graph as onnxruntime already optimised it once (see :func:`_optimized`).
    """
    # Already set when panelvox was imported (see panelvox/__init__.py); repeated right before
    # the import it has to precede (onnxruntime's telemetry starts on import), so the session
    # factory does not depend on a line elsewhere.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

    def unavailable(exc: BaseException) -> ModelUnavailable:
        return ModelUnavailable(
            # Translators: spoken when a model file cannot be loaded.
            message or _("A model could not be loaded."),
            detail=f"onnxruntime could not load {path}: {exc!r}",
        )

    if not path.is_file():
        raise unavailable(FileNotFoundError(str(path)))
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.enable_cpu_mem_arena = False  # keeps peak memory down on large pages
    if threads is not None and threads > 0:
        opts.intra_op_num_threads = threads
    # onnxruntime's own exceptions derive from Exception only, not RuntimeError
    errors = (
        OSError,
        RuntimeError,
        ValueError,
        ort_state.Fail,
        ort_state.InvalidArgument,
        ort_state.InvalidGraph,
        ort_state.InvalidProtobuf,
        ort_state.NoSuchFile,
        ort_state.RuntimeException,
    )
    providers = choose_providers(device, ort.get_available_providers())
    if optimized_dir is not None and providers == [CPU]:
        ready = _optimized(path, optimized_dir, opts)
        if ready is not None:
            try:
                return ort.InferenceSession(str(ready), sess_options=opts, providers=providers)
            except errors as exc:  # a damaged copy: made again next time
                log.warning("optimised copy %s not loaded (%r); using %s", ready, exc, path)
                ready.unlink(missing_ok=True)
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=providers)
    except errors as exc:
        if providers[0] == CPU:
            raise unavailable(exc) from exc
        log.warning("%s failed to load %s (%r); falling back to the CPU", providers[0], path, exc)
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=[CPU])
    except errors as exc:
        raise unavailable(exc) from exc


def _optimized(path: Path, folder: Path, opts: SessionOptions) -> Path | None:
    """The model at ``path`` with onnxruntime's graph optimisations applied and saved (once:
    kept in ``folder`` under the model's size, modification time and onnxruntime's version),
    or None when it cannot be made.

    Saved at the extended level (fusions, constant folding), which any CPU can run; the
    layout rewrites of the full level, which depend on this CPU, still happen at load. That
    takes a third off a session's creation (the two text models: 0.17 -> 0.11 s of CPU),
    with the same outputs. A copy left by another onnxruntime version stays until the cache
    is cleared. The copy's sha256 is written beside it when it is made and checked at each use
    (remembered while the file is untouched): a damaged copy is made again, never run.
    """
    import onnxruntime as ort

    st = path.stat()
    target = folder / f"{path.stem}.{st.st_size}-{st.st_mtime_ns}.ort{ort.__version__}.onnx"
    sealed = target.with_name(target.name + ".sha256")  # the copy's digest, written with it
    checksums = folder / "checksums.json"
    if target.is_file():
        try:
            if sha256_remembered(target, checksums) == sealed.read_text(encoding="ascii").strip():
                return target
        except OSError:
            pass
        log.warning("optimised copy %s is damaged; making it again", target)
        target.unlink(missing_ok=True)  # a damaged copy would still load, with wrong weights
    save = ort.SessionOptions()
    save.log_severity_level = opts.log_severity_level
    save.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".making-", suffix=".onnx")
        os.close(fd)
        try:
            save.optimized_model_filepath = tmp
            ort.InferenceSession(str(path), sess_options=save, providers=[CPU])
            sealed.write_text(sha256_of(Path(tmp)) + "\n", encoding="ascii")
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
    except Exception as exc:  # noqa: BLE001 -- onnxruntime's errors derive from Exception only
        log.info("no optimised copy of %s: %r", path, exc)
        return None
    return target
