"""Seeds and byte mutations for fuzzing the book layer, shared by the CI fuzz test
(``test_books_fuzz.py``) and the long run (``scripts/fuzz_books.py``).

Seeds are made here, small and real: CBZ (deflated, with ComicInfo), CBT (plain, gzip),
CB7, CBR (where RARLAB's ``rar`` is installed), PDF (an image page and a vector page),
and one stored CBZ per image format so that mutations land in the picture's own bytes.
:func:`try_book` opens a mutated book the way the reader does and says what escaped.
"""

from __future__ import annotations

import gzip
import io
import random
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from pathlib import Path

import py7zr
from PIL import Image

from panelvox.books import Limits, open_book
from panelvox.errors import PanelvoxError

MiB = 1024 * 1024
#: Small limits keep any "bomb" the fuzzer stumbles on cheap.
LIMITS = Limits(max_entry_bytes=4 * MiB, max_pixels=4_000_000, cache_bytes=4 * MiB)

_COMICINFO = (
    b'<?xml version="1.0" encoding="utf-8"?><ComicInfo><Title>T</Title><Manga>YesAndRightToLeft</Manga>'
    b'<Pages><Page Image="0" Type="FrontCover"/><Page Image="1" DoublePage="true"/></Pages></ComicInfo>'
)
#: Values that tend to break parsers when written over a field.
_INTERESTING = (
    b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x80",
    b"\x7f\xff\xff\xff",
    b"\xff" * 8,
    b"\x00" * 8,
    b"9" * 12,
)


def picture(fmt: str, color: tuple[int, int, int] = (30, 90, 200), **save: object) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (24, 32), color).save(buf, fmt, **save)
    return buf.getvalue()


def _files() -> dict[str, bytes]:
    return {
        "p1.jpg": picture("JPEG", (200, 0, 0)),
        "p10.png": picture("PNG", (0, 200, 0)),
        "sub/p2.webp": picture("WEBP"),
        "ComicInfo.xml": _COMICINFO,
    }


def _zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _tar(files: dict[str, bytes], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            if fmt == tarfile.PAX_FORMAT:
                info.pax_headers = {"comment": "fuzz"}
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _7z(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with py7zr.SevenZipFile(buf, "w") as sz:
        for name, data in files.items():
            sz.writestr(data, name)
    return buf.getvalue()


def _rar(files: dict[str, bytes]) -> bytes | None:
    if shutil.which("rar") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        for name, data in files.items():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes(data)
        out = Path(tmp) / "b.rar"
        subprocess.run(["rar", "a", "-idq", "-r", "-ep1", "-m3", str(out), str(src) + "/"], check=True)
        return out.read_bytes()


def _pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=300, height=450)
    page.insert_image(page.rect, stream=picture("JPEG"))
    page = doc.new_page(width=300, height=450)
    page.draw_rect(pymupdf.Rect(20, 20, 280, 200), color=(0, 0, 0), width=3)
    page.insert_text((40, 100), "Hello!", fontsize=20)
    data: bytes = doc.tobytes(garbage=0, deflate=False)
    doc.close()
    return data


def make_seeds() -> dict[str, tuple[str, bytes]]:
    """Name -> (file suffix, bytes) of every seed."""
    files = _files()
    seeds: dict[str, tuple[str, bytes]] = {
        "zip": (".cbz", _zip(files)),
        "tar": (".cbt", _tar(files)),
        "tar-gnu": (".cbt", _tar(files, tarfile.GNU_FORMAT)),
        "tar-gz": (".cbt", gzip.compress(_tar(files), mtime=0)),
        "7z": (".cb7", _7z(files)),
        "pdf": (".pdf", _pdf()),
    }
    rar = _rar(files)
    if rar is not None:
        seeds["rar"] = (".cbr", rar)
    for fmt, extra in (
        ("JPEG", {"progressive": True}),
        ("PNG", {}),
        ("GIF", {}),
        ("TIFF", {"compression": "tiff_deflate"}),
        ("BMP", {}),
        ("WEBP", {}),
    ):
        name = f"p1.{fmt.lower()}"
        seeds[f"image-{fmt.lower()}"] = (
            ".cbz",
            _zip({name: picture(fmt, **extra), "p2.png": picture("PNG")}, zipfile.ZIP_STORED),
        )
    return seeds


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """One to eight random edits: flips, cuts, insertions, zeroed or "interesting" runs,
    duplicated chunks, or a splice from another seed."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not out:
            out = bytearray(rng.choice(others))
        pos = rng.randrange(len(out))
        op = rng.randrange(8)
        if op == 0:
            out[pos] ^= rng.randint(1, 255)
        elif op == 1:
            del out[pos : pos + rng.randint(1, 64)]
        elif op == 2:
            out[pos:pos] = rng.randbytes(rng.randint(1, 32))
        elif op == 3:
            out[pos : pos + 8] = bytes(len(out[pos : pos + 8]))
        elif op == 4:
            value = rng.choice(_INTERESTING)
            out[pos : pos + len(value)] = value
        elif op == 5:
            chunk = out[pos : pos + rng.randint(1, 512)]
            out[pos:pos] = chunk * rng.randint(1, 4)
        elif op == 6:
            del out[pos:]
        else:
            other = rng.choice(others)
            cut = rng.randrange(len(other))
            out[pos:] = other[cut : cut + rng.randint(1, 2048)]
    return bytes(out)


def try_book(path: Path, limits: Limits = LIMITS) -> str | None:
    """Open ``path`` and read each page as the reader would: None when everything that
    failed failed as one spoken sentence (a :class:`PanelvoxError`), else what escaped."""
    try:
        book = open_book(path, limits=limits)
    except PanelvoxError as exc:
        return _bad_message(exc)
    except Exception as exc:  # noqa: BLE001 - the point is to catch what escapes
        return f"open: {type(exc).__name__}: {exc}"[:300]
    with book:
        _ = (book.title, book.direction, book.metadata and book.metadata.fields())
        for ref in book.pages[:4]:
            for step in (book.check_page, book.load_page, book.native_size):
                try:
                    step(ref.index)
                except PanelvoxError as exc:
                    if bad := _bad_message(exc):
                        return bad
                except Exception as exc:  # noqa: BLE001
                    return f"{step.__name__}({ref.index}): {type(exc).__name__}: {exc}"[:300]
    return None


def _bad_message(exc: PanelvoxError) -> str | None:
    message = exc.message
    if message and "\n" not in message and len(message) <= 120 and message.endswith("."):
        return None
    return f"not one sentence: {message!r}"
