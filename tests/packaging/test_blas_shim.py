"""OpenCV with its OpenBLAS replaced by the shim that forwards to NumPy's (packaging/blas_shim).

The wheels' layout is rebuilt in a temporary folder: cv2/, opencv_python_headless.libs/
without OpenCV's OpenBLAS, libgfortran and libquadmath but with the shim under OpenBLAS's
file name, and numpy.libs/. A child Python imports cv2 from there and checks, against
NumPy, every routine family that OpenCV sends to LAPACK/BLAS (matrices above OpenCV's
small-matrix thresholds, so the calls really go to the library).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from build_scripts import load_build_script

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _builder() -> ModuleType:
    return load_build_script("blas_shim/build_shim.py")


CHECKS = textwrap.dedent(
    """
    import sys
    import cv2
    import numpy as np

    assert cv2.__file__.startswith(sys.argv[1]), cv2.__file__
    maps = open("/proc/self/maps").read()
    assert "libgfortran-83" not in maps and "libquadmath-22" not in maps
    rng = np.random.default_rng(7)

    # gemm (cblas_sgemm/dgemm), above HAL_GEMM_SMALL_MATRIX_THRESH = 100
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal((160, 130)).astype(dtype)
        b = rng.standard_normal((130, 150)).astype(dtype)
        c = rng.standard_normal((160, 150)).astype(dtype)
        got = cv2.gemm(a, b, 0.5, c, 2.0)
        tol = 1e-3 if dtype == np.float32 else 1e-9
        assert np.allclose(got, 0.5 * a @ b + 2.0 * c, atol=tol), dtype
        got_t = cv2.gemm(a, c, 1.0, None, 0.0, flags=cv2.GEMM_1_T)
        assert np.allclose(got_t, a.T @ c, atol=tol), dtype

    # LU solve (xgesv) and inverse (xgetrf), above HAL_LU_SMALL_MATRIX_THRESH = 100
    for dtype in (np.float32, np.float64):
        a = (rng.standard_normal((140, 140)) + 140 * np.eye(140)).astype(dtype)
        b = rng.standard_normal((140, 3)).astype(dtype)
        ok, x = cv2.solve(a, b, flags=cv2.DECOMP_LU)
        assert ok and np.allclose(a.astype(np.float64) @ x, b, atol=1e-3), dtype
        _, inv = cv2.invert(a, flags=cv2.DECOMP_LU)
        assert np.allclose(inv @ a, np.eye(140), atol=1e-3), dtype
        det = cv2.determinant(a.astype(np.float64))
        assert np.isclose(det, np.linalg.det(a.astype(np.float64)), rtol=1e-6)

    # Cholesky (xposv / xpotrf), above HAL_CHOLESKY_SMALL_MATRIX_THRESH = 100
    m = rng.standard_normal((130, 130))
    spd = m @ m.T + 130 * np.eye(130)
    rhs = rng.standard_normal((130, 2))
    ok, x = cv2.solve(spd, rhs, flags=cv2.DECOMP_CHOLESKY)
    assert ok and np.allclose(x, np.linalg.solve(spd, rhs), atol=1e-8)

    # SVD (xgesdd), above HAL_SVD_SMALL_MATRIX_THRESH = 25
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal((60, 40)).astype(dtype)
        w, u, vt = cv2.SVDecomp(a)
        assert np.allclose(np.sort(w.ravel())[::-1], np.linalg.svd(a.astype(np.float64),
                           compute_uv=False), atol=1e-3), dtype
        assert np.allclose((u * w.ravel()) @ vt, a, atol=1e-3), dtype
        ok, x = cv2.solve(a, rng.standard_normal((60, 1)).astype(dtype), flags=cv2.DECOMP_SVD)
        assert ok

    # least squares by QR (xgels / xgeqrf), above HAL_QR_SMALL_MATRIX_THRESH = 30
    a = rng.standard_normal((80, 50))
    b = rng.standard_normal((80, 1))
    ok, x = cv2.solve(a, b, flags=cv2.DECOMP_QR | cv2.DECOMP_NORMAL)
    ok2, x2 = cv2.solve(a, b, flags=cv2.DECOMP_QR)
    ref = np.linalg.lstsq(a, b, rcond=None)[0]
    assert ok2 and np.allclose(x2, ref, atol=1e-6)

    # what Panelvox itself calls (warpPerspective's 8x8 system stays in OpenCV's own code)
    src = np.float32([[0, 0], [100, 0], [100, 80], [0, 80]])
    dst = np.float32([[3, 2], [97, 5], [95, 77], [1, 82]])
    h = cv2.getPerspectiveTransform(src, dst)
    assert h.shape == (3, 3)
    print("shim ok")
    """
)


def test_opencv_runs_on_numpys_openblas_through_the_shim(tmp_path: Path) -> None:
    builder = _builder()
    site = Path(sysconfig.get_paths()["purelib"])
    libs = builder.find_wheel_libraries(site)
    if libs is None:
        pytest.skip("opencv-python-headless with its own OpenBLAS and numpy are not both installed")
    if builder.compiler() is None:
        pytest.skip("no C compiler")
    layout = tmp_path / "site"
    layout.mkdir()
    shutil.copytree(site / "cv2", layout / "cv2", ignore=shutil.ignore_patterns("__pycache__"))
    cv_libs = layout / libs.opencv_openblas.parent.name
    dropped = {libs.opencv_openblas.name, *(p.name for p in libs.opencv_fortran)}
    shutil.copytree(libs.opencv_openblas.parent, cv_libs, ignore=lambda _d, names: dropped & set(names))
    (layout / "numpy.libs").symlink_to(libs.numpy_openblas.parent, target_is_directory=True)
    shim = builder.build_shim(libs.numpy_openblas, libs.opencv_openblas.name, cv_libs)
    assert shim.stat().st_size < 1_000_000  # a few kB instead of 39 MB
    script = tmp_path / "checks.py"
    script.write_text(CHECKS, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script), str(layout)],
        env={"PYTHONPATH": str(layout), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("shim ok")
