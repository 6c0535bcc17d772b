"""OpenCV without its video and AVIF codecs: stand-in libraries for FFmpeg and libavif.

The opencv-python-headless wheel links FFmpeg (libavcodec, libavformat, libavutil,
libswscale) for ``cv2.VideoCapture``/``VideoWriter`` and libavif for AVIF in
``imread``/``imwrite``. Panelvox never calls any of them (pages are decoded by Pillow,
which has its own AVIF support), yet the dynamic linker needs every library named in
cv2.abi3.so, and with them come libaom, libdav1d, libvpx, libswresample, OpenSSL 1.1 and
libdrm: 45 MB. The build puts in their place small libraries of the same names that
define exactly the functions cv2 imports from them (with FFmpeg's symbol versions):

- libavif's: ``avifDecoderCreate`` returns NULL, so OpenCV's decoder probing in
  ``imdecode``/``imread`` finds no AVIF decoder and goes on (PNG, JPEG ... still work);
  encoding (``imwrite``/``imencode`` to .avif) prints that it is not in this build and
  aborts;
- FFmpeg's: reached only through ``cv2.VideoCapture``/``VideoWriter``; they print that
  video support is not in this build and abort.

    python packaging/novideo/build_novideo.py OUT_DIR   # build them by hand
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: library name prefix -> the FFmpeg symbol version prefix its exports carry
FFMPEG = {
    "libavcodec": "LIBAVCODEC_",
    "libavformat": "LIBAVFORMAT_",
    "libavutil": "LIBAVUTIL_",
    "libswscale": "LIBSWSCALE_",
}
AVIF = "libavif"
#: libavif's functions that OpenCV's codec registry (made on the first imread/imencode of
#: any format) and its AVIF decoder probing reach: "no decoder" (NULL), an encoder that
#: is a zeroed block (OpenCV's AvifEncoder sets its options in it when the registry is
#: made, and never checks for NULL), a message for an error code, and the no-op
#: destructors. Every other libavif function (encoding an image, decoding past a decoder
#: that was never made) aborts with a message.
AVIF_NULL = {"avifDecoderCreate"}
AVIF_BLOCK = {"avifEncoderCreate"}
AVIF_STRING = "avifResultToString"
AVIF_VOID = {"avifDecoderDestroy", "avifImageDestroy", "avifRWDataFree"}
AVIF_FREE = {"avifEncoderDestroy"}


@dataclass(frozen=True)
class StandIn:
    """One library to replace: its file name (= SONAME), symbol version, and the functions cv2 imports."""

    name: str
    version: str | None  # FFmpeg's version node ("LIBAVCODEC_62"); None for libavif
    symbols: tuple[str, ...]


def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def needed(library: Path) -> list[str]:
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", _run(["readelf", "-d", str(library)]))


def stand_ins(cv2_module: Path) -> list[StandIn]:
    """The FFmpeg and libavif libraries cv2.abi3.so needs, with the functions it takes from each."""
    imports: dict[str | None, set[str]] = {}
    for line in _run(["nm", "-D", "--undefined-only", str(cv2_module)]).splitlines():
        symbol = line.split()[-1]
        name, _, version = symbol.partition("@")
        imports.setdefault(version.lstrip("@") or None, set()).add(name)
    out = []
    for lib in needed(cv2_module):
        stem = lib.split("-")[0].split(".")[0]
        if stem in FFMPEG:
            versions = [v for v in imports if v is not None and v.startswith(FFMPEG[stem])]
            if len(versions) != 1:
                raise RuntimeError(f"cannot tell which symbols cv2 takes from {lib}")
            out.append(StandIn(lib, versions[0], tuple(sorted(imports[versions[0]]))))
        elif stem == AVIF:
            symbols = tuple(sorted(s for s in imports.get(None, set()) if s.startswith("avif")))
            out.append(StandIn(lib, None, symbols))
    return out


def c_source(stand_in: StandIn) -> str:
    what = "video support" if stand_in.version is not None else "AVIF encoding"
    lines = [
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "",
        "static void missing(const char *name) {",
        f'    fprintf(stderr, "panelvox: this build has no {what} in OpenCV (%s)\\n", name);',
        "    abort();",
        "}",
        "",
    ]
    for s in stand_in.symbols:
        if stand_in.version is None and s in AVIF_NULL:
            lines.append(f"void *{s}(void) {{ return NULL; }}")
        elif stand_in.version is None and s in AVIF_BLOCK:
            # far larger than libavif's avifEncoder; freed by avifEncoderDestroy
            lines.append(f"void *{s}(void) {{ return calloc(1, 65536); }}")
        elif stand_in.version is None and s == AVIF_STRING:
            lines.append(f'const char *{s}(int r) {{ (void)r; return "AVIF is not in this build"; }}')
        elif stand_in.version is None and s in AVIF_FREE:
            lines.append(f"void {s}(void *p) {{ free(p); }}")
        elif stand_in.version is None and s in AVIF_VOID:
            lines.append(f"void {s}(void *p) {{ (void)p; }}")
        else:
            lines.append(f'void {s}(void) {{ missing("{s}"); }}')
    return "\n".join(lines) + "\n"


def version_script(stand_in: StandIn) -> str:
    exported = " ".join(f"{s};" for s in stand_in.symbols)
    return f"{stand_in.version or ''} {{ global: {exported} local: *; }};\n"


def compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc")


def build(stand_in: StandIn, out_dir: Path) -> Path:
    """Compile one stand-in as ``out_dir/<its name>``; ``RuntimeError`` when it cannot."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc/gcc) to build the no-video libraries")
    work = out_dir / "src"
    work.mkdir(parents=True, exist_ok=True)
    src = work / f"{stand_in.name}.c"
    ver = work / f"{stand_in.name}.map"
    src.write_text(c_source(stand_in), encoding="utf-8")
    ver.write_text(version_script(stand_in), encoding="utf-8")
    out = out_dir / stand_in.name
    cmd = [cc, "-O2", "-shared", "-fPIC", f"-Wl,-soname,{stand_in.name}", f"-Wl,--version-script,{ver}"]
    proc = subprocess.run([*cmd, "-o", str(out), str(src)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"building {stand_in.name} failed: {proc.stderr.strip()}")
    return out


def unneeded_after(libs_dir: Path, cv2_module: Path, replaced: set[str]) -> set[str]:
    """Files in ``libs_dir`` that nothing loads once ``replaced`` are stand-ins (which need nothing)."""
    reachable: set[str] = set()
    todo = [n for n in needed(cv2_module) if (libs_dir / n).exists()]
    while todo:
        name = todo.pop()
        if name in reachable:
            continue
        reachable.add(name)
        if name not in replaced:
            todo += [n for n in needed(libs_dir / name) if (libs_dir / n).exists()]
    return {p.name for p in libs_dir.iterdir() if p.is_file()} - reachable


def main(argv: list[str]) -> int:
    import importlib.util

    spec = importlib.util.find_spec("cv2")
    if spec is None or spec.origin is None or len(argv) != 2:
        print("usage: build_novideo.py OUT_DIR (needs opencv-python-headless)", file=sys.stderr)
        return 2
    cv2_dir = Path(spec.origin).resolve().parent
    module = next(cv2_dir.glob("cv2*.so"))
    for stand_in in stand_ins(module):
        print(build(stand_in, Path(argv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
