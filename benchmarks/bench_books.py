#!/usr/bin/env python3
"""Books benchmark: time to open the sample book and 500-page synthetic books, time to
decode one page, peak memory. Prints the numbers and writes the "## Books (issue 10)"
section of docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_books.py [--repeat 15] [--no-write]
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from PIL import Image  # noqa: E402

from panelvox.books import Limits, open_book  # noqa: E402

SECTION = "## Books (issue 10)"
PAGES = 500


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and best wall time in milliseconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


def page_jpeg() -> bytes:
    # A page-sized JPEG (1200×1770) with some structure so it is not trivially small.
    im = Image.linear_gradient("L").resize((1200, 1770)).convert("RGB")
    noise = Image.effect_noise((1200, 1770), 30).convert("RGB")
    buf = io.BytesIO()
    Image.blend(im, noise, 0.12).save(buf, "JPEG", quality=85)
    return buf.getvalue()


def make_books(tmp: Path) -> dict[str, Path]:
    data = page_jpeg()
    names = [f"Book/page{i}.jpg" for i in range(1, PAGES + 1)]
    books: dict[str, Path] = {}
    cbz = tmp / "synthetic500.cbz"
    with zipfile.ZipFile(cbz, "w", zipfile.ZIP_STORED) as zf:
        for n in names:
            zf.writestr(n, data)
    books["CBZ"] = cbz
    cbt = tmp / "synthetic500.cbt"
    with tarfile.open(cbt, "w") as tf:
        for n in names:
            info = tarfile.TarInfo(n)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    books["CBT"] = cbt
    import py7zr

    cb7 = tmp / "synthetic500.cb7"
    with py7zr.SevenZipFile(cb7, "w") as sz:
        for n in names:
            sz.writestr(data, n)
    books["CB7 (solid)"] = cb7
    if shutil.which("rar"):
        src = tmp / "rar-src"
        (src / "Book").mkdir(parents=True)
        for n in names:
            (src / n).write_bytes(data)
        cbr = tmp / "synthetic500.cbr.rar"
        # Stored: quick to make on two cores; listing cost does not depend on compression.
        subprocess.run(["rar", "a", "-idq", "-r", "-ep1", "-m0", str(cbr), str(src) + "/"], check=True)
        books["CBR"] = cbr
    return books


# VmHWM (peak resident set) of the probe process itself; ru_maxrss would carry the
# parent's peak across fork/exec on Linux.
_RSS_PROBE = """
import sys
from pathlib import Path
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
sys.path.insert(0, {app!r})
from panelvox.books import open_book
base = hwm()
with open_book(Path({book!r})) as b:
    opened = hwm()
    for i in range(0, b.page_count, 50):
        b.load_page_array(i)
    cached = b.cached_bytes
print(base, opened, hwm(), cached)
"""


def peak_memory(book: Path) -> dict[str, str]:
    """Peak resident memory of a fresh process that opens the book and reads 10 pages."""
    code = _RSS_PROBE.format(app=str(REPO / "app"), book=str(book))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    base, opened, peak, cached = (int(v) for v in out.split())
    return {
        "base": f"{base / 1024:.0f} MiB",
        "opened": f"{opened / 1024:.0f} MiB",
        "peak": f"{peak / 1024:.0f} MiB",
        "cache": f"{cached / 2**20:.0f} MiB",
    }


def measure(repeat: int) -> tuple[list[str], dict[str, str]]:
    rows: list[str] = []
    sample = REPO / "assets" / "sample.cbz"
    med, best = timed(lambda: open_book(sample).close(), repeat)
    rows.append(f"| open assets/sample.cbz (4 pages) | {med:.1f} | {best:.1f} |")

    def decode_sample() -> None:
        with open_book(sample, limits=Limits(cache_bytes=0)) as b:
            b.load_page(0)

    med, best = timed(decode_sample, repeat)
    rows.append(f"| open + decode page 1 of the sample (952×1330 JPEG) | {med:.1f} | {best:.1f} |")
    with open_book(sample) as b:
        b.load_page(0)
        med, best = timed(lambda: b.load_page(0), repeat)
    rows.append(f"| page 1 again, from the page cache (copy) | {med:.2f} | {best:.2f} |")

    with tempfile.TemporaryDirectory() as tmpdir:
        books = make_books(Path(tmpdir))
        for label, path in books.items():
            med, best = timed(lambda p=path: open_book(p).close(), max(3, repeat // 3))  # type: ignore[misc]
            rows.append(
                f"| open 500-page {label} ({path.stat().st_size // 2**20} MiB) | {med:.1f} | {best:.1f} |"
            )
        if "CBR" in books:
            # Compressed members go through the unar program, as in real CBRs.
            small = Path(tmpdir) / "compressed20.cbr.rar"
            src = Path(tmpdir) / "rar-src"
            shutil.rmtree(src / "Book")
            (src / "Book").mkdir()
            data = page_jpeg()
            for i in range(1, 21):
                (src / "Book" / f"page{i}.jpg").write_bytes(data)
            subprocess.run(["rar", "a", "-idq", "-r", "-ep1", "-m3", str(small), str(src) + "/"], check=True)
            books["CBR"] = small
        for label, path in books.items():
            with open_book(path, limits=Limits(cache_bytes=0)) as b:
                last = b.page_count - 1
                med, best = timed(lambda b=b, last=last: b.load_page(last), 3)  # type: ignore[misc]
            rows.append(
                f"| decode the last page ({last + 1}) of the {label} (1200×1770 JPEG) | {med:.1f} | {best:.1f} |"
            )
        pdf = Path(tmpdir) / "scan.pdf"
        import pymupdf

        doc = pymupdf.open()
        page = doc.new_page(width=595, height=842)
        page.insert_image(page.rect, stream=page_jpeg())
        doc.save(pdf)
        doc.close()
        with open_book(pdf, limits=Limits(cache_bytes=0)) as b:
            med, best = timed(lambda: b.load_page(0), max(3, repeat // 3))
            size = b.load_page(0).size
        rows.append(f"| render one PDF page (scan) at {size[0]}×{size[1]} | {med:.1f} | {best:.1f} |")

        mem = peak_memory(books["CBZ"])
    return rows, mem


def render(rows: list[str], mem: dict[str, str], repeat: int) -> str:
    return "\n".join(
        [
            SECTION,
            "",
            f"Measured 2026-11-22 on a 2-core Debian 12 CPU (shared), Python {sys.version.split()[0]},"
            f" `benchmarks/bench_books.py` (median and best of up to {repeat} runs; milliseconds).",
            f"Synthetic books: 500 copies of one 1200×1770 JPEG (≈{len(page_jpeg()) / 1024:.0f} KiB) under `Book/pageN.jpg`.",
            "",
            "| what | median ms | best ms |",
            "|---|---:|---:|",
            *rows,
            "",
            "Peak memory (resident set, a fresh process): after importing Panelvox's books layer"
            f" {mem['base']}; after opening the 500-page CBZ {mem['opened']}; after decoding 10 of"
            f" its pages as arrays {mem['peak']} (of which the bounded page cache holds {mem['cache']};"
            " its default limit is 96 MiB).",
            "Opening reads only the archive's directory and ComicInfo.xml (no page is decoded);"
            " a CB7 is solid, so reaching its last page decompresses the pages before it (the next"
            " 48 MiB of pages are kept from that pass, so reading in order stays cheap);"
            " a compressed CBR page goes through the `unar` program (one process per page;"
            " timed on a 20-page `rar -m3` book).",
            "",
        ]
    )


def write_section(text: str) -> Path:
    path = REPO / "docs" / "benchmarks.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = old.find(SECTION)
    if start == -1:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = old.find("\n## ", start + len(SECTION))
        new = old[:start] + text + ("" if end == -1 else "\n" + old[end + 1 :])
    path.write_text(new if new.endswith("\n") else new + "\n", encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows, mem = measure(args.repeat)
    text = render(rows, mem, args.repeat)
    print(text)
    if not args.no_write:
        print(f"written to {write_section(text)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
