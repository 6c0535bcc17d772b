"""A smoke run of the order cue's choice (scripts/train_order_cue.py) on two stories.

The shipped cuts (``narration/data/order_cue.json``) are what CI uses; this checks that the
script that chose them still runs end to end, from the golden scripts to the held-out
report, without writing anything. Skipped without ../shared/data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_order_cue_choice_runs_on_two_stories(shared_data: Path, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PANELVOX_EVAL_DATA": str(shared_data)}
    shipped = REPO / "app/panelvox/narration/data/order_cue.json"
    before = shipped.read_bytes()
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "train_order_cue.py"),
            "--stories",
            "2",
            "--text-cache",
            str(tmp_path / "lines"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout[done.stdout.index("{\n") :])
    assert report["before"]["panels"] == report["threshold_held_out"]["panels"] > 0
    assert set(report["cuts_on_every_story"]) == {"cut", "page_cut"}
    assert shipped.read_bytes() == before  # nothing written without --write
