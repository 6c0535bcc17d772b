"""Whether a panel is said with "Order unclear." (and a page with "The order of these panels
is unclear."): cuts calibrated on the golden scripts. Pure.

The order stage reads a panel's blocks by XY cuts and lowers its confidence where a cut
needed the overlap tolerance or where no cut existed (a top-first fallback). Said at every
low confidence, the cue came before panels whose balloons were in the right order far more
often than not (issue 31: 8 times in 5 pages of one story; on the cib and cib-extra scripts 69
checkable panels cued, 3 of them out of order, against 8 of 222 uncued ones), so it told the
listener nothing. It is said where a panel's order is more likely wrong than right, as the
words' cue is: where the least sure of the stage's decisions inside the panel is at or under
a cut chosen by ``scripts/train_order_cue.py`` on the cib golden scripts, held out by story,
and shipped as data. A logistic regression over everything the stage knew of the panel
(:data:`FEATURES`) was tried first; held out by story it ranked wrong panels worse than
chance, so the single cut ships, and on those scripts no cut qualifies: the cue is kept for
books where one would, and the figures are in docs/benchmarks.md. The page's notice is
chosen the same way, on the least sure panel's place.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from panelvox.analysis.order_stage import FALLBACK_CONFIDENCE, order_boxes
from panelvox.checksum import sha256_of_values
from panelvox.model import BalloonKind, PageAnalysis, ReadingDirection

MODEL_FORMAT = "panelvox.order-cue/1"
MODEL_FILE = "data/order_cue.json"
#: what the order stage knew of a panel's blocks when it ordered them (each in [0, 1])
FEATURES = (
    "blocks",  # how many blocks the panel holds (of 8): more blocks, more ways to go wrong
    "inner_confidence",  # the least sure of the stage's decisions inside the panel
    "fallback_share",  # share of the blocks placed by the top-first fallback (no clean cut)
    "tolerant_share",  # share placed by a cut that needed the overlap tolerance
    "panel_confidence",  # how sure the stage is of the panel's own place on the page
    "captions",  # share of captions (read first, so a misplaced one is a wrong order)
)
INNER = FEATURES.index("inner_confidence")
#: what decides the page's notice: the least sure panel's place on the page
PAGE_FEATURE = "least_panel_confidence"


def panel_features(analysis: PageAnalysis, panel_id: str) -> tuple[float, ...]:
    """The :data:`FEATURES` of panel ``panel_id`` on an ordered page."""
    panel = analysis.panel(panel_id)
    blocks = [b for b in analysis.blocks if b.panel == panel_id and not b.title]
    # Inside a yonkoma panel text reads as in any manga panel (as the order stage does).
    direction = analysis.direction
    inner = ReadingDirection.RTL if direction is ReadingDirection.TTB_RTL else direction
    ranked = order_boxes([b.bbox for b in blocks], inner)
    confidences = [r.confidence for r in ranked] or [1.0]
    n = max(len(blocks), 1)
    return (
        min(len(blocks), 8) / 8,
        min(confidences),
        sum(c <= FALLBACK_CONFIDENCE for c in confidences) / n,
        sum(FALLBACK_CONFIDENCE < c < 1.0 for c in confidences) / n,
        panel.order_confidence if panel is not None else 1.0,
        sum(b.kind is BalloonKind.CAPTION for b in blocks) / n,
    )


def page_feature(analysis: PageAnalysis) -> float:
    """What the order stage knew of the page's panel order: its least sure panel's place."""
    return min((p.order_confidence for p in analysis.panels), default=1.0)


@dataclass(frozen=True, slots=True)
class OrderCueModel:
    """ "Order unclear." is said where the stage's least sure decision inside a panel is at or
    under ``cut``; "The order of these panels is unclear." where its least sure panel place
    is at or under ``page_cut`` (0: never, as the order stage's confidences are never 0)."""

    cut: float
    page_cut: float = 0.0

    def doubtful(self, analysis: PageAnalysis, panel_id: str) -> bool:
        """Whether "Order unclear." is said for the panel: its order is more likely wrong than right."""
        return panel_features(analysis, panel_id)[INNER] <= self.cut

    def panels_doubtful(self, analysis: PageAnalysis) -> bool:
        """Whether the page's panel order is said to be unclear (more likely wrong than right)."""
        return len(analysis.panels) > 1 and page_feature(analysis) <= self.page_cut

    def to_json(self, **extra: object) -> dict[str, object]:
        weights = {"cut": round(self.cut, 6), "page_cut": round(self.page_cut, 6)}
        return {
            "format": MODEL_FORMAT,
            "feature": FEATURES[INNER],
            "page_feature": PAGE_FEATURE,
            **weights,
            "sha256": _digest(weights),
            **extra,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OrderCueModel:
        if (
            data.get("format") != MODEL_FORMAT
            or data.get("feature") != FEATURES[INNER]
            or data.get("page_feature") != PAGE_FEATURE
        ):
            raise ValueError("the order cue does not match this code's features")
        if data.get("sha256") != _digest({k: data.get(k) for k in _WEIGHTS}):
            raise ValueError("the order cue's cuts do not match their sha256")
        return cls(float(data["cut"]), float(data["page_cut"]))

    @staticmethod
    @functools.cache
    def shipped() -> OrderCueModel:
        """The cut that ships in the package (read once per process)."""
        text = resources.files("panelvox.narration").joinpath(MODEL_FILE).read_text("utf-8")
        return OrderCueModel.from_json(json.loads(text))


_WEIGHTS = ("cut", "page_cut")


def _digest(weights: Mapping[str, object]) -> str:
    """The sha256 of the cuts, written canonically (sorted keys, no spaces)."""
    return sha256_of_values({k: weights[k] for k in _WEIGHTS})
