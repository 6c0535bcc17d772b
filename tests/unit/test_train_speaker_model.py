"""A smoke run of the speaker models' training (scripts/train_speaker_model.py) on two stories.

The shipped models (``analysis/data/speaker_pairs.json``, ``names/data/person_links.json``)
are what CI uses; this checks that the script that made them still runs end to end, from the
golden scripts to the held-out report, without writing anything. Skipped without
../shared/data.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_speaker_training_runs_on_two_stories(shared_data: Path, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PANELVOX_EVAL_DATA": str(shared_data)}
    before = {p: p.read_bytes() for p in (REPO / "app/panelvox/names/data/person_links.json",)}
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "train_speaker_model.py"),
            "--stories",
            "2",
            "--biases",
            "1.5",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "chosen book merge bias +1.50" in done.stdout
    assert "story attribution" in done.stdout
    assert all(p.read_bytes() == b for p, b in before.items())  # nothing written without --write
