"""The noisy same-person oracle of scripts/speaker_oracle_curve.py: it has the AUC it is asked
for, and its log-odds are calibrated (the grouping's merge biases keep their meaning)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "speaker_oracle_curve.py"


@pytest.fixture(scope="module")
def curve() -> ModuleType:
    spec = importlib.util.spec_from_file_location("speaker_oracle_curve", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0])
def test_generated_scores_have_the_target_auc(curve: ModuleType, target: float) -> None:
    rng = np.random.default_rng(7)
    same = rng.random(20000) < 0.3
    scores = curve.oracle_log_odds(same, target, 0.3, rng)
    assert abs(curve.auc_of(scores, same) - target) <= 0.03


def test_log_odds_are_calibrated(curve: ModuleType) -> None:
    # the mean posterior of a calibrated score is the base rate, and high scores are mostly "same"
    rng = np.random.default_rng(3)
    same = rng.random(40000) < 0.2
    lo = curve.oracle_log_odds(same, 0.8, 0.2, rng)
    p = 1.0 / (1.0 + np.exp(-lo))
    assert abs(p.mean() - 0.2) < 0.01
    sure = p > 0.7
    assert abs(same[sure].mean() - p[sure].mean()) < 0.03


def test_auc_of_counts_ties_as_half(curve: ModuleType) -> None:
    assert curve.auc_of([1.0, 1.0, 1.0], [True, False, True]) == 0.5
    assert curve.auc_of([0.0, 1.0], [False, True]) == 1.0
    assert np.isnan(curve.auc_of([0.0, 1.0], [True, True]))


def test_interpolated_auc_for_a_target(curve: ModuleType) -> None:
    aucs, means = [0.5, 0.7, 0.9], [0.5, 0.6, 0.8]
    assert curve.interpolate(0.7, aucs, means) == "0.800"
    assert curve.interpolate(0.4, aucs, means).startswith("≤")
    assert "not reached" in curve.interpolate(0.9, aucs, means)
