"""How the reader window looks (large text, high contrast, zoom), kept in settings.json.

The reader owns the ``"reader"`` key of the shared settings file and rewrites the file
atomically, keeping the other keys (narration owns ``"narration"``).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from panelvox.jsonfile import read_json_object, update_json_section
from panelvox.narration.prefs import settings_path

log = logging.getLogger(__name__)

SETTINGS_KEY = "reader"


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    large_text: bool = False
    high_contrast: bool = False
    zoom: bool = False  # zoom the page view to the current panel or balloon
    #: learn the rest of the book's pages in the background, so the reader's names and
    #: labels are those of ``export`` and ``narrate`` (off: only the pages read are learned)
    learn_book: bool = True


def load_reader_settings(path: Path | None = None) -> ReaderSettings:
    section = read_json_object(path or settings_path()).get(SETTINGS_KEY)
    if not isinstance(section, dict):
        return ReaderSettings()
    known = {f.name for f in fields(ReaderSettings)}
    return ReaderSettings(**{k: bool(v) for k, v in section.items() if k in known})


def save_reader_settings(settings: ReaderSettings, path: Path | None = None) -> None:
    try:
        update_json_section(path or settings_path(), SETTINGS_KEY, asdict(settings))
    except OSError as exc:  # settings that cannot be saved still apply for this session
        log.warning("cannot save reader settings: %r", exc)
