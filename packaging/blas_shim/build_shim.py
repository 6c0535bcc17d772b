"""Build the library that forwards OpenCV's BLAS/LAPACK calls to NumPy's OpenBLAS.

The spec (packaging/panelvox.spec) calls :func:`build_shim` and puts the result in place of
the opencv-python wheel's own OpenBLAS, under that library's file name, so the build ships
one OpenBLAS instead of two (39 MB less). See cv2_openblas_shim.c for the why and how.

    python packaging/blas_shim/build_shim.py OUT_DIR   # build it by hand, next to the venv's
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).resolve().with_name("cv2_openblas_shim.c")


@dataclass(frozen=True)
class WheelLibraries:
    """The two OpenBLAS copies in site-packages: OpenCV's (replaced) and NumPy's (kept)."""

    opencv_openblas: Path  # opencv_python_headless.libs/libopenblasp-r0-....so
    opencv_fortran: tuple[Path, ...]  # libgfortran, libquadmath: needed by that OpenBLAS only
    numpy_openblas: Path  # numpy.libs/libscipy_openblas64_-....so


def find_wheel_libraries(site_packages: Path) -> WheelLibraries | None:
    """The libraries of the installed opencv-python(-headless) and numpy wheels, if both are there."""
    cv_libs = sorted(site_packages.glob("opencv_python*.libs"))
    np_libs = site_packages / "numpy.libs"
    if not cv_libs or not np_libs.is_dir():
        return None
    openblas = sorted(cv_libs[0].glob("libopenblas*.so*"))
    numpy_openblas = sorted(np_libs.glob("libscipy_openblas64_*.so*"))
    if len(openblas) != 1 or len(numpy_openblas) != 1:
        return None
    fortran = tuple(sorted([*cv_libs[0].glob("libgfortran*"), *cv_libs[0].glob("libquadmath*")]))
    return WheelLibraries(openblas[0], fortran, numpy_openblas[0])


def compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc")


def build_shim(numpy_openblas: Path, soname: str, out_dir: Path) -> Path:
    """Compile the forwarding library as ``out_dir/soname``, linked to ``numpy_openblas``.

    It finds NumPy's OpenBLAS at run time in ``$ORIGIN/../numpy.libs`` (the wheels' layout,
    which PyInstaller keeps). Raises ``RuntimeError`` when there is no C compiler or the
    build fails.
    """
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc/gcc) to build the OpenBLAS shim")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / soname
    cmd = [
        cc,
        "-O2",
        "-shared",
        "-fPIC",
        "-Wall",
        "-Werror",
        f"-Wl,-soname,{soname}",
        "-Wl,-z,defs",  # every forwarded symbol must exist in NumPy's OpenBLAS
        "-Wl,-rpath,$ORIGIN/../numpy.libs",
        "-o",
        str(out),
        str(SOURCE),
        str(numpy_openblas),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"building the OpenBLAS shim failed: {proc.stderr.strip()}")
    return out


def main(argv: list[str]) -> int:
    import sysconfig

    libs = find_wheel_libraries(Path(sysconfig.get_paths()["purelib"]))
    if libs is None or len(argv) != 2:
        print("usage: build_shim.py OUT_DIR (needs opencv-python-headless and numpy)", file=sys.stderr)
        return 2
    print(build_shim(libs.numpy_openblas, libs.opencv_openblas.name, Path(argv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
