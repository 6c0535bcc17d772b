"""Golden scripts (``cib/script/<page>.json``): every line a perfect reading says, in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import GoldenScript, LineKind, ScriptLine
from panelvox.eval.loaders.common import read_json
from panelvox.i18n import _


def _malformed(path: Path, why: str) -> DatasetError:
    return DatasetError(
        # Translators: printed when a golden script of the evaluation data has an unexpected form.
        _("A golden script of the evaluation data is not in the expected form."),
        detail=f"{path}: {why}",
    )


def _parse_line(raw: Any, path: Path, i: int) -> ScriptLine:
    if not isinstance(raw, dict):
        raise _malformed(path, f"line {i} is not an object")
    try:
        kind = LineKind(raw["kind"])
    except (KeyError, ValueError) as exc:
        raise _malformed(path, f"line {i}: bad kind {raw.get('kind')!r}") from exc
    text, speaker, sure, panel = (
        raw.get("text"),
        raw.get("speaker"),
        raw.get("speaker_sure"),
        raw.get("panel"),
    )
    if not isinstance(text, str):
        raise _malformed(path, f"line {i}: text is not a string")
    if speaker is not None and not isinstance(speaker, str):
        raise _malformed(path, f"line {i}: speaker is not a string or null")
    if not isinstance(sure, bool):
        raise _malformed(path, f"line {i}: speaker_sure is not a boolean")
    # bool is an int subclass; a panel of `true` is a typo, not panel 1
    if panel is not None and (not isinstance(panel, int) or isinstance(panel, bool)):
        raise _malformed(path, f"line {i}: panel is not an integer or null")
    return ScriptLine(panel=panel, kind=kind, text=text, speaker=speaker, speaker_sure=sure)


def load_script(path: Path) -> GoldenScript:
    """Read one ``script/<page>.json``; raise :class:`DatasetError` when it is malformed."""
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise _malformed(path, "not an object")
    page, cast, lines, notes = raw.get("page"), raw.get("cast", {}), raw.get("lines"), raw.get("notes", "")
    if not isinstance(page, str):
        raise _malformed(path, "page is not a string")
    if not isinstance(cast, dict) or not all(
        isinstance(aliases, list) and all(isinstance(a, str) for a in aliases) for aliases in cast.values()
    ):
        raise _malformed(path, "cast is not an object of alias lists")
    if not isinstance(lines, list):
        raise _malformed(path, "lines is not a list")
    if not isinstance(notes, str):
        raise _malformed(path, "notes is not a string")
    return GoldenScript(
        page=page,
        cast={str(name): tuple(aliases) for name, aliases in cast.items()},
        lines=tuple(_parse_line(line, path, i) for i, line in enumerate(lines)),
        notes=notes,
    )


def load_scripts(folder: Path) -> list[GoldenScript]:
    """Every ``*.json`` of a script folder, sorted by file name."""
    return [load_script(p) for p in sorted(folder.glob("*.json"))]
