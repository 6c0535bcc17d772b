"""Shared fixtures. Real evaluation data lives in ../shared/data (absent on users' machines)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from panelvox.analysis.cache import PageAnalyzer

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
#: the evaluation data: $PANELVOX_EVAL_DATA (as `panelvox eval` reads it), else ../shared/data
SHARED_DATA = Path(os.environ.get("PANELVOX_EVAL_DATA") or REPO.parent / "shared" / "data")
#: where the golden tests keep their page analyses between runs on this machine: keyed by the
#: stages' fingerprint (``analysis/cache.py``), so a change to a stage's code or data never
#: reads an old analysis; ``PANELVOX_GOLDEN_CACHE=off`` analyses every page again
GOLDEN_CACHE = os.environ.get("PANELVOX_GOLDEN_CACHE") or str(REPO / ".cache" / "golden")


@pytest.fixture(scope="session")
def _made_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the models Panelvox makes on first use (the int8 text detector), shared
    by the tests so it is made once per run (tests/unit/test_ocr_quant.py makes its own)."""
    return tmp_path_factory.mktemp("made-models")


@pytest.fixture(autouse=True)
def _isolated_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, _made_models: Path
) -> None:
    """Logs, caches and reading positions of a test never touch the real home; what a test
    could not save is not said in the next one."""
    from panelvox.jsonfile import forget_notices

    forget_notices()
    home = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    monkeypatch.delenv("PANELVOX_PRECISION", raising=False)
    (home / "xdg_cache_home" / "panelvox").mkdir(parents=True)
    (home / "xdg_cache_home" / "panelvox" / "models").symlink_to(_made_models, target_is_directory=True)


@pytest.fixture
def golden_analyzer() -> PageAnalyzer:
    """The default pipeline, its analyses kept in :data:`GOLDEN_CACHE` between runs."""
    from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint
    from panelvox.analysis.pipeline import default_stages

    stages = default_stages()
    if GOLDEN_CACHE == "off":
        return PageAnalyzer(stages, None)
    return PageAnalyzer(stages, AnalysisCache(Path(GOLDEN_CACHE), pipeline_fingerprint(stages)))


@pytest.fixture
def shared_data() -> Path:
    """The evaluation data folder; skips the test where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA
