"""A small logistic model over standardised features, shipped as JSON with a sha256.

The speakers stage's pair model and the book's person link model are both this: a mean and
a scale to standardise each feature row, weights and a bias to score it, and the merge bias
their grouping adds. A subclass names its format, features and shipped file; the JSON's
sha256 covers the weights as written, so a file edited by hand (or half written) is refused.
Below every area: it imports nothing from Panelvox but the sha256 helper.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar, Self, cast

import numpy as np
import numpy.typing as npt

from panelvox.checksum import sha256_of_values

log = logging.getLogger(__name__)

_WEIGHTS = ("mean", "scale", "coef", "intercept", "merge_bias")


@dataclass(frozen=True, slots=True)
class LogisticModel:
    """Logistic regression over standardised features, and the grouping's merge bias."""

    #: what the subclass says it is in errors ("the person link model"), its JSON's format,
    #: its features in order, and where its shipped JSON lies (a package and a file in it)
    WHAT: ClassVar[str]
    FORMAT: ClassVar[str]
    FEATURES: ClassVar[tuple[str, ...]]
    PACKAGE: ClassVar[str]
    FILE: ClassVar[str]

    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: float
    merge_bias: float

    def log_odds(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The log-odds of each feature row."""
        if rows.size == 0:
            return np.zeros(0)
        return np.asarray(((rows - self.mean) / self.scale) @ self.coef + self.intercept, np.float64)

    def to_json(self, **extra: object) -> dict[str, object]:
        weights = {
            "mean": [round(float(x), 6) for x in self.mean],
            "scale": [round(float(x), 6) for x in self.scale],
            "coef": [round(float(x), 6) for x in self.coef],
            "intercept": round(float(self.intercept), 6),
            "merge_bias": self.merge_bias,
        }
        head = {"format": self.FORMAT, "features": list(self.FEATURES)}
        return {**head, **weights, "sha256": digest(weights), **extra}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        if data.get("format") != cls.FORMAT or tuple(data.get("features", ())) != cls.FEATURES:
            raise ValueError(f"{cls.WHAT} does not match this code's features")
        if data.get("sha256") != digest({k: data.get(k) for k in _WEIGHTS}):
            raise ValueError(f"{cls.WHAT}'s weights do not match their sha256")
        arrays = [np.asarray(data[k], np.float64) for k in ("mean", "scale", "coef")]
        if any(a.shape != (len(cls.FEATURES),) for a in arrays):
            raise ValueError(f"{cls.WHAT} has the wrong number of weights")
        scale = np.where(arrays[1] > 0, arrays[1], 1.0)
        return cls(arrays[0], scale, arrays[2], float(data["intercept"]), float(data["merge_bias"]))

    @classmethod
    def shipped(cls) -> Self:
        """The model that ships in the package (read once per process); a file that does not
        match this code or its sha256 is refused, said in the log and raised (ValueError)."""
        if cls not in _SHIPPED:
            try:
                text = resources.files(cls.PACKAGE).joinpath(cls.FILE).read_text("utf-8")
                _SHIPPED[cls] = cls.from_json(json.loads(text))
            except ValueError as exc:  # a JSONDecodeError too
                log.error("%s/%s refused: %s", cls.PACKAGE, cls.FILE, exc)
                raise
        return cast(Self, _SHIPPED[cls])


_SHIPPED: dict[type[LogisticModel], LogisticModel] = {}


def digest(weights: Mapping[str, object]) -> str:
    """The sha256 of a model's weights, written canonically (sorted keys, no spaces)."""
    return sha256_of_values({k: weights[k] for k in _WEIGHTS})
