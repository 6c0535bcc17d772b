"""The model registry: which language/vision models the user added, where they are, their sha256.

A model pack is a GGUF text model and, for a vision-language model, its GGUF "mmproj"
(the image encoder). ``panelvox models add MODEL.gguf --mmproj MMPROJ.gguf`` checks both
files (a readable GGUF header, an architecture and projector this llama.cpp runs), records
their sha256 and size in ``$XDG_DATA_HOME/panelvox/models.json`` and never copies or
downloads anything. ``panelvox models check`` re-verifies every entry.

The GGUF header is parsed here (only the key/value section; the tensors are never read),
with limits, so a hostile or truncated file is refused with a clear message instead of
exhausting memory. Writing the manifest is atomic (temporary file + :func:`os.replace`).
"""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, BinaryIO

from panelvox import paths
from panelvox.checksum import sha256_of
from panelvox.errors import ModelUnavailable
from panelvox.i18n import _
from panelvox.jsonfile import read_json_object, write_json_atomic

log = logging.getLogger(__name__)

MANIFEST_FORMAT = "panelvox.models/1"
GGUF_MAGIC = b"GGUF"

#: Text-model architectures (``general.architecture``) of the families Panelvox documents.
#: Any architecture llama.cpp runs would load; these are the ones whose chat templates and
#: vision pairing were considered (see docs/benchmarks.md for what was actually run).
TEXT_ARCHITECTURES: dict[str, str] = {
    "llama": "Llama / SmolVLM text model / LLaVA",
    "qwen2": "Qwen2 / Qwen2.5",
    "qwen2vl": "Qwen2-VL / Qwen2.5-VL",
    "qwen3": "Qwen3",
    "qwen3vl": "Qwen3-VL",
    "gemma3": "Gemma 3",
    "gemma3n": "Gemma 3n",
    "mistral3": "Mistral Small 3.x",
    "phi3": "Phi-3 / Phi-4 mini",
}
#: Vision projectors (``clip.projector_type`` of the mmproj) of the llama.cpp in llama-cpp-python
#: 0.3.36 (tools/mtmd/clip-impl.h) that the generic MTMD chat handler runs.
VISION_PROJECTORS: dict[str, str] = {
    "mlp": "LLaVA 1.5 style MLP",
    "mlp_norm": "MLP with norms",
    "ldp": "MobileVLM",
    "ldpv2": "MobileVLM v2",
    "qwen2vl_merger": "Qwen2-VL",
    "qwen2.5vl_merger": "Qwen2.5-VL",
    "qwen3vl_merger": "Qwen3-VL",
    "gemma3": "Gemma 3",
    "idefics3": "SmolVLM / Idefics3",
    "pixtral": "Pixtral / Mistral Small 3.1",
    "internvl": "InternVL",
    "llama4": "Llama 4",
}
# Limits for a header read from an untrusted file.
_MAX_KV = 100_000
_MAX_STRING = 64 * 1024 * 1024  # a tokenizer's vocabulary is stored as one array of strings
_MAX_ARRAY = 10_000_000


class ModelRole(Enum):
    VLM = "vlm"  # text model + mmproj: describes panel images
    LLM = "llm"  # text only: answers from the verified structure


@dataclass(frozen=True, slots=True)
class GgufInfo:
    """What the header of a GGUF file says about it."""

    path: Path
    version: int
    tensor_count: int
    architecture: str
    name: str | None
    size_bytes: int
    projector: str | None = None  # mmproj files only
    has_vision: bool = False
    has_chat_template: bool = False
    context_length: int | None = None
    embedding_length: int | None = None


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One model the user added (a line of ``models.json``)."""

    name: str
    role: ModelRole
    path: Path
    sha256: str
    size_bytes: int
    architecture: str
    mmproj: Path | None = None
    mmproj_sha256: str | None = None
    mmproj_size_bytes: int = 0
    projector: str | None = None
    license: str = "unknown (see the model's card)"
    source: str = "user"

    @property
    def total_bytes(self) -> int:
        return self.size_bytes + self.mmproj_size_bytes

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["role"] = self.role.value
        out["path"] = str(self.path)
        out["mmproj"] = str(self.mmproj) if self.mmproj is not None else None
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ModelEntry:
        return cls(
            name=str(data["name"]),
            role=ModelRole(data["role"]),
            path=Path(data["path"]),
            sha256=str(data["sha256"]),
            size_bytes=int(data["size_bytes"]),
            architecture=str(data["architecture"]),
            mmproj=Path(data["mmproj"]) if data.get("mmproj") else None,
            mmproj_sha256=data.get("mmproj_sha256"),
            mmproj_size_bytes=int(data.get("mmproj_size_bytes", 0)),
            projector=data.get("projector"),
            license=str(data.get("license", "unknown (see the model's card)")),
            source=str(data.get("source", "user")),
        )


@dataclass(frozen=True, slots=True)
class CheckResult:
    entry: ModelEntry
    ok: bool
    problems: tuple[str, ...] = field(default=())


# -- GGUF header ---------------------------------------------------------------------------------
def _bad_file(path: Path, detail: str) -> ModelUnavailable:
    return ModelUnavailable(
        # Translators: spoken when a file given as a model is not a usable GGUF model.
        _("{file} is not a readable GGUF model file.").format(file=path.name),
        detail=f"{path}: {detail}",
    )


class _Reader:
    def __init__(self, fh: BinaryIO, path: Path) -> None:
        self.fh, self.path = fh, path

    def take(self, n: int) -> bytes:
        data = self.fh.read(n)
        if len(data) != n:
            raise _bad_file(self.path, "truncated header")
        return data

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def u64(self) -> int:
        return int(struct.unpack("<Q", self.take(8))[0])

    def string(self) -> str:
        n = self.u64()
        if n > _MAX_STRING:
            raise _bad_file(self.path, f"string of {n} bytes")
        return self.take(n).decode("utf-8", errors="replace")

    def value(self, vtype: int, keep: bool) -> Any:
        scalar = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q"}
        scalar[12] = "<d"
        if vtype in scalar:
            fmt = scalar[vtype]
            return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]
        if vtype == 8:
            return self.string()
        if vtype == 9:
            item_type, n = self.u32(), self.u64()
            if n > _MAX_ARRAY:
                raise _bad_file(self.path, f"array of {n} items")
            if item_type in scalar and not keep:
                size = struct.calcsize(scalar[item_type]) * n
                self.fh.seek(size, os.SEEK_CUR)
                return None
            items = [self.value(item_type, keep) for _ in range(n)]
            return items if keep else None
        raise _bad_file(self.path, f"unknown value type {vtype}")


def read_gguf_info(path: Path) -> GgufInfo:
    """Parse the key/value header of a GGUF file (tensors are not read).

    Raises :class:`ModelUnavailable` for a missing, truncated or non-GGUF file.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            r = _Reader(fh, path)
            if r.take(4) != GGUF_MAGIC:
                raise _bad_file(path, "no GGUF magic")
            version = r.u32()
            if version not in (2, 3):
                raise _bad_file(path, f"GGUF version {version}")
            n_tensors, n_kv = r.u64(), r.u64()
            if n_kv > _MAX_KV:
                raise _bad_file(path, f"{n_kv} header keys")
            kv: dict[str, Any] = {}
            for _i in range(n_kv):
                key = r.string()
                vtype = r.u32()
                # Arrays (vocabularies, merges) are skipped, scalars kept.
                kv[key] = r.value(vtype, keep=vtype != 9)
    except FileNotFoundError as exc:
        raise ModelUnavailable(
            # Translators: spoken when a model file named by the user does not exist.
            _("The model file {file} was not found.").format(file=path.name),
            detail=str(exc),
        ) from exc
    except OSError as exc:
        raise _bad_file(path, repr(exc)) from exc
    arch = kv.get("general.architecture")
    if not isinstance(arch, str):
        raise _bad_file(path, "no general.architecture")
    projector = kv.get("clip.projector_type") or kv.get("clip.vision.projector_type")
    return GgufInfo(
        path=path,
        version=version,
        tensor_count=n_tensors,
        architecture=arch,
        name=kv.get("general.name") if isinstance(kv.get("general.name"), str) else None,
        size_bytes=size,
        projector=projector if isinstance(projector, str) else None,
        has_vision=bool(kv.get("clip.has_vision_encoder", False)),
        has_chat_template="tokenizer.chat_template" in kv,
        context_length=_int_or_none(kv.get(f"{arch}.context_length")),
        embedding_length=_int_or_none(kv.get(f"{arch}.embedding_length")),
    )


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def check_pair(model: GgufInfo, mmproj: GgufInfo | None) -> list[str]:
    """Why a model (and its mmproj) cannot run here; empty when they can."""
    problems = []
    if model.architecture == "clip":
        # Translators: the user gave an image encoder (mmproj) where the text model belongs.
        problems.append(
            _("{file} is an image encoder (mmproj), not a text model.").format(file=model.path.name)
        )
    elif model.architecture not in TEXT_ARCHITECTURES:
        problems.append(
            # Translators: a model family Panelvox does not run; {arch} is e.g. "mamba".
            _("Models of the {arch} family are not supported.").format(arch=model.architecture)
        )
    if mmproj is not None:
        if mmproj.architecture != "clip" or not mmproj.has_vision:
            problems.append(
                # Translators: the file given with --mmproj has no image encoder.
                _("{file} is not an image encoder (mmproj).").format(file=mmproj.path.name)
            )
        elif mmproj.projector not in VISION_PROJECTORS:
            problems.append(
                # Translators: an image encoder of a kind Panelvox does not run.
                _("Image encoders of the {kind} kind are not supported.").format(kind=mmproj.projector)
            )
    return problems


# -- the manifest ---------------------------------------------------------------------------------


def manifest_path() -> Path:
    """``$XDG_DATA_HOME/panelvox/models.json``."""
    return paths.data_dir() / "models.json"


class ModelRegistry:
    """The user's models, read from and written to ``models.json``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or manifest_path()

    def entries(self) -> list[ModelEntry]:
        data = read_json_object(self.path)  # {} when missing or damaged (logged)
        if not data:
            return []
        out = []
        if data.get("format") != MANIFEST_FORMAT:
            log.warning("model manifest %s has an unknown format", self.path)
            return []
        for item in data.get("models", []):
            try:
                out.append(ModelEntry.from_json(item))
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("skipping a damaged model entry %r: %r", item, exc)
        return out

    def get(self, name: str | None = None, role: ModelRole | None = None) -> ModelEntry:
        """The entry called ``name``, or the first of ``role`` when no name is given."""
        for entry in self.entries():
            if (name is None or entry.name == name) and (role is None or entry.role is role):
                return entry
        if name is not None:
            # Translators: the model the user named is not in the list of added models.
            message = _("No model called {name} has been added.").format(name=name)
        else:
            # Translators: spoken when a description is asked for but no model was added.
            message = _("No description model has been added. Use panelvox models add.")
        raise ModelUnavailable(message, detail=f"manifest {self.path}")

    def add(
        self,
        model: Path,
        mmproj: Path | None = None,
        *,
        name: str | None = None,
        license: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> ModelEntry:
        """Verify and record a model; re-adding a name replaces its entry."""
        model, mmproj = Path(model).resolve(), Path(mmproj).resolve() if mmproj else None
        info = read_gguf_info(model)
        proj = read_gguf_info(mmproj) if mmproj is not None else None
        problems = check_pair(info, proj)
        if problems:
            raise ModelUnavailable(problems[0], detail="; ".join(problems))
        entry = ModelEntry(
            name=name or model.stem,
            role=ModelRole.VLM if mmproj is not None else ModelRole.LLM,
            path=model,
            sha256=sha256_of(model, progress),
            size_bytes=info.size_bytes,
            architecture=info.architecture,
            mmproj=mmproj,
            mmproj_sha256=sha256_of(mmproj, progress) if mmproj is not None else None,
            mmproj_size_bytes=proj.size_bytes if proj is not None else 0,
            projector=proj.projector if proj is not None else None,
            license=license or "unknown (see the model's card)",
        )
        kept = [e for e in self.entries() if e.name != entry.name]
        self._write([*kept, entry])
        return entry

    def remove(self, name: str) -> bool:
        entries = self.entries()
        kept = [e for e in entries if e.name != name]
        if len(kept) != len(entries):
            self._write(kept)
        return len(kept) != len(entries)

    def check(self, entry: ModelEntry, *, hash_files: bool = True) -> CheckResult:
        """Whether an entry's files are still there, unchanged and loadable."""
        problems: list[str] = []
        files: Sequence[tuple[Path | None, str | None, int]] = (
            (entry.path, entry.sha256, entry.size_bytes),
            (entry.mmproj, entry.mmproj_sha256, entry.mmproj_size_bytes),
        )
        infos: list[GgufInfo | None] = []
        for path, digest, size in files:
            if path is None:
                infos.append(None)
                continue
            try:
                info = read_gguf_info(path)
            except ModelUnavailable as exc:
                problems.append(exc.message)
                infos.append(None)
                continue
            infos.append(info)
            changed = info.size_bytes != size or (hash_files and sha256_of(path) != digest)
            if changed:
                # Translators: a model file changed since it was added (sha256 or size differs).
                problems.append(_("{file} has changed since it was added.").format(file=path.name))
        if infos[0] is not None and (entry.mmproj is None or infos[1] is not None):
            problems.extend(check_pair(infos[0], infos[1]))
        return CheckResult(entry, not problems, tuple(problems))

    def _write(self, entries: Sequence[ModelEntry]) -> None:
        data = {"format": MANIFEST_FORMAT, "models": [e.to_json() for e in entries]}
        write_json_atomic(self.path, data, indent=2)
