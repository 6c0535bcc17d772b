"""Builders for the book tests: every fixture file is made here, by the test that needs it.

(Named ``test_books_*`` to sit with the books tests; it holds one self-check test.)
"""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import tarfile
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import pytest
from PIL import Image

Files = Mapping[str, bytes]


def image_bytes(
    color: tuple[int, int, int] = (200, 30, 30), size: tuple[int, int] = (40, 60), fmt: str = "JPEG"
) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return buf.getvalue()


def noise_jpeg(size: tuple[int, int] = (200, 200)) -> bytes:
    im = Image.effect_noise(size, 80).convert("RGB")
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=90)
    return buf.getvalue()


def comicinfo(body: str) -> bytes:
    return f'<?xml version="1.0"?>\n<ComicInfo>{body}</ComicInfo>'.encode()


def make_zip(path: Path, files: Files, *, compress: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=compress) as zf:
        for name, data in files.items():
            zf.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data, compress_type=compress)
    return path


def make_7z(
    path: Path, files: Files, *, password: str | None = None, header_encryption: bool = False
) -> Path:
    import py7zr

    with py7zr.SevenZipFile(path, "w", password=password) as sz:
        if password is not None:
            sz.set_encrypted_header(header_encryption)
        for name, data in files.items():
            sz.writestr(data, name)
    return path


def make_tar(path: Path, files: Files, *, mode: str = "w") -> Path:
    with tarfile.open(path, mode) as tf:  # type: ignore[call-overload]
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def make_folder(path: Path, files: Files) -> Path:
    for name, data in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return path


def rar_available() -> bool:
    return shutil.which("rar") is not None


def make_rar(path: Path, files: Files, *, password: str | None = None, encrypt_headers: bool = False) -> Path:
    """A real RAR made by the ``rar`` program (Debian non-free); skips where it is missing."""
    if not rar_available():
        pytest.skip("the rar program is not installed (scripts/setup installs it)")
    src = path.parent / (path.name + ".src")
    make_folder(src, files)
    args = ["rar", "a", "-idq", "-r", "-ep1"]
    if password is not None:
        args.append(("-hp" if encrypt_headers else "-p") + password)
    tmp = path.with_name(path.name + ".rar")  # rar insists on its own extension
    subprocess.run([*args, str(tmp), str(src) + "/"], check=True)
    shutil.rmtree(src)
    tmp.replace(path)
    return path


def make_pdf(path: Path, images: list[bytes], *, password: str | None = None) -> Path:
    import pymupdf

    doc = pymupdf.open()
    for data in images:
        with Image.open(io.BytesIO(data)) as im:
            w, h = im.size
        # A page of 300×450 points holding the image, as a scanned comic PDF does.
        page = doc.new_page(width=300, height=450)
        page.insert_image(page.rect, stream=data)
        del w, h
    if password is None:
        doc.save(path)
    else:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw=password + "-owner", user_pw=password)
    doc.close()
    return path


def empty_pdf_bytes() -> bytes:
    """A well-formed PDF whose page tree has no pages (pymupdf refuses to save one)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


# --- traditional PKWARE ("ZipCrypto") encryption, written by hand ---------------------------
def _crc_byte(crc: int, b: int) -> int:
    return zlib.crc32(bytes([b]), crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


class _ZipCrypto:
    def __init__(self, password: bytes) -> None:
        self.k0, self.k1, self.k2 = 305419896, 591751049, 878082192
        for c in password:
            self._update(c)

    def _update(self, c: int) -> None:
        self.k0 = _crc_byte(self.k0, c)
        self.k1 = (self.k1 + (self.k0 & 0xFF)) & 0xFFFFFFFF
        self.k1 = (self.k1 * 134775813 + 1) & 0xFFFFFFFF
        self.k2 = _crc_byte(self.k2, (self.k1 >> 24) & 0xFF)

    def encrypt(self, data: bytes) -> bytes:
        out = bytearray()
        for p in data:
            t = (self.k2 | 2) & 0xFFFF
            out.append(p ^ (((t * (t ^ 1)) >> 8) & 0xFF))
            self._update(p)
        return bytes(out)


def make_encrypted_zip(path: Path, files: Files, password: bytes) -> Path:
    """A ZIP whose members are encrypted with traditional PKWARE encryption (stored)."""
    local = io.BytesIO()
    central = io.BytesIO()
    for name, data in files.items():
        crc = zlib.crc32(data)
        header12 = bytes(range(11)) + bytes([(crc >> 24) & 0xFF])
        payload = _ZipCrypto(password).encrypt(header12 + data)
        fname = name.encode()
        offset = local.tell()
        common = struct.pack("<HHHHHIII", 20, 0x1, 0, 0, 0x21, crc, len(payload), len(data))
        local.write(b"PK\x03\x04" + common + struct.pack("<HH", len(fname), 0) + fname + payload)
        central.write(
            b"PK\x01\x02"
            + struct.pack("<H", 20)
            + common
            + struct.pack("<HHHHHII", len(fname), 0, 0, 0, 0, 0, offset)
            + fname
        )
    cd = central.getvalue()
    body = local.getvalue()
    eocd = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(files), len(files), len(cd), len(body), 0)
    path.write_bytes(body + cd + eocd)
    return path


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares ``width``×``height`` but carries almost no data (a pixel bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def test_builders_make_real_files(tmp_path: Path) -> None:
    secret = make_encrypted_zip(tmp_path / "s.zip", {"a.jpg": b"hello"}, b"pw")
    with zipfile.ZipFile(secret) as zf:
        assert zf.read("a.jpg", pwd=b"pw") == b"hello"
        with pytest.raises(RuntimeError):
            zf.read("a.jpg")
    with Image.open(io.BytesIO(png_header_only(123, 45))) as im:
        assert im.size == (123, 45)
