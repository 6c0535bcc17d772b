"""Qt on the build's cut-down ICU data (packaging/icu): what Qt uses ICU for still works.

The smaller libicudata is built in a temporary folder and preloaded into a child Python
(the dynamic linker then takes it for PySide6's libicudata.so.73 by its SONAME).
"""

from __future__ import annotations

import os
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
    return load_build_script("icu/build_icudata.py")


CHECKS = textwrap.dedent(
    """
    import sys
    from functools import cmp_to_key

    from PySide6.QtCore import QCollator, QCoreApplication, QLocale, QTimeZone, QUrl

    app = QCoreApplication([])
    maps = open("/proc/self/maps").read()
    assert sys.argv[1] in maps, "the small ICU data is not the one loaded"
    # collation (ICU coll/ data, kept): German ä sorts with a, Swedish ä after z
    assert QCollator(QLocale("de_DE")).compare("ähnlich", "bauen") < 0
    assert QCollator(QLocale("sv_SE")).compare("ära", "zon") > 0
    words = ["zebra", "Äpfel", "apple", "Zoo"]
    assert sorted(words, key=cmp_to_key(QCollator(QLocale("en_US")).compare)) == ["Äpfel", "apple", "zebra", "Zoo"]
    # case mapping with a locale (ICU ucase): Turkish dotted capital I
    assert QLocale("tr_TR").toUpper("i") == "\\u0130"
    assert QLocale("en_US").toUpper("straße") == "STRASSE"
    # IDNA (ICU uts46)
    assert bytes(QUrl("http://bücher.example/").toEncoded()).decode() == "http://xn--bcher-kva.example/"
    # Qt's own CLDR data, untouched
    assert QLocale("fr_FR").toString(1234.5, "f", 1).replace("\\u202f", " ") == "1 234,5"
    assert QLocale("de_DE").nativeLanguageName() == "Deutsch"
    # time zones still work; a display name may fall back to an offset
    zone = QTimeZone(b"Europe/Paris")
    assert zone.isValid() and zone.displayName(QTimeZone.TimeType.StandardTime)
    print("icu ok")
    """
)


def test_qt_works_on_the_small_icu_data(tmp_path: Path) -> None:
    builder = _builder()
    if builder.tools() is None:
        pytest.skip("needs a C compiler and icupkg (icu-devtools)")
    lib_dir = Path(sysconfig.get_paths()["purelib"]) / "PySide6" / "Qt" / "lib"
    original = sorted(lib_dir.glob("libicudata.so.*"))
    if not original:
        pytest.skip("this PySide6 carries no ICU")
    small = builder.build_icudata(original[0], tmp_path)
    assert small.stat().st_size < original[0].stat().st_size * 0.5
    script = tmp_path / "checks.py"
    script.write_text(CHECKS, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script), str(small)],
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "LD_PRELOAD": str(small),
            "QT_QPA_PLATFORM": "offscreen",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("icu ok")


def test_the_dropped_items_are_only_names_converters_and_transforms() -> None:
    builder = _builder()
    assert builder.dropped("curr/af.res") and builder.dropped("zone/en.res")
    assert builder.dropped("ibm-1390_P110-2003.cnv") and builder.dropped("unames.icu")
    for kept in ("coll/de.res", "brkitr/word.brk", "en.res", "root.res", "uts46.nrm", "zoneinfo64.res"):
        assert not builder.dropped(kept), kept
