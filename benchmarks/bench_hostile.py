"""Hostile books: the time and memory each costs to open and decode its first page.

Builds the bombs of issue 20 (each a few megabytes at most) in a folder, then opens each in
a fresh process (``open_book`` + ``load_page(0)``) under a wall-clock limit and a 6 GiB
address-space cap, and prints one row per bomb: seconds, peak resident memory, and what
happened (the one sentence Panelvox said, or what escaped). The goal (issue 20): any input
of at most 20 MB opens and decodes a page in at most 10 s and 1.5 GB, or stops with one
sentence.

    python benchmarks/bench_hostile.py [--keep DIR] [--app PATH] [--write] [--huge]

``--app`` runs another checkout's ``app`` folder (how the "before" column was measured);
``--keep`` keeps the bombs (they take a minute to build) for the next run; ``--write`` puts
the table between the ``<!-- bench_hostile -->`` marks of docs/benchmarks.md.

``--huge`` (issue 32) measures huge books instead: 20,000 and 45,000 entries of 1,000-character
names (CBZ, CBT, folder) and 99,999 pages (CBZ, folder), each through three fresh processes:
``open_book`` alone, ``panelvox info`` and ``panelvox narrate --page 1 --text`` (with a
fresh, writable home of the benchmark's own, shared by the runs), each with its wall-clock
seconds (from the parent: interpreter start included), its CPU seconds (user + system, which
a loaded machine inflates less) and peak resident memory (VmHWM). The
goal: every input of at most 100,000 entries and 64 MB opens, ``info``s and narrates page 1
in at most 10 s and 1.5 GB, or stops with one sentence. ``--write`` puts that table between
the ``<!-- bench_hostile_huge -->`` marks.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from doc_marks import write_between_marks

REPO = Path(__file__).resolve().parents[1]
MiB = 1024 * 1024
LIMIT_S = 120

_CHILD = r"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
from pathlib import Path
from panelvox.books import open_book
from panelvox.errors import PanelvoxError
start = time.perf_counter()
try:
    with open_book(Path(sys.argv[1])) as book:
        book.load_page(0)
    outcome = "page decoded"
except PanelvoxError as exc:
    outcome = "said: " + exc.message
except BaseException as exc:
    outcome = "ESCAPED " + type(exc).__name__
seconds = time.perf_counter() - start
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across exec
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"s": seconds, "mb": hwm / 1024, "out": outcome}))
"""


def _jpeg() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (64, 80), (200, 30, 30)).save(buf, "JPEG")
    return buf.getvalue()


def _header(name: str, size: int, kind: bytes = tarfile.REGTYPE) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    info.type = kind
    return info.tobuf(tarfile.GNU_FORMAT)


def _zeros_stream(write: Callable[[bytes], object], total: int) -> None:
    chunk = b"\0" * (16 * MiB)
    while total > 0:
        write(chunk[: min(total, len(chunk))])
        total -= len(chunk)


def gnu_long_names(path: Path) -> None:
    """A GNU long-name header that declares 2.5 GiB: tarfile reads it whole."""
    with path.open("wb") as fh:
        fh.write(_header("././@LongLink", 5 << 29, tarfile.GNUTYPE_LONGNAME))
        fh.write(b"a" * (2600 * 1024))


def many_directories(path: Path) -> None:
    """3 million directory headers, gzip-compressed (tarfile lists every one)."""
    block = _header("d/", 0, tarfile.DIRTYPE)
    with gzip.open(path, "wb", compresslevel=9) as gz:
        for _ in range(3000):
            gz.write(block * 1000)
        gz.write(_header("p.jpg", len(_jpeg())) + _jpeg().ljust(512, b"\0") + b"\0" * 1024)


def _skip_bomb(opener: Callable[[Path], io.BufferedIOBase], path: Path, zeros: int) -> None:
    page = _jpeg()
    with opener(path) as out:
        out.write(_header("a.bin", zeros))
        _zeros_stream(out.write, zeros)
        out.write(_header("p.jpg", len(page)) + page.ljust(-(-len(page) // 512) * 512, b"\0") + b"\0" * 1024)


def gzip_skip(path: Path) -> None:
    """One member of 8 GiB of zeros before the page: skipping it decompresses it all."""
    _skip_bomb(lambda p: gzip.open(p, "wb", compresslevel=9), path, 8 << 30)  # type: ignore[arg-type,return-value]  # noqa: SIM115


def bz2_skip(path: Path) -> None:
    _skip_bomb(lambda p: bz2.open(p, "wb", compresslevel=9), path, 4 << 30)  # type: ignore[arg-type,return-value]  # noqa: SIM115


def solid_7z(path: Path) -> None:
    """A solid 7z: 2 GiB of zeros, then the page, in one block."""
    import py7zr

    with tempfile.TemporaryDirectory() as tmp:
        zeros = Path(tmp) / "a.bin"
        with zeros.open("wb") as fh:
            fh.truncate(2 << 30)  # sparse: nothing written to the disk
        with py7zr.SevenZipFile(path, "w") as sz:
            sz.write(zeros, "a.bin")
            sz.writestr(_jpeg(), "p.jpg")


def solid_rar(path: Path) -> None:
    """A solid RAR (RARLAB's rar): 2 GiB of zeros, then the page."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp)
        with (src / "a.bin").open("wb") as fh:
            fh.truncate(2 << 30)
        (src / "p.jpg").write_bytes(_jpeg())
        subprocess.run(["rar", "a", "-s", "-m5", "-inul", str(path), "a.bin", "p.jpg"], cwd=src, check=True)


def pdf_huge_image(path: Path) -> None:
    """A PDF page holding one 40000 x 40000 image (one bit per pixel, deflated zeros)."""
    side = 40000
    stream = zlib.compress(bytes(side * side // 8), 9)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << /Im 5 0 R >> >> /Contents 4 0 R >>",
    ]
    content = b"q 600 0 0 800 0 0 cm /Im Do Q"
    body = io.BytesIO()
    body.write(b"%PDF-1.4\n")
    offsets = []
    for n, obj in enumerate(objs, 1):
        offsets.append(body.tell())
        body.write(b"%d 0 obj\n" % n + obj + b"\nendobj\n")
    offsets.append(body.tell())
    body.write(b"4 0 obj\n<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream\nendobj\n")
    offsets.append(body.tell())
    body.write(
        b"5 0 obj\n<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 1 /Filter /FlateDecode /Length %d >>\nstream\n" % (side, side, len(stream))
    )
    body.write(stream + b"\nendstream\nendobj\n")
    xref = body.tell()
    body.write(b"xref\n0 6\n0000000000 65535 f \n")
    for off in offsets:
        body.write(b"%010d 00000 n \n" % off)
    body.write(b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    path.write_bytes(body.getvalue())


def float_tiff(path: Path) -> None:
    """An 8000 x 8000 32-bit float TIFF (64 Mpx, within the pixel limit), deflated, in a CBZ."""
    import zipfile

    import numpy as np
    from PIL import Image

    arr = np.zeros((8000, 8000), np.float32)
    arr[::7] = 0.5
    buf = io.BytesIO()
    Image.fromarray(arr, mode="F").save(buf, "TIFF", compression="tiff_adobe_deflate")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("p.tif", buf.getvalue())


def pdf_strokes(path: Path, strokes: int = 20_000) -> None:
    """A 100 KB PDF page of 20,000 separate anti-aliased strokes (13.5 s to draw in place)."""
    import pymupdf

    ops = b"".join(
        b"%d %d m %d %d l S\n" % (i % 600, i * 7 % 800, i * 13 % 600, i * 3 % 800) for i in range(strokes)
    )
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.insert_text((10, 10), "x")
    doc.update_stream(page.get_contents()[0], b"1 w " + ops)
    doc.save(path, deflate=True)
    doc.close()


def tiff_tiles(path: Path, side: int = 6000, tile: int = 4) -> None:
    """A 6000 x 6000 TIFF cut into 2.25 million 4 x 4 tiles (all pointing at one), in a CBZ."""
    import zipfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("p.tif", tiled_tiff(side, tile))


def tiled_tiff(side: int, tile: int) -> bytes:
    """An 8-bit grey TIFF of ``side`` x ``side`` in ``tile`` x ``tile`` tiles sharing one."""
    n = (-(-side // tile)) ** 2
    data = bytes(tile * tile)
    ifd_size = 2 + 9 * 12 + 4
    data_at = 8 + ifd_size
    offsets_at = data_at + len(data)
    counts_at = offsets_at + 4 * n
    tags = [(256, 4, 1, side), (257, 4, 1, side), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1)]
    tags += [(322, 4, 1, tile), (323, 4, 1, tile), (324, 4, n, offsets_at), (325, 4, n, counts_at)]
    ifd = struct.pack("<H", len(tags)) + b"".join(struct.pack("<HHII", *t) for t in tags) + bytes(4)
    return (
        b"II*\0"
        + struct.pack("<I", 8)
        + ifd
        + data
        + struct.pack("<I", data_at) * n
        + struct.pack("<I", len(data)) * n
    )


def million_entries(path: Path) -> None:
    """A ZIP of 1,000,000 empty stored members (written directly: zipfile takes minutes)."""
    local, central = io.BytesIO(), io.BytesIO()
    for n in range(1_000_000):
        name = b"%07d.jpg" % n
        offset = local.tell()
        local.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name)
        central.write(
            struct.pack(
                "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0, 0, offset
            )
            + name
        )
    cd_offset = local.tell()
    cd = central.getvalue()
    zip64_end = struct.pack(
        "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, 1_000_000, 1_000_000, len(cd), cd_offset
    )
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, cd_offset + len(cd), 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(cd), cd_offset, 0)
    path.write_bytes(local.getvalue() + cd + zip64_end + locator + end)


BOMBS: dict[str, tuple[str, Callable[[Path], None]]] = {
    "gnu-long-names.cbt": ("TAR, GNU long name declaring 2.5 GiB", gnu_long_names),
    "dirs-3m.tgz": ("TAR.GZ, 3 million directories", many_directories),
    "skip-gzip.tar.gz": ("TAR.GZ skip bomb, 8 GiB of zeros before the page", gzip_skip),
    "skip-bz2.tbz2": ("TAR.BZ2 skip bomb, 4 GiB of zeros", bz2_skip),
    "solid.cb7": ("solid 7z, 2 GiB of zeros before the page", solid_7z),
    "solid.cbr": ("solid RAR, 2 GiB of zeros before the page", solid_rar),
    "image-40000.pdf": ("PDF, one 40000 x 40000 image", pdf_huge_image),
    "float-64mpx.cbz": ("CBZ, 8000 x 8000 float TIFF", float_tiff),
    "million.cbz": ("ZIP of 1,000,000 entries", million_entries),
    "tiff-tiles.cbz": ("CBZ, TIFF of 2.25 million 4 x 4 tiles", tiff_tiles),
    "strokes.pdf": ("PDF, 20,000 vector strokes on one page", pdf_strokes),
}
SHARED = Path(os.environ.get("PANELVOX_SHARED", REPO.parent.parent / "shared")) / "hostile"
REPRODUCERS = ("F8_tar_pax_digits_256k.cbt", "F9_jpeg_4000px_3000scans.cbz", "F9_jpeg_8000px_3000scans.cbz")


def build(folder: Path) -> list[tuple[str, Path]]:
    out = []
    for name, (what, make) in BOMBS.items():
        path = folder / name
        if not path.exists():
            t = time.perf_counter()
            make(path)
            print(
                f"built {name} ({path.stat().st_size / MiB:.2f} MiB) in {time.perf_counter() - t:.0f} s",
                file=sys.stderr,
            )
        out.append((what, path))
    for name in REPRODUCERS:
        if (SHARED / name).is_file():
            out.append((f"reproducer {name}", SHARED / name))
    return out


def measure(path: Path, app: Path) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(app))
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=LIMIT_S,
        )
    except subprocess.TimeoutExpired:
        return {"s": LIMIT_S, "mb": None, "out": f"still running after {LIMIT_S} s (killed)"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return {"s": time.perf_counter() - start, "mb": None, "out": "CRASHED " + tail[0][:80]}
    result: dict[str, object] = json.loads(lines[-1])
    return result


# -- huge books (issue 32) ------------------------------------------------------------------

#: a name of about 1,000 characters that alternates letters and digits (about 500 numbers for
#: a natural sort to compare) and differs from the others only in its last digits
_LONG_STEM = "a1" * 490
_HUGE_CHILD = r"""
import json, os, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
mode, book, report = sys.argv[1:4]
from pathlib import Path
outcome = "done"
if mode == "open":
    from panelvox.books import open_book
    from panelvox.errors import PanelvoxError
    try:
        with open_book(Path(book)) as b:
            outcome = f"{b.page_count} pages"
    except PanelvoxError as exc:
        outcome = "said: " + exc.message
else:
    from panelvox.cli import main
    args = ["info", book] if mode == "info" else ["narrate", book, "--page", "1", "--text"]
    out = os.open(os.devnull, os.O_WRONLY)
    os.dup2(out, 1)  # the page list of 99,999 lines costs its printing, not a terminal's
    code = main(args)
    outcome = f"exit {code}"
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
# CPU seconds of the whole process (imports included): what the load of the machine does not inflate
Path(report).write_text(json.dumps({"mb": hwm / 1024, "cpu": time.process_time(), "out": outcome}))
"""


def _tiny_jpeg(mode: str = "RGB", side: int = 16) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new(mode, (side, side), 250).save(buf, "JPEG", quality=50)
    return buf.getvalue()


def _long_names(count: int) -> list[str]:
    return [f"{_LONG_STEM}{n:06d}.jpg" for n in range(count)]


def _zip_of(names: list[str], path: Path, page: bytes | None = None) -> None:
    import zipfile

    page = page or _tiny_jpeg()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name in names:
            zf.writestr(name, page)


def _tar_of(names: list[str], path: Path, compress: bool) -> None:
    page = _tiny_jpeg()

    def add(tf: tarfile.TarFile) -> None:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = len(page)
            tf.addfile(info, io.BytesIO(page))

    if compress:
        with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as tf:
            add(tf)
    else:
        with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tf:
            add(tf)


def _folder_of(names: list[str], path: Path, page: bytes | None = None) -> None:
    page = page or _tiny_jpeg()
    path.mkdir(parents=True)
    for name in names:
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(page)


def _folder_names(count: int) -> list[str]:
    # a file or folder name is at most 255 bytes here: 1,000 characters are four levels
    part = "a1" * 120
    return [f"{part}/{part}b/{part}c/{part[:230]}{n:06d}.jpg" for n in range(count)]


HUGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "names-20k.cbz": ("CBZ, 20,000 names of 1,000 characters", lambda p: _zip_of(_long_names(20_000), p)),
    "names-45k.cbz": ("CBZ, 45,000 names of 1,000 characters", lambda p: _zip_of(_long_names(45_000), p)),
    "names-20k.cbt": (
        "CBT, 20,000 names of 1,000 characters",
        lambda p: _tar_of(_long_names(20_000), p, compress=False),
    ),
    "names-45k.cbt": (
        "CBT (gzip), 45,000 names of 1,000 characters",
        lambda p: _tar_of(_long_names(45_000), p, compress=True),
    ),
    "names-20k": ("folder, 20,000 paths of 1,000 characters", lambda p: _folder_of(_folder_names(20_000), p)),
    "names-45k": ("folder, 45,000 paths of 1,000 characters", lambda p: _folder_of(_folder_names(45_000), p)),
    "pages-99999.cbz": (
        "CBZ, 99,999 pages",
        lambda p: _zip_of([f"{n:05d}.jpg" for n in range(1, 100_000)], p, _tiny_jpeg("L", 8)),
    ),
    "pages-99999": (
        "folder, 99,999 pages",
        lambda p: _folder_of([f"{n:05d}.jpg" for n in range(1, 100_000)], p, _tiny_jpeg("L", 8)),
    ),
}


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure_huge(mode: str, path: Path, app: Path, home: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env |= {"PYTHONPATH": str(app), "HOME": str(home)}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _HUGE_CHILD, mode, str(path), str(report)],
                env=env,
                capture_output=True,
                text=True,
                timeout=LIMIT_S,
            )
        except subprocess.TimeoutExpired:
            return {"s": LIMIT_S, "mb": None, "out": f"still running after {LIMIT_S} s (killed)"}
        seconds = time.perf_counter() - start
        if not report.is_file():
            tail = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            return {"s": seconds, "mb": None, "out": "CRASHED " + tail[0][:80]}
        result: dict[str, object] = json.loads(report.read_text())
    said = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    if said:
        result["out"] = f"{result['out']}; said: {said[-1][:90]}"
    result["s"] = seconds
    return result


def huge(folder: Path, app: Path, only: str = "") -> list[str]:
    rows = [
        "| input | size | open s (CPU) | open MB | info s (CPU) | info MB | page 1 s (CPU) | page 1 MB | outcome |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    print("\n".join(rows), flush=True)
    # a fresh home for each run, shared by its books: page 1 is analysed, never a cache hit
    home = Path(tempfile.mkdtemp(prefix="home-", dir=folder))
    for name, (what, make) in HUGE.items():
        if only not in name:
            continue
        path = folder / name
        if not path.exists():
            t = time.perf_counter()
            make(path)
            print(f"built {name} in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        cells = []
        outcomes = []
        for mode in ("open", "info", "page1"):
            r = measure_huge(mode, path, app, home)
            mb = f"{r['mb']:.0f}" if r["mb"] is not None else "–"
            cpu = f" ({float(r['cpu']):.1f})" if r.get("cpu") is not None else ""  # type: ignore[arg-type]
            cells += [f"{float(r['s']):.1f}{cpu}", mb]  # type: ignore[arg-type]
            outcomes.append(f"{mode}: {r['out']}")
        size = _size(path)
        rows.append(f"| {what} | {size / MiB:.1f} MiB | {' | '.join(cells)} | {'; '.join(outcomes)} |")
        print(rows[-1], flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="folder for the bombs, kept between runs")
    parser.add_argument("--app", type=Path, default=REPO / "app", help="the app folder to measure")
    parser.add_argument("--write", action="store_true", help="write the table to docs/benchmarks.md")
    parser.add_argument("--huge", action="store_true", help="huge books (issue 32) instead of the bombs")
    parser.add_argument("--only", default="", help="with --huge: only the books whose file name holds this")
    args = parser.parse_args()
    if args.huge:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.keep or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            rows = huge(folder, args.app, args.only)
        if args.write:
            write_between_marks("<!-- bench_hostile_huge -->", "\n".join(rows))
        return 0
    rows = ["| input | size | seconds | peak MB | outcome |", "|---|---:|---:|---:|---|"]
    print("\n".join(rows))
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for what, path in build(folder):
            r = measure(path, args.app)
            mb = f"{r['mb']:.0f}" if r["mb"] is not None else "–"
            size = path.stat().st_size
            shown = f"{size / MiB:.1f} MiB" if size >= MiB else f"{size / 1024:.0f} KiB"
            rows.append(f"| {what} | {shown} | {float(r['s']):.1f} | {mb} | {r['out']} |")
            print(rows[-1], flush=True)
    if args.write:
        write_between_marks("<!-- bench_hostile -->", "\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
