"""Bytes of one page image → an RGB :class:`PIL.Image.Image`, safely.

The pixel count is checked from the header before anything is decoded; only raster
formats a comic page can be in are accepted (Pillow's EPS plugin, for one, would run
Ghostscript); EXIF orientation is applied; CMYK, palette, 16-bit and alpha are converted
the way a reader expects (alpha over white, 16-bit scaled, not clipped).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from enum import Enum

import numpy as np
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

from panelvox.books.adapter import PARSER_ERRORS

_ERRORS: tuple[type[BaseException], ...] = (SyntaxError, *PARSER_ERRORS)
_CMS_ERRORS: tuple[type[BaseException], ...] = (ImageCms.PyCMSError, *PARSER_ERRORS)

#: Pillow format names a page may be in (PPM: rendered PDF pages; camera MPO files open as JPEG).
PAGE_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "WEBP", "GIF", "BMP", "DIB", "TIFF", "AVIF", "PPM")


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


def _open(data: bytes, max_pixels: int) -> Image.Image:
    if not data:
        raise PageDecodeError(Problem.EMPTY, "zero-byte entry")
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
        if getattr(im, "n_frames", 1) > 1:
            im.seek(0)  # animated GIF/WebP, multi-page TIFF: the first frame is the page
        im.load()
        transposed = ImageOps.exif_transpose(im)
        out = to_rgb(transposed if transposed is not None else im)
    except _ERRORS as exc:
        raise PageDecodeError(Problem.DAMAGED, repr(exc)) from exc
    return out


def _alpha_over_white(im: Image.Image) -> Image.Image:
    rgba = im.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def _from_array(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.ascontiguousarray(arr, dtype=np.uint8), mode="L").convert("RGB")


def to_rgb(im: Image.Image) -> Image.Image:
    """Any Pillow mode → 8-bit RGB."""
    mode = im.mode
    if mode == "RGB":
        return im
    if mode.startswith("I;16") or mode == "I":
        arr = np.asarray(im).astype(np.int64)
        if mode == "I" and arr.size and arr.max() <= 255 and arr.min() >= 0:
            return _from_array(arr)
        # 16-bit samples scaled to 8 bits (Pillow's own convert would clip at 255).
        return _from_array((np.clip(arr, 0, 65535) * 255 + 32767) // 65535)
    if mode == "F":
        arr = np.nan_to_num(np.asarray(im, dtype=np.float64))
        scale = 255.0 if arr.size and arr.max() <= 1.0 else 1.0
        return _from_array(np.clip(np.rint(arr * scale), 0, 255))
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
