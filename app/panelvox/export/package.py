"""Where an export writes its files: a folder or a zip, built aside and moved into place only
when complete, so an interrupted export leaves no half publication (and a library batch
knows a finished book by its output alone)."""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from panelvox.export.audio_export import ExportError, write_audio
from panelvox.i18n import _

PARTIAL = ".partial"


def partial_path(out: Path) -> Path:
    """A hidden name to build ``out`` under, this process's own (a run killed on a cluster
    may leave a worker still writing its old one)."""
    return out.with_name(f".{out.name}.{os.getpid()}-{secrets.token_hex(3)}{PARTIAL}")


def clear_partials(out: Path) -> None:
    """Remove what interrupted exports of ``out`` left half-written: the book starts again."""
    for stale in out.parent.glob(f".{glob.escape(out.name)}.*{PARTIAL}"):
        remove(stale)


class Package:
    """Files of one publication, by their path inside it (``pages/page-001.jpg``)."""

    def __init__(self, staging: Path, zipped: bool, *, first: tuple[str, bytes] | None = None) -> None:
        self.staging = staging
        self.zip: zipfile.ZipFile | None = None
        if zipped:
            self.zip = zipfile.ZipFile(staging, "w", zipfile.ZIP_DEFLATED)
            if first is not None:  # EPUB: the uncompressed mimetype entry comes first
                self.zip.writestr(first[0], first[1], compress_type=zipfile.ZIP_STORED)
        else:
            staging.mkdir(parents=True)
            if first is not None:
                self.write_bytes(*first)
        self.audio_ext = "ogg" if shutil.which("sox") else "wav"

    @classmethod
    @contextlib.contextmanager
    def open(cls, out: Path, *, zipped: bool, first: tuple[str, bytes] | None = None) -> Iterator[Package]:
        """A package that becomes ``out`` when the block ends without an error."""
        staging = partial_path(out)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            clear_partials(out)
            package = cls(staging, zipped, first=first)
        except OSError as exc:
            raise _cannot_write(out, exc) from exc
        try:
            yield package
            package.close()
            remove(out)
            os.replace(staging, out)
        except OSError as exc:
            remove(staging)
            raise _cannot_write(out, exc) from exc
        except BaseException:
            package.close()
            remove(staging)
            raise

    def write_bytes(self, name: str, data: bytes) -> None:
        if self.zip is not None:
            self.zip.writestr(name, data)
            return
        path = self.staging / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def write_audio(self, name: str, samples: np.ndarray, sample_rate: int) -> None:
        """Audio as the name's type says (``.ogg`` through SoX, ``.wav``)."""
        if self.zip is None:
            write_audio(self.staging / name, samples, sample_rate)
            return
        with tempfile.TemporaryDirectory(prefix="panelvox-") as tmp:
            path = write_audio(Path(tmp) / Path(name).name, samples, sample_rate)
            self.zip.write(path, name, compress_type=zipfile.ZIP_STORED)

    def close(self) -> None:
        if self.zip is not None:
            self.zip.close()


def remove(path: Path) -> None:
    """Remove a file or a folder tree, if there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def write_file_atomic(out: Path, data: bytes) -> Path:
    """One file written aside and moved into place."""
    staging = partial_path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        clear_partials(out)
        staging.write_bytes(data)
        os.replace(staging, out)
    except OSError as exc:
        remove(staging)
        raise _cannot_write(out, exc) from exc
    return out


def _cannot_write(out: Path, exc: OSError) -> ExportError:
    # Translators: spoken when an exported publication cannot be written; {path} is where.
    return ExportError(_("Could not write the export {path}.").format(path=out), detail=repr(exc))
