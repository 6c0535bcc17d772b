#!/usr/bin/env python3
"""Rebuild the sample books in assets/ (run from anywhere; the outputs are committed).

* assets/sample.cbz — four pages of "Mysterious Treasure" (Buster Brown Comics no. 4), a
  public-domain 1940s comic, taken from the page IMAGES of ../shared/data/cib (never its
  narrations, panels or any other annotation), re-encoded as JPEG, with a ComicInfo.xml
  written here.
* assets/sample-rtl.cbz — two right-to-left pages the project draws itself with Pillow
  (panels, figures, balloons with short English text), ComicInfo Manga=YesAndRightToLeft.

Both archives are deterministic: fixed entry order and timestamps.
"""

from __future__ import annotations

import argparse
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from PIL import Image, ImageDraw, ImageFont

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "cib" / "images"
STORY = "BusterBrown_004_MysteriousTreasure_09_{:02d}.jpeg"
STORY_PAGES = (1, 2, 5, 6)  # the pages of this story the benchmark kept
MAX_WIDTH = 1200
JPEG_QUALITY = 85
FIXED_TIME = (2026, 11, 22, 0, 0, 0)


def comicinfo_xml(fields: dict[str, str], page_types: list[str]) -> bytes:
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<ComicInfo xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ]
    lines += [f"  <{k}>{escape(v)}</{k}>" for k, v in fields.items()]
    lines.append("  <Pages>")
    lines += [f'    <Page Image="{i}" Type="{t}" />' for i, t in enumerate(page_types)]
    lines += ["  </Pages>", "</ComicInfo>", ""]
    return "\n".join(lines).encode("utf-8")


def write_cbz(out: Path, pages: list[tuple[str, bytes]], comicinfo: bytes) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, data in pages:
            # Images are already compressed: store them.
            zf.writestr(zipfile.ZipInfo(name, FIXED_TIME), data, compress_type=zipfile.ZIP_STORED)
        zf.writestr(
            zipfile.ZipInfo("ComicInfo.xml", FIXED_TIME), comicinfo, compress_type=zipfile.ZIP_DEFLATED
        )
    tmp.replace(out)


def reencode(path: Path) -> bytes:
    with Image.open(path) as im:
        im = im.convert("RGB")
        if im.width > MAX_WIDTH:
            im = im.resize((MAX_WIDTH, round(im.height * MAX_WIDTH / im.width)), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        im.save(buf, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=False)
        return buf.getvalue()


def make_sample(source: Path, out: Path) -> None:
    pages = []
    for n in STORY_PAGES:
        src = source / STORY.format(n)
        if not src.is_file():
            raise SystemExit(f"missing {src}: the sample is built from ../shared/data/cib/images")
        pages.append((f"MysteriousTreasure_{n:02d}.jpg", reencode(src)))
    info = comicinfo_xml(
        {
            "Title": "Mysterious Treasure",
            "Series": "Buster Brown Comics",
            "Number": "4",
            "Summary": (
                "Adventurer Chad Billow and his young friend Kala help an old man attacked on the"
                " docks, and later armed men take over their schooner, the Sea Hawk"
                " (pages 1, 2, 5 and 6 of the story)."
            ),
            "Publisher": "Brown Shoe Company",
            "Genre": "Adventure",
            "Characters": "Chad Billow, Kala",
            "LanguageISO": "en",
            "BlackAndWhite": "No",
            "Manga": "No",
            "PageCount": str(len(pages)),
        },
        ["Story"] * len(pages),
    )
    write_cbz(out, pages, info)


# --- the right-to-left sample, drawn here -----------------------------------------------

W, H = 1000, 1400
MARGIN, GUTTER, BORDER = 50, 30, 6


@dataclass(frozen=True)
class Figure:
    x: int  # centre of the head
    y: int
    hat: bool


@dataclass(frozen=True)
class Speech:
    text: str
    x: int  # balloon centre
    y: int
    speaker: Figure


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _figure(draw: ImageDraw.ImageDraw, f: Figure) -> None:
    r = 38
    draw.ellipse((f.x - r, f.y - r, f.x + r, f.y + r), fill="#f4d6b0", outline="black", width=4)
    draw.ellipse((f.x - 16, f.y - 8, f.x - 8, f.y), fill="black")
    draw.ellipse((f.x + 8, f.y - 8, f.x + 16, f.y), fill="black")
    draw.arc((f.x - 16, f.y + 2, f.x + 16, f.y + 22), 20, 160, fill="black", width=3)
    if f.hat:
        draw.rectangle((f.x - 30, f.y - r - 34, f.x + 30, f.y - r + 4), fill="#333", outline="black")
        draw.rectangle((f.x - 50, f.y - r, f.x + 50, f.y - r + 8), fill="#333")
    else:
        draw.polygon(
            [(f.x + 20, f.y - r - 4), (f.x + 52, f.y - r - 22), (f.x + 52, f.y - r + 14)], fill="#d33"
        )
    body = f.y + r
    draw.line((f.x, body, f.x, body + 120), fill="black", width=6)
    draw.line((f.x, body + 30, f.x - 50, body + 90), fill="black", width=6)
    draw.line((f.x, body + 30, f.x + 50, body + 90), fill="black", width=6)
    draw.line((f.x, body + 120, f.x - 40, body + 200), fill="black", width=6)
    draw.line((f.x, body + 120, f.x + 40, body + 200), fill="black", width=6)


def _balloon(draw: ImageDraw.ImageDraw, s: Speech) -> None:
    font = _font(30)
    lines = s.text.split("\n")
    widths = [draw.textlength(line, font=font) for line in lines]
    tw, th = max(widths), 36 * len(lines)
    rx, ry = tw / 2 + 40, th / 2 + 30
    tip = (s.speaker.x, s.speaker.y - 50)
    base = s.x + (12 if tip[0] > s.x else -12)
    draw.polygon([(base - 18, s.y + ry - 10), (base + 18, s.y + ry - 10), tip], fill="white", outline="black")
    draw.ellipse((s.x - rx, s.y - ry, s.x + rx, s.y + ry), fill="white", outline="black", width=4)
    # Cover the tail's base line inside the balloon so balloon and tail read as one shape.
    draw.polygon([(base - 15, s.y + ry - 14), (base + 15, s.y + ry - 14), (base, s.y + ry + 6)], fill="white")
    for i, line in enumerate(lines):
        draw.text((s.x - widths[i] / 2, s.y - th / 2 + 36 * i), line, fill="black", font=font)


def _caption(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str) -> None:
    x0, y0 = box[0] + BORDER + 4, box[1] + BORDER + 4
    font = _font(26)
    w = draw.textlength(text, font=font)
    draw.rectangle((x0, y0, x0 + w + 24, y0 + 44), fill="#fff3a8", outline="black", width=3)
    draw.text((x0 + 12, y0 + 8), text, fill="black", font=font)


def _panel(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], sky: str) -> None:
    draw.rectangle(box, fill=sky, outline="black", width=BORDER)
    x0, y0, x1, y1 = box
    ground = y1 - (y1 - y0) // 5
    draw.rectangle((x0 + BORDER, ground, x1 - BORDER, y1 - BORDER), fill="#b9d98c")


def _rtl_page(
    panels: list[tuple[tuple[int, int, int, int], str, list[Figure], list[Speech], str | None]],
) -> bytes:
    page = Image.new("RGB", (W, H), "white")
    draw = ImageDraw.Draw(page)
    for box, sky, figures, speeches, caption in panels:
        _panel(draw, box, sky)
        for f in figures:
            _figure(draw, f)
        for s in speeches:
            _balloon(draw, s)
        if caption:
            _caption(draw, box, caption)
    buf = io.BytesIO()
    page.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def make_rtl_sample(out: Path) -> None:
    half = (W - 2 * MARGIN - GUTTER) // 2
    top = (MARGIN, MARGIN, W - MARGIN, MARGIN + 600)
    bottom_y = MARGIN + 600 + GUTTER
    # Reading right to left: in a row, the right-hand panel comes first.
    right_top = (W - MARGIN - half, MARGIN, W - MARGIN, MARGIN + 600)
    left_top = (MARGIN, MARGIN, MARGIN + half, MARGIN + 600)
    wide_bottom = (MARGIN, bottom_y, W - MARGIN, H - MARGIN)
    right_bottom = (W - MARGIN - half, bottom_y, W - MARGIN, H - MARGIN)
    left_bottom = (MARGIN, bottom_y, MARGIN + half, H - MARGIN)

    girl1, man1 = Figure(right_top[0] + 140, 380, hat=False), Figure(left_top[0] + 290, 380, hat=True)
    girl3, man3 = Figure(620, bottom_y + 330, hat=False), Figure(360, bottom_y + 330, hat=True)
    page1 = _rtl_page(
        [
            (
                right_top,
                "#cfe8ff",
                [girl1],
                [Speech("GOOD MORNING!\nIS THE TRAIN\nLATE?", right_top[0] + 230, 170, girl1)],
                None,
            ),
            (
                left_top,
                "#cfe8ff",
                [man1],
                [Speech("IT IS ALWAYS\nLATE ON\nMONDAYS.", left_top[0] + 190, 170, man1)],
                None,
            ),
            (
                wide_bottom,
                "#ffe2c4",
                [girl3, man3],
                [
                    Speech("THEN I WILL\nWAIT WITH YOU.", 760, bottom_y + 150, girl3),
                    Speech("YOU ARE\nVERY KIND.", 220, bottom_y + 180, man3),
                ],
                "TEN MINUTES LATER...",
            ),
        ]
    )
    man_w, girl_w = Figure(380, 390, hat=True), Figure(640, 390, hat=False)
    girl5, man6 = (
        Figure(right_bottom[0] + 200, bottom_y + 330, hat=False),
        Figure(left_bottom[0] + 200, bottom_y + 330, hat=True),
    )
    page2 = _rtl_page(
        [
            (top, "#d7d0ff", [man_w, girl_w], [Speech("HERE IT COMES\nAT LAST!", 760, 170, girl_w)], None),
            (
                right_bottom,
                "#d7d0ff",
                [girl5],
                [Speech("HOLD ON TO\nYOUR HAT!", right_bottom[0] + 220, bottom_y + 120, girl5)],
                None,
            ),
            (
                left_bottom,
                "#d7d0ff",
                [man6],
                [Speech("SEE YOU\nTOMORROW!", left_bottom[0] + 220, bottom_y + 120, man6)],
                None,
            ),
        ]
    )
    info = comicinfo_xml(
        {
            "Title": "The Late Train",
            "Series": "Panelvox Samples",
            "Number": "1",
            "Summary": "A girl keeps an old man company while they wait for a late Monday train.",
            "Writer": "The Panelvox project",
            "Penciller": "The Panelvox project",
            "LanguageISO": "en",
            "BlackAndWhite": "No",
            "Manga": "YesAndRightToLeft",
            "PageCount": "2",
        },
        ["Story", "Story"],
    )
    write_cbz(out, [("page1.png", page1), ("page2.png", page2)], info)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="folder of cib page images")
    parser.add_argument("--out", type=Path, default=REPO / "assets")
    args = parser.parse_args()
    make_sample(args.source, args.out / "sample.cbz")
    make_rtl_sample(args.out / "sample-rtl.cbz")
    for name in ("sample.cbz", "sample-rtl.cbz"):
        print(f"{args.out / name}: {(args.out / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
