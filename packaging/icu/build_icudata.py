"""Qt's ICU data without the parts Qt never reads: a smaller libicudata for the build.

PySide6's Qt links ICU, whose data library (libicudata.so.73) is 32 MB. Qt uses ICU for
collation, case mapping, normalisation, IDNA and break iteration, and keeps its own CLDR
tables for QLocale. The build keeps those ICU items and the locales' core data and drops
what no Qt call reaches from the reader: display names of languages, regions, currencies,
units and time zones (lang/, region/, curr/, unit/, zone/), spelled-out numbers (rbnf/),
transliteration (translit/), the legacy character-set converters (*.cnv; Panelvox reads
text through Python, never QStringConverter) and Unicode character names (unames.icu).
If ICU does ask for a dropped item it gets "missing resource" and Qt falls back, as it
does for any locale ICU does not know.

The data is cut with ICU's own ``icupkg`` (Debian's icu-devtools) and linked back into a
library of the same name exporting the same ``icudt<N>_dat`` symbol.

    python packaging/icu/build_icudata.py LIBICUDATA OUT_DIR   # by hand
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

#: item name prefixes ("curr/af.res"), suffixes and names that are dropped
DROP_PREFIXES = ("lang/", "region/", "curr/", "unit/", "zone/", "rbnf/", "translit/")
DROP_SUFFIXES = (".cnv",)
DROP_NAMES = ("unames.icu",)


def tools() -> tuple[str, str] | None:
    cc = shutil.which("cc") or shutil.which("gcc")
    icupkg = shutil.which("icupkg")
    return (cc, icupkg) if cc and icupkg else None


def _symbol(library: Path) -> tuple[str, int, int]:
    """Name, file offset and size of the ``icudt<N>_dat`` symbol."""
    syms = subprocess.run(["readelf", "-Ws", str(library)], capture_output=True, text=True, check=True).stdout
    match = re.search(
        r"^\s*\d+:\s+([0-9a-f]+)\s+(\S+)\s+OBJECT\s+GLOBAL\s+\S+\s+\S+\s+(icudt\d+_dat)$", syms, re.M
    )
    if match is None:
        raise RuntimeError(f"no icudt*_dat symbol in {library}")
    address, size_text, name = int(match.group(1), 16), match.group(2), match.group(3)
    size = int(size_text, 0)
    heads = subprocess.run(
        ["readelf", "-lW", str(library)], capture_output=True, text=True, check=True
    ).stdout
    for line in heads.splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD":
            offset, vaddr, filesz = int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)
            if vaddr <= address < vaddr + filesz:
                return name, address - vaddr + offset, size
    raise RuntimeError(f"{name} is in no loaded segment of {library}")


def dropped(item: str) -> bool:
    rel = item.split("/", 1)[1] if item.startswith("icudt") and "/" in item else item
    return rel.startswith(DROP_PREFIXES) or rel.endswith(DROP_SUFFIXES) or rel in DROP_NAMES


def build_icudata(library: Path, out_dir: Path) -> Path:
    """A copy of ``library`` with the items above left out, as ``out_dir/<same name>``."""
    found = tools()
    if found is None:
        raise RuntimeError("needs a C compiler and icupkg (Debian: icu-devtools)")
    cc, icupkg = found
    work = out_dir / "icu-src"
    work.mkdir(parents=True, exist_ok=True)
    name, offset, size = _symbol(library)
    stem = name.removesuffix("_dat")  # icudt73
    full = work / f"{stem}l.dat"
    with library.open("rb") as f:
        f.seek(offset)
        full.write_bytes(f.read(size))
    listing = subprocess.run([icupkg, "-l", str(full)], capture_output=True, text=True, check=True).stdout
    items = [line.strip() for line in listing.splitlines() if line.strip()]
    remove = [item for item in items if dropped(item)]
    if not remove or len(remove) == len(items):
        raise RuntimeError(f"unexpected ICU data layout in {library} ({len(items)} items)")
    (work / "remove.txt").write_text("\n".join(remove) + "\n", encoding="utf-8")
    # the output keeps the input's name: icupkg writes it as the items' path prefix
    (work / "small").mkdir(exist_ok=True)
    small = work / "small" / full.name
    # icupkg takes the list by a name relative to where it runs
    proc = subprocess.run(
        [icupkg, "-r", "remove.txt", full.name, f"small/{full.name}"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not small.is_file():
        raise RuntimeError(f"icupkg failed: {proc.stderr.strip()[-500:]}")
    asm = work / "icudata.S"
    asm.write_text(
        "\n".join(
            [
                '.section .rodata, "a"',
                f".globl {name}",
                f".type {name}, @object",
                ".balign 16",
                f"{name}:",
                f'.incbin "{small}"',
                f".size {name}, . - {name}",
                '.section .note.GNU-stack, "", @progbits',
                "",
            ]
        ),
        encoding="utf-8",
    )
    out = out_dir / library.name
    soname = subprocess.run(
        ["readelf", "-d", str(library)], capture_output=True, text=True, check=True
    ).stdout
    match = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", soname)
    cmd = [cc, "-shared", "-nostdlib", f"-Wl,-soname,{match.group(1) if match else library.name}"]
    proc = subprocess.run([*cmd, "-o", str(out), str(asm)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"linking the ICU data failed: {proc.stderr.strip()}")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: build_icudata.py LIBICUDATA OUT_DIR", file=sys.stderr)
        return 2
    out = build_icudata(Path(argv[1]), Path(argv[2]))
    print(f"{out}: {out.stat().st_size / 1e6:.1f} MB (was {Path(argv[1]).stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
