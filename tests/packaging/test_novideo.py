"""OpenCV with FFmpeg and libavif replaced by the build's stand-ins (packaging/novideo).

The wheels' layout is rebuilt in a temporary folder with the stand-ins in place of the
real libraries and without the codec libraries only those needed (libaom, libdav1d,
libvpx, OpenSSL 1.1, ...). A child Python imports cv2 from there and runs what Panelvox
and rapidocr call; PNG/JPEG still encode and decode, AVIF and unknown data fail cleanly,
and a VideoCapture or an AVIF encoding stops the process with a plain message instead of
running on into a crash.
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
    return load_build_script("novideo/build_novideo.py")


CHECKS = textwrap.dedent(
    """
    import sys
    import cv2
    import numpy as np

    assert cv2.__file__.startswith(sys.argv[1]), cv2.__file__
    maps = open("/proc/self/maps").read()
    for gone in ("libaom-", "libdav1d-", "libvpx-", "libswresample-", "libssl-"):
        assert gone not in maps, gone

    rng = np.random.default_rng(3)
    rgb = np.full((240, 320, 3), 255, np.uint8)
    cv2.rectangle(rgb, (20, 20), (150, 200), (0, 0, 0), 3)
    cv2.rectangle(rgb, (170, 20), (300, 200), (0, 0, 0), 3)
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    small = cv2.resize(grey, (160, 120), interpolation=cv2.INTER_AREA)
    assert small.shape == (120, 160)
    ink = (grey < 128).astype(np.uint8)
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    assert len(contours) == 2
    n, _, stats, _ = cv2.connectedComponentsWithStats(1 - closed)
    assert n >= 3 and stats[:, cv2.CC_STAT_AREA].max() > 1000
    dist = cv2.distanceTransform(1 - closed, cv2.DIST_L2, 3)
    assert dist.max() > 10
    h = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [100, 0], [100, 80], [0, 80]]), np.float32([[2, 1], [98, 4], [95, 77], [1, 82]])
    )
    assert cv2.warpPerspective(rgb, h, (320, 240)).shape == rgb.shape
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB)
    assert lab.shape == rgb.shape
    faces = cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_default.xml")
    assert not faces.empty()
    faces.detectMultiScale(grey)

    # PNG and JPEG still go through OpenCV's own codecs
    for ext in (".png", ".jpg"):
        ok, buf = cv2.imencode(ext, rgb)
        assert ok, ext
        back = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert back is not None and back.shape == rgb.shape, ext
    # unknown data probes every decoder (the AVIF one too) and comes back empty
    assert cv2.imdecode(rng.integers(0, 255, 4096, dtype=np.uint8), cv2.IMREAD_COLOR) is None
    print("novideo ok")
    """
)


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    builder = _builder()
    site = Path(sysconfig.get_paths()["purelib"])
    cv2_dir = site / "cv2"
    modules = sorted(cv2_dir.glob("cv2*.so"))
    libs_dirs = sorted(site.glob("opencv_python*.libs"))
    if not modules or not libs_dirs:
        pytest.skip("opencv-python-headless (with its bundled libraries) is not installed")
    if builder.compiler() is None:
        pytest.skip("no C compiler")
    stand_ins = builder.stand_ins(modules[0])
    if not stand_ins:
        pytest.skip("this OpenCV links no FFmpeg/libavif")
    root = tmp_path_factory.mktemp("novideo") / "site"
    root.mkdir()
    shutil.copytree(cv2_dir, root / "cv2", ignore=shutil.ignore_patterns("__pycache__"))
    replaced = {s.name for s in stand_ins}
    dropped = builder.unneeded_after(libs_dirs[0], modules[0], replaced)
    assert {"libaom", "libdav1d", "libvpx"} <= {n.split("-")[0] for n in dropped}
    libs = root / libs_dirs[0].name
    shutil.copytree(libs_dirs[0], libs, ignore=lambda _d, names: (dropped | replaced) & set(names))
    for stand_in in stand_ins:
        built = builder.build(stand_in, libs)
        assert built.stat().st_size < 100_000
    shutil.rmtree(libs / "src")
    return root


def _python(root: Path, code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "checks.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script), str(root)],
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_what_panelvox_uses_works_without_the_codecs(layout: Path, tmp_path: Path) -> None:
    proc = _python(layout, CHECKS, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("novideo ok")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("cv2.VideoCapture(MOVIE, cv2.CAP_FFMPEG)", "no video support"),
        ("cv2.imencode('.avif', np.zeros((8, 8, 3), np.uint8))", "no AVIF encoding"),
    ],
)
def test_unused_codecs_stop_with_a_plain_message(
    layout: Path, tmp_path: Path, call: str, message: str
) -> None:
    movie = tmp_path / "movie.mp4"
    movie.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(64))
    code = f"import cv2\nimport numpy as np\nMOVIE = {str(movie)!r}\n{call}\nprint('still running')\n"
    proc = _python(layout, code, tmp_path)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "still running" not in proc.stdout
