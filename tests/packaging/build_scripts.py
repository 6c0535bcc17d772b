"""Load the build's helper scripts (packaging/*/build_*.py), which are not a package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_build_script(relative: str) -> ModuleType:
    """The module of ``packaging/<relative>`` (e.g. ``"novideo/build_novideo.py"``)."""
    path = ROOT / "packaging" / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module
