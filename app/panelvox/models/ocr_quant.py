"""Int8 versions of the OCR models, made on this machine from the rapidocr wheel's models.

Nothing is downloaded and no page of the user's is looked at: the text detector is
quantized statically (QDQ, int8 weights per output channel, uint8 activations, convolutions
only) with onnxruntime's quantization tools, from activation ranges measured once on the
sample book's public-domain pages and pages Panelvox renders itself
(``scripts/make_ocr_calibration.py`` writes ``data/det_calibration.json``, shipped with the
package). Given the same wheel model and ranges the result is the same file, byte for
byte; it is made on first use into the cache folder and checked by sha256 like the
originals, and a file that does not match is neither kept nor used.

The recognition model stays fp32: static int8 of its convolutions made it 0.77x as slow but
changed a third of the lines read on cib pages, and dynamic int8 is 3.3x slower here (see
docs/benchmarks.md, "Speed").
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from panelvox.checksum import sha256_of, sha256_remembered
from panelvox.errors import ModelNotSaved, ModelUnavailable
from panelvox.i18n import _
from panelvox.paths import Kind, folder

log = logging.getLogger(__name__)

#: the ONNX opset the quantized graph is written in (per-channel QDQ needs 13)
OPSET = 13
PRECISIONS = ("int8", "fp32")
#: set by ``panelvox --precision`` for the process and the workers it starts
PRECISION_ENV = "PANELVOX_PRECISION"


def chosen_precision() -> str:
    """The text models' precision: ``panelvox --precision``, else the ``"analysis"`` section's
    ``"precision"`` in settings.json, else fp32.

    fp32 is the default because the int8 detector, measured with ``panelvox eval``, loses more
    than a point on some metrics (cib dialogue recall 0.842 -> 0.820, openmantra detection
    Hmean 0.811 -> 0.798 on 40 pages each; docs/benchmarks.md) for about a tenth of the
    detector's time: a wrong or missing word costs the listener more than 0.1 s a page."""
    from panelvox.jsonfile import read_json_object
    from panelvox.paths import config_dir

    env = os.environ.get(PRECISION_ENV, "")
    if env in PRECISIONS:
        return env
    section = read_json_object(config_dir() / "settings.json").get("analysis")
    value = section.get("precision") if isinstance(section, dict) else None
    return value if value in PRECISIONS else "fp32"


@dataclass(frozen=True, slots=True)
class QuantizedModel:
    """An int8 model made from a bundled one: its file name, ranges and expected sha256."""

    source_sha256: str  # the fp32 model it is made from
    filename: str
    calibration: str  # a file in panelvox/models/data
    sha256: str


QUANT_DET = QuantizedModel(
    source_sha256="090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f",
    filename="PP-OCRv6_det_small.int8.onnx",
    calibration="det_calibration.json",
    sha256="b5bbf49a5684dfbb7584e5a21434a3873403b7880b51f13dee41fec3000ff511",
)


def models_cache_dir() -> Path:
    """Where made models are kept (remade when missing)."""
    return folder(Kind.CACHE) / "models"


def calibration_path(name: str) -> Path:
    return Path(str(resources.files("panelvox.models").joinpath(f"data/{name}")))


def model_sha256(path: Path) -> str:
    """The sha256 of a model file checked at every start, hashed again only when the file
    changed (remembered in the made models' folder, see :func:`panelvox.checksum.sha256_remembered`):
    hashing the two text models cost about 30 ms of each start."""
    return sha256_remembered(path, models_cache_dir() / "checksums.json")


def make_int8(source: Path, calibration: Path, target: Path, reader: Any = None) -> None:
    """Quantize ``source`` to ``target`` with the activation ranges in ``calibration`` -- the
    one int8 recipe. With ``reader`` (an onnxruntime ``CalibrationDataReader``) the ranges are
    measured on its inputs and written to ``calibration`` first (scripts/make_ocr_calibration.py)."""
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    model = version_converter.convert_version(onnx.load(str(source)), OPSET)
    with tempfile.TemporaryDirectory(prefix="panelvox-quant-") as tmp:
        upgraded = Path(tmp) / "opset13.onnx"
        onnx.save(model, str(upgraded))
        quantize_static(
            str(upgraded),
            str(target),
            reader,
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            op_types_to_quantize=["Conv"],
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibration_cache_path=str(calibration),
        )


def int8_model(source: Path, quant: QuantizedModel, cache: Path | None = None) -> Path:
    """The int8 model made from ``source``: from the cache when it is there and verified,
    else made now (a second or two) and verified. :class:`ModelUnavailable` when it cannot
    be made or does not come out as pinned (another onnxruntime or onnx version)."""
    # Translators: logged and shown by the doctor when the faster text model cannot be made.
    failed = _("The faster text model could not be made; the full-precision one is used.")

    def make(src: Path, target: Path) -> None:
        make_int8(src, calibration_path(quant.calibration), target)

    return made_model(source, quant.source_sha256, quant.filename, quant.sha256, make, cache, failed)


T = TypeVar("T")


def load_made(make: Callable[[Path | None], Path], load: Callable[[Path, bool], T], cache: Path | None) -> T:
    """``load(path, kept)`` of the model that ``make(folder)`` makes (or finds) in ``folder``:
    ``cache`` first (None: :func:`models_cache_dir`); where the model cannot be kept there (a
    read-only or full home), a temporary folder of this process, removed once the model is
    loaded (``kept`` False: nothing derived from it is worth keeping either), so the page is
    read with the same model as on a writable machine. :class:`ModelUnavailable` when it
    cannot be made at all (the caller falls back to the model it was made from)."""
    try:
        return load(make(cache), True)
    except ModelNotSaved as exc:
        log.warning("%s; making it in a temporary folder", exc.detail)
    try:
        with tempfile.TemporaryDirectory(prefix="panelvox-model-", ignore_cleanup_errors=True) as tmp:
            return load(make(Path(tmp)), False)
    except OSError as exc:  # no temporary folder either
        raise ModelNotSaved(_("A model could not be made."), detail=f"no temporary folder: {exc!r}") from exc


def made_model(
    source: Path,
    source_sha256: str,
    filename: str,
    sha256: str,
    make: Callable[[Path, Path], None],
    cache: Path | None,
    failed: str,
) -> Path:
    """The model ``make`` derives from ``source`` (pinned as ``source_sha256``) as
    ``filename`` in ``cache`` (None: :func:`models_cache_dir`): taken from there when its
    sha256 is ``sha256``, else made now, written atomically and verified.
    :class:`ModelUnavailable` (``failed``, and what differed) when it cannot be made as pinned;
    :class:`ModelNotSaved` when ``cache`` cannot hold it (the caller may make it elsewhere:
    :func:`load_made`)."""
    target = (cache or models_cache_dir()) / filename
    try:
        if target.is_file() and model_sha256(target) == sha256:
            return target
    except OSError as exc:  # an unreadable cache is a miss
        log.info("made model %s not read: %r", target, exc)
    if model_sha256(source) != source_sha256:
        raise ModelUnavailable(failed, detail=f"{source} is not the model {filename} is made from")
    try:
        # inside the error handling: a read-only or full home, or a cache folder that is a
        # file, must end in the caller's fall-back (issue 32), never in the stage's failure
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=".making-", suffix=".onnx")
        os.close(fd)
    except OSError as exc:
        raise ModelNotSaved(
            failed, detail=f"no place to make {filename} in {target.parent}: {exc!r}"
        ) from exc
    tmp = Path(tmp_name)
    try:
        try:
            make(source, tmp)
        except (ImportError, OSError, ValueError, RuntimeError) as exc:
            # a write that failed (a full disk) is a place problem; anything else is the recipe's
            error = ModelNotSaved if isinstance(exc, OSError) else ModelUnavailable
            raise error(failed, detail=f"making {filename} from {source}: {exc!r}") from exc
        got = sha256_of(tmp)
        if got != sha256:
            raise ModelUnavailable(failed, detail=f"{filename} came out as sha256 {got}, not {sha256}")
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise ModelNotSaved(failed, detail=f"keeping {target}: {exc!r}") from exc
        log.info("made %s", target)
        return target
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
