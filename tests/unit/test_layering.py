"""Imports point downward: cli → ui → reader → pages → names → narration/speech → analysis → model.

Checked on the source text (static imports), so a lazy import inside a function counts too.
Every package is an area with its rules; nothing but ``cli`` itself imports ``cli``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "app" / "panelvox"

# area -> areas it must never import
_ALL = {
    "model",
    "books",
    "analysis",
    "models",
    "names",
    "pages",
    "narration",
    "speech",
    "reader",
    "ui",
    "export",
    "eval",
    "cli",
}
FORBIDDEN: dict[str, set[str]] = {
    "model": _ALL - {"model"},
    "books": {"analysis", "names", "pages", "narration", "speech", "reader", "ui", "export", "eval", "cli"},
    "analysis": {"names", "pages", "narration", "speech", "reader", "ui", "export", "eval", "cli"},
    "models": {"names", "pages", "narration", "speech", "reader", "ui", "export", "eval", "cli"},
    # the book's names pass: below the page service, above the stages; narration never names
    "names": {"pages", "narration", "speech", "reader", "ui", "export", "eval", "cli"},
    "pages": {"narration", "speech", "reader", "ui", "export", "eval", "cli"},
    # narration formats pages whose speakers already carry their names
    "narration": {"names", "pages", "reader", "ui", "export", "eval", "cli"},
    "speech": {"reader", "ui", "export", "eval", "analysis", "names", "pages", "cli"},
    "reader": {"ui", "export", "eval", "cli"},
    "export": {"reader", "ui", "eval", "cli"},
    "eval": {"ui", "reader", "speech", "export", "cli"},
    "ui": {"eval", "export", "cli"},
    # the shared text matcher (eval metrics and the verifier) sits below every area
    "textmatch": set(_ALL),
    # so does the one sha256 helper (OCR models, voices, the model registry)
    "checksum": set(_ALL),
    # so does the logistic model the speaker pairs and the book's person links share
    "logistic": set(_ALL),
    # which language a text is in (voices, narration, exports): below every area
    "languages": set(_ALL),
    "doctor": {"cli"},
    "page_json": _ALL - {"model"},  # the page JSON: the page model and nothing else
    "cli": set(),  # the commands use every area; no area uses them
    "paths": _ALL,
    "jsonfile": _ALL,
    "errors": _ALL,
    "i18n": _ALL,
}
QT_FREE = {
    "textmatch",
    "checksum",
    "model",
    "books",
    "analysis",
    "models",
    "names",
    "pages",
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


def test_every_package_has_rules() -> None:
    packages = {p.parent.name for p in PKG.glob("*/__init__.py")}
    assert packages <= set(FORBIDDEN), sorted(packages - set(FORBIDDEN))
