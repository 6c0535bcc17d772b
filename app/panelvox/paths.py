"""The platform's standard folders for Panelvox's settings, state, caches and data.

Linux (and other free Unix): the XDG base directories, honouring ``$XDG_*_HOME``.
Windows: ``%APPDATA%\\Panelvox`` for settings and data that roam with the user,
``%LOCALAPPDATA%\\Panelvox`` for state and caches. macOS: ``~/Library/Application Support``,
``~/Library/Caches`` and ``~/Library/Logs``, as Apple's guidelines ask.

Every module takes its folders from here, so one place decides them for each platform.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

APP = "panelvox"
#: the folder name on Windows and macOS, where folders are capitalised
APP_TITLE = "Panelvox"


class Kind(Enum):
    CONFIG = "config"  # settings the user chose
    STATE = "state"  # logs, reading positions, the first-launch marker
    CACHE = "cache"  # page analyses that can be remade
    DATA = "data"  # added voices and models, the model manifest


@dataclass(frozen=True, slots=True)
class Platform:
    """What decides the folders: the OS, the environment and the home folder."""

    system: str  # "linux", "win32", "darwin" (sys.platform style)
    env: Mapping[str, str]
    home: Path

    @classmethod
    def current(cls) -> Platform:
        return cls(sys.platform, os.environ, Path.home())


_XDG = {
    Kind.CONFIG: ("XDG_CONFIG_HOME", ".config"),
    Kind.STATE: ("XDG_STATE_HOME", ".local/state"),
    Kind.CACHE: ("XDG_CACHE_HOME", ".cache"),
    Kind.DATA: ("XDG_DATA_HOME", ".local/share"),
}

_MAC = {
    Kind.CONFIG: "Library/Application Support",
    Kind.STATE: "Library/Application Support",
    Kind.CACHE: "Library/Caches",
    Kind.DATA: "Library/Application Support",
}


def folder(kind: Kind, platform: Platform | None = None) -> Path:
    """Panelvox's folder of ``kind`` on ``platform`` (this machine by default); not created."""
    p = platform or Platform.current()
    if p.system == "win32":
        roaming = kind in (Kind.CONFIG, Kind.DATA)
        var, fallback = ("APPDATA", "AppData/Roaming") if roaming else ("LOCALAPPDATA", "AppData/Local")
        base = Path(p.env.get(var) or p.home / fallback) / APP_TITLE
        return base / "Cache" if kind is Kind.CACHE else base
    if p.system == "darwin":
        base = p.home / _MAC[kind] / APP_TITLE
        return base / "State" if kind is Kind.STATE else base
    var, fallback = _XDG[kind]
    value = p.env.get(var, "")
    # the XDG spec: a relative path in the variable is invalid and must be ignored
    root = Path(value) if value and Path(value).is_absolute() else p.home / fallback
    return root / APP


def config_dir(platform: Platform | None = None) -> Path:
    return folder(Kind.CONFIG, platform)


def state_dir(platform: Platform | None = None) -> Path:
    return folder(Kind.STATE, platform)


def cache_dir(platform: Platform | None = None) -> Path:
    return folder(Kind.CACHE, platform)


def data_dir(platform: Platform | None = None) -> Path:
    return folder(Kind.DATA, platform)


def bundle_dir() -> Path | None:
    """The folder of the one-folder build's files when running frozen (PyInstaller), else None."""
    meipass = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and meipass:
        return Path(meipass)
    return None


def sample_book() -> Path | None:
    """The sample book: inside the build when frozen, else in the source tree's assets/."""
    bundle = bundle_dir()
    root = bundle if bundle is not None else Path(__file__).resolve().parents[2]
    path = root / "assets" / "sample.cbz"
    return path if path.is_file() else None
