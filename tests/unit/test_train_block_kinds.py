"""A smoke run of the block kind model's training (scripts/train_block_kinds.py) on two
stories: the script still runs from the golden scripts to the held-out comparison with the
rules, without writing anything; the model alone and the variant that reads the pages again
with the failing rules deleted and the passing ones as features. Skipped without ../shared/data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["learned", "folded-features"])
def test_the_block_kind_training_runs_on_two_stories(shared_data: Path, tmp_path: Path, variant: str) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PANELVOX_EVAL_DATA": str(shared_data)}
    model = REPO / "app/panelvox/analysis/data/block_kinds.json"
    before = model.read_bytes() if model.exists() else None
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "train_block_kinds.py"),
            "--stories",
            "2",
            "--cs",
            "1",
            "--junk-biases",
            "0",
            "--variant",
            variant,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "rules (now, in sample) on cib" in done.stdout
    assert "held out by story on cib" in done.stdout
    assert (model.read_bytes() if model.exists() else None) == before  # nothing written without --write
