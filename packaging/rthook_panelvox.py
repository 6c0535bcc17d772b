"""PyInstaller runtime hook: point Panelvox at what the one-folder build carries.

Runs before ``panelvox`` is imported, inside the frozen app only. Every variable is set
with ``setdefault``, so a user (or a test) can still point elsewhere.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from pathlib import Path


def _setup() -> None:
    root = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    # onnxruntime's telemetry off before anything could import it (panelvox/__init__ does
    # the same; here it also holds for whatever the frozen app imports first)
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    # the voice map and the Piper voice list (voices/manifest.json of the source tree)
    manifest = root / "voices" / "manifest.json"
    if manifest.is_file():
        os.environ.setdefault("PANELVOX_VOICES", str(manifest))
    # espeak-ng (the pyttsx3 voice): the build carries libespeak-ng and its data, so the
    # machine needs neither. espeak-ng reads $ESPEAK_DATA_PATH/espeak-ng-data. Loading the
    # carried library by its full path first makes pyttsx3's dlopen("libespeak-ng.so.1")
    # find it, whatever LD_LIBRARY_PATH says.
    if (root / "espeak-ng-data").is_dir():
        os.environ.setdefault("ESPEAK_DATA_PATH", str(root))
        lib = root / "libespeak-ng.so.1"
        if lib.is_file():
            # if it fails, pyttsx3 tries the system library and says so if that is missing
            with contextlib.suppress(OSError):
                ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)


_setup()
