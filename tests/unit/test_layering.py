"""Imports point downward: ui → reader → narration/speech → analysis → model.

Checked on the source text (static imports), so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "app" / "panelvox"

_EVERY_AREA = {
    "model",
    "books",
    "analysis",
    "models",
    "narration",
    "speech",
    "reader",
    "ui",
    "export",
    "eval",
}

# area -> areas it must never import
FORBIDDEN: dict[str, set[str]] = {
    "model": {"books", "analysis", "models", "narration", "speech", "reader", "ui", "export", "eval"},
    "books": {"analysis", "narration", "speech", "reader", "ui", "export", "eval"},
    "analysis": {"narration", "speech", "reader", "ui", "export", "eval"},
    "models": {"narration", "speech", "reader", "ui", "export", "eval"},
    "narration": {"reader", "ui", "export", "eval"},
    "speech": {"reader", "ui", "export", "eval", "analysis"},
    "reader": {"ui"},
    "eval": {"ui", "reader", "speech"},
    # the shared text matcher (eval metrics and the verifier) sits below every area
    "textmatch": _EVERY_AREA,
    # so does the one sha256 helper (OCR models, voices, the model registry)
    "checksum": _EVERY_AREA,
}
QT_FREE = {
    "textmatch",
    "checksum",
    "model",
    "books",
    "analysis",
    "models",
    "narration",
    "eval",
    "speech",
    "reader",
    "export",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _area(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_imports_point_downward_and_core_is_qt_free() -> None:
    problems = []
    for path in PKG.rglob("*.py"):
        area = _area(path)
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "panelvox" and len(parts) > 1 and parts[1] in FORBIDDEN.get(area, set()):
                problems.append(f"{path.relative_to(PKG)} imports {name}")
            if area in QT_FREE and parts[0] in {"PySide6", "shiboken6"}:
                problems.append(f"{path.relative_to(PKG)} imports Qt ({name})")
    assert not problems, "\n".join(problems)
