"""How the reader window looks (large text, high contrast, zoom), kept in settings.json.

The reader owns the ``"reader"`` key of the shared settings file and rewrites the file
atomically, keeping the other keys (narration owns ``"narration"``).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from panelvox.narration.prefs import settings_path

log = logging.getLogger(__name__)

SETTINGS_KEY = "reader"


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    large_text: bool = False
    high_contrast: bool = False
    zoom: bool = False  # zoom the page view to the current panel or balloon


def load_reader_settings(path: Path | None = None) -> ReaderSettings:
    target = path or settings_path()
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ReaderSettings()
    except (OSError, ValueError) as exc:
        log.warning("settings %s unreadable, using defaults: %r", target, exc)
        return ReaderSettings()
    section = data.get(SETTINGS_KEY) if isinstance(data, dict) else None
    if not isinstance(section, dict):
        return ReaderSettings()
    known = {f.name for f in fields(ReaderSettings)}
    return ReaderSettings(**{k: bool(v) for k, v in section.items() if k in known})


def save_reader_settings(settings: ReaderSettings, path: Path | None = None) -> None:
    target = path or settings_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data[SETTINGS_KEY] = asdict(settings)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:  # settings that cannot be saved still apply for this session
        log.warning("cannot save reader settings: %r", exc)
