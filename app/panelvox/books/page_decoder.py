"""Bytes of one page image → an RGB :class:`PIL.Image.Image`, safely.

The pixel count is checked from the header before anything is decoded; only raster
formats a comic page can be in are accepted (Pillow's EPS plugin, for one, would run
Ghostscript); a progressive JPEG's scans are counted before decoding (each scan is one
more pass over every pixel: 3,000 scans of a 4000 x 4000 page take half a minute); EXIF
orientation is applied; CMYK, palette, 16-bit and alpha are converted the way a reader
expects (alpha over white, 16-bit scaled, not clipped), in strips, so a 64-megapixel float
page never needs gigabytes.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

from panelvox.books.adapter import PARSER_ERRORS

_ERRORS: tuple[type[BaseException], ...] = (SyntaxError, *PARSER_ERRORS)
_CMS_ERRORS: tuple[type[BaseException], ...] = (ImageCms.PyCMSError, *PARSER_ERRORS)

#: Pillow format names a page may be in (PPM: rendered PDF pages; camera MPO files open as JPEG).
PAGE_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "WEBP", "GIF", "BMP", "DIB", "TIFF", "AVIF", "PPM")

#: Most scans a JPEG page may have (encoders write 1, or about 10 when progressive).
MAX_JPEG_SCANS = 100
#: Most pixel passes (pixels x scans) one JPEG decode may take: about 2 s here.
MAX_JPEG_PIXEL_SCANS = 4_000_000_000
#: Most strips or tiles a TIFF page may be cut into: Pillow makes a Python object of each
#: before decoding (2.5 million 4 x 4 tiles in a 20 MB file: half a minute, a gigabyte).
MAX_TIFF_PIECES = 100_000
#: Pixels converted at a time from 16-bit, 32-bit and float pages.
_STRIP_PIXELS = 4_000_000


class Problem(Enum):
    EMPTY = "empty"
    NOT_IMAGE = "not-image"
    TOO_LARGE = "too-large"
    DAMAGED = "damaged"


class PageDecodeError(Exception):
    """Internal: why bytes could not become a page (the Book turns it into UnreadablePage)."""

    def __init__(self, problem: Problem, detail: str) -> None:
        super().__init__(detail)
        self.problem = problem
        self.detail = detail


@dataclass(frozen=True, slots=True)
class PageHeader:
    format: str
    width: int
    height: int
    mode: str


def _tiff_pieces(data: bytes) -> int:
    """Strips or tiles the first image of a TIFF declares (0 when not a readable TIFF)."""
    order = {b"II": "<", b"MM": ">"}.get(data[:2])
    if order is None or len(data) < 16:
        return 0
    big = struct.unpack_from(order + "H", data, 2)[0] == 43  # BigTIFF
    head, entry, count_fmt = (order + "Q", 20, order + "Q") if big else (order + "I", 12, order + "I")
    try:
        ifd = struct.unpack_from(head, data, 8 if big else 4)[0]
        entries = struct.unpack_from(order + ("Q" if big else "H"), data, ifd)[0]
        start = ifd + (8 if big else 2)
        for n in range(min(entries, 4096)):
            tag = struct.unpack_from(order + "H", data, start + n * entry)[0]
            if tag in (273, 324):  # StripOffsets, TileOffsets
                return int(struct.unpack_from(count_fmt, data, start + n * entry + 4)[0])
    except struct.error:
        return 0
    return 0


def _open(data: bytes, max_pixels: int) -> Image.Image:
    if not data:
        raise PageDecodeError(Problem.EMPTY, "zero-byte entry")
    pieces = _tiff_pieces(data)
    if pieces > MAX_TIFF_PIECES:
        raise PageDecodeError(Problem.TOO_LARGE, f"TIFF in {pieces} strips or tiles")
    try:
        im = Image.open(io.BytesIO(data), formats=PAGE_FORMATS)
    except Image.DecompressionBombError as exc:
        raise PageDecodeError(Problem.TOO_LARGE, str(exc)) from exc
    except UnidentifiedImageError as exc:
        raise PageDecodeError(Problem.NOT_IMAGE, str(exc)) from exc
    except _ERRORS as exc:
        raise PageDecodeError(Problem.DAMAGED, repr(exc)) from exc
    w, h = im.size
    if w <= 0 or h <= 0:
        raise PageDecodeError(Problem.DAMAGED, f"size {w}x{h}")
    if w * h > max_pixels:
        raise PageDecodeError(Problem.TOO_LARGE, f"{w}x{h} = {w * h} pixels, limit {max_pixels}")
    if im.format in ("JPEG", "MPO"):
        # FF DA starts a scan; entropy-coded data never holds it (0xFF is escaped there), so
        # this counts every scan, plus those of an EXIF thumbnail: an upper bound.
        scans = data.count(b"\xff\xda")
        if scans > MAX_JPEG_SCANS or scans * w * h > MAX_JPEG_PIXEL_SCANS:
            raise PageDecodeError(Problem.TOO_LARGE, f"JPEG of {w}x{h} with {scans} scans")
    return im


def read_header(data: bytes, max_pixels: int) -> PageHeader:
    """Format and size from the header only; also catches the commonest damage cheaply
    (a JPEG or PNG cut short loses its end marker)."""
    im = _open(data, max_pixels)
    fmt = im.format or ""
    # In entropy-coded JPEG data 0xFF is always escaped, so FF D9 near the end is the real
    # end-of-image marker; scanners often pad after it, which is harmless.
    if fmt in ("JPEG", "MPO") and b"\xff\xd9" not in data[-4096:]:
        raise PageDecodeError(Problem.DAMAGED, "JPEG without end-of-image marker (truncated)")
    if fmt == "PNG" and b"IEND" not in data[-256:]:
        raise PageDecodeError(Problem.DAMAGED, "PNG without IEND chunk (truncated)")
    return PageHeader(fmt, im.size[0], im.size[1], im.mode)


def decode_page(data: bytes, max_pixels: int) -> Image.Image:
    """Decode one page to RGB; raises :class:`PageDecodeError`."""
    im = _open(data, max_pixels)
    try:
        # Animated GIF/WebP, multi-page TIFF: the first frame is the page, where Image.open
        # leaves it (n_frames would walk every frame of the file first).
        im.load()
        transposed = ImageOps.exif_transpose(im)
        if transposed is not None:
            im = transposed  # the unturned copy is freed here, not after the conversion
        out = to_rgb(im)
    except _ERRORS as exc:
        raise PageDecodeError(Problem.DAMAGED, repr(exc)) from exc
    return out


def _alpha_over_white(im: Image.Image) -> Image.Image:
    rgba = im.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def _to_grey(arr: np.ndarray, convert: Callable[[np.ndarray], np.ndarray]) -> Image.Image:
    """``convert`` applied strip by strip (a few megabytes of temporaries, not gigabytes)."""
    out = np.empty(arr.shape[:2], np.uint8)
    step = max(1, _STRIP_PIXELS // max(arr.shape[1], 1))
    for top in range(0, arr.shape[0], step):
        out[top : top + step] = convert(arr[top : top + step])
    return Image.fromarray(out, mode="L").convert("RGB")


def _scale_16(strip: np.ndarray) -> np.ndarray:
    # 16-bit samples scaled to 8 bits (Pillow's own convert would clip at 255)
    wide = np.clip(strip.astype(np.int64), 0, 65535)
    return ((wide * 255 + 32767) // 65535).astype(np.uint8)


def to_rgb(im: Image.Image) -> Image.Image:
    """Any Pillow mode → 8-bit RGB."""
    mode = im.mode
    if mode == "RGB":
        return im
    if mode.startswith("I;16") or mode == "I":
        arr = np.asarray(im)
        if mode == "I" and arr.size and arr.max() <= 255 and arr.min() >= 0:
            return _to_grey(arr, lambda strip: strip.astype(np.uint8))
        return _to_grey(arr, _scale_16)
    if mode == "F":
        arr = np.asarray(im)
        top = float(np.fmax.reduce(arr, axis=None)) if arr.size else 0.0  # NaN ignored
        scale = 255.0 if not top > 1.0 else 1.0  # samples in 0..1 (or all NaN)
        return _to_grey(
            arr,
            lambda strip: np.clip(np.rint(np.nan_to_num(strip.astype(np.float64)) * scale), 0, 255).astype(
                np.uint8
            ),
        )
    if mode == "CMYK":
        return _cmyk_to_rgb(im)
    if mode == "P":
        return _alpha_over_white(im) if "transparency" in im.info else im.convert("RGB")
    if mode in ("RGBA", "LA", "PA", "La", "RGBa") or "transparency" in im.info:
        return _alpha_over_white(im)
    return im.convert("RGB")


def _cmyk_to_rgb(im: Image.Image) -> Image.Image:
    icc = im.info.get("icc_profile")
    if icc:
        try:
            src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            dst = ImageCms.createProfile("sRGB")
            converted = ImageCms.profileToProfile(im, src, dst, outputMode="RGB")
            if converted is not None:
                return converted
        except _CMS_ERRORS:
            pass  # a broken profile: the plain conversion below is still right in shape
    return im.convert("RGB")
