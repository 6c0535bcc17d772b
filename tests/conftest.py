"""Shared fixtures. Real evaluation data lives in ../shared/data (absent on users' machines)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Logs, caches and reading positions of a test never touch the real home; what a test
    could not save is not said in the next one."""
    from panelvox.jsonfile import forget_notices

    forget_notices()
    home = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))


@pytest.fixture
def shared_data() -> Path:
    """The evaluation data folder; skips the test where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA
