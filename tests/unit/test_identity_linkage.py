"""The numpy average-linkage cut in analysis/identity.py gives SciPy's partition.

SciPy is not shipped in the built app, so identity.py clusters without it; SciPy (still
installed for `panelvox eval`) is the reference here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from panelvox.analysis.identity import average_linkage_cut, cluster


def _partition(labels: list[int] | np.ndarray) -> set[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for k, lab in enumerate(labels):
        groups.setdefault(int(lab), set()).add(k)
    return {frozenset(g) for g in groups.values()}


def _scipy_cut(d: np.ndarray, t: float) -> np.ndarray:
    hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
    distance = pytest.importorskip("scipy.spatial.distance")
    return hierarchy.fcluster(
        hierarchy.linkage(distance.squareform(d, checks=False), method="average"),
        t=t,
        criterion="distance",
    )


@settings(max_examples=200, deadline=None)
@given(
    points=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=14),
    threshold=st.floats(0.05, 1.2),
    apart=st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13)), max_size=4),
)
def test_same_partition_as_scipy(
    points: list[tuple[float, float, float]], threshold: float, apart: list[tuple[int, int]]
) -> None:
    x = np.array(points, np.float64)
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    upper = d[np.triu_indices(len(x), 1)]
    # equal distances (a point drawn twice) make the merge order, and the partition, ambiguous
    assume(len(np.unique(np.round(upper, 9))) == len(upper))
    for i, j in apart:  # cannot-link pairs, as identity.cluster makes them
        if i < len(x) and j < len(x) and i != j:
            d[i, j] = d[j, i] = 10.0
    assert _partition(average_linkage_cut(d, threshold)) == _partition(_scipy_cut(d, threshold))


def test_cut_keeps_far_points_apart_and_joins_near_ones() -> None:
    d = np.array(
        [
            [0.0, 0.1, 0.9, 0.95],
            [0.1, 0.0, 0.85, 0.9],
            [0.9, 0.85, 0.0, 0.2],
            [0.95, 0.9, 0.2, 0.0],
        ]
    )
    assert _partition(average_linkage_cut(d, 0.3)) == {frozenset({0, 1}), frozenset({2, 3})}
    assert _partition(average_linkage_cut(d, 0.05)) == {frozenset({k}) for k in range(4)}
    assert _partition(average_linkage_cut(d, 1.0)) == {frozenset(range(4))}


def test_average_not_single_linkage() -> None:
    # a chain 0-1-2 with short links but a long end-to-end distance: single linkage would
    # join all three at 0.3; average linkage joins 0 and 1 (0.2), then 2 at (0.3+0.9)/2 = 0.6
    d = np.array([[0.0, 0.2, 0.9], [0.2, 0.0, 0.3], [0.9, 0.3, 0.0]])
    assert _partition(average_linkage_cut(d, 0.5)) == {frozenset({0, 1}), frozenset({2})}
    assert _partition(average_linkage_cut(d, 0.65)) == {frozenset({0, 1, 2})}


def test_cluster_labels_follow_first_appearance() -> None:
    a = np.array([1.0, 0.0, 0.0, 0.0], np.float32)
    b = np.array([0.0, 0.0, 0.0, 1.0], np.float32)
    assert cluster([b, a, b, a], [None] * 4) == [0, 1, 0, 1]


@pytest.mark.parametrize("threshold", [0.2, 0.45, 0.8, 3.0])
def test_same_partition_as_scipy_on_a_book_sized_input(threshold: float) -> None:
    rng = np.random.default_rng(11)
    x = rng.random((150, 5))
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    for i, j in rng.integers(0, 150, (40, 2)):
        if i != j:
            d[i, j] = d[j, i] = 10.0
    assert _partition(average_linkage_cut(d, threshold)) == _partition(_scipy_cut(d, threshold))
