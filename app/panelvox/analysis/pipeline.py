"""The page-analysis pipeline: an explicit tuple of named stages.

A stage is a pure function over the page model: it takes the page image and the
analysis so far and returns a *new* :class:`PageAnalysis` (never mutating its input).
Stages that need models get them through their constructor, so nothing is global::

    stages = (PanelStage(detector), TextStage(ocr), OrderStage())
    analysis = analyze_page(image, page=1, direction=ReadingDirection.LTR, stages=stages)
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from panelvox.errors import AnalysisError, PanelvoxError
from panelvox.i18n import _
from panelvox.model import Image, PageAnalysis, ReadingDirection

log = logging.getLogger(__name__)


class Stage(Protocol):
    """One step of page analysis."""

    #: short stable name, e.g. "panels"; recorded in ``PageAnalysis.stages``
    name: str

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis: ...


def empty_analysis(
    image: Image, page: int, direction: ReadingDirection, language: str | None = None
) -> PageAnalysis:
    height, width = image.shape[:2]
    return PageAnalysis(
        page=page, width=int(width), height=int(height), direction=direction, language=language
    )


#: pages larger than this (pixels) are analysed scaled down to it, so that no page takes
#: much longer than a large comic scan (about 3000 x 2000) and memory stays bounded
MAX_ANALYSIS_PIXELS = 8_000_000
_COORDINATES = frozenset({"bbox", "polygon", "tip"})


def _scaled(value: Any, factor: float) -> Any:
    if isinstance(value, list):
        return [_scaled(v, factor) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value * factor
    return value


def _rescaled(analysis: PageAnalysis, factor: float, width: int, height: int) -> PageAnalysis:
    """``analysis`` with every coordinate multiplied by ``factor``, on a page of the given size."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: _scaled(v, factor) if k in _COORDINATES else walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    data = walk(analysis.to_json())
    data["width"], data["height"] = width, height
    return PageAnalysis.from_json(data)


def analyze_page(
    image: Image,
    *,
    page: int,
    direction: ReadingDirection,
    stages: Sequence[Stage],
    language: str | None = None,
) -> PageAnalysis:
    """Run ``stages`` in order over one page of a book in ``language`` (ISO 639-1, None when
    unknown: the stages read it from ``PageAnalysis.language``).

    A stage that fails does not end the page: its failure becomes a notice (a short
    sentence the reader will speak) and the later stages run on what is known so far. A
    page over :data:`MAX_ANALYSIS_PIXELS` is analysed scaled down, with a notice, and its
    results are given in the page's own pixels.
    """
    height, width = image.shape[:2]
    if height * width > MAX_ANALYSIS_PIXELS:
        import cv2

        factor = math.sqrt(MAX_ANALYSIS_PIXELS / (height * width))
        size = (max(1, round(width * factor)), max(1, round(height * factor)))
        small = np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
        log.info("page %d (%d x %d) analysed at %d x %d", page, width, height, *size)
        result = _analyze(small, page, direction, stages, language)
        result = _rescaled(result, width / size[0], width, height)
        # Translators: said before a page whose picture is so large it was analysed at a smaller size.
        notice = _("This page is very large; it was analysed at a smaller size, so small text may be missed.")
        return replace(result, notices=(notice, *result.notices))
    return _analyze(image, page, direction, stages, language)


def _analyze(
    image: Image, page: int, direction: ReadingDirection, stages: Sequence[Stage], language: str | None
) -> PageAnalysis:
    analysis = empty_analysis(image, page, direction, language)
    for stage in stages:
        try:
            analysis = stage(image, analysis)
        except PanelvoxError as exc:
            log.warning("stage %s failed on page %d: %s", stage.name, page, exc.detail or exc)
            analysis = replace(
                analysis, notices=(*analysis.notices, exc.message), failed=(*analysis.failed, stage.name)
            )
        except Exception as exc:  # a stage bug must not end the book
            log.exception("stage %s crashed on page %d", stage.name, page)
            err = AnalysisError(
                # Translators: spoken when one step of reading a page failed; {step} is e.g. "panels".
                _("Part of this page could not be analysed ({step}).").format(step=stage.name),
                detail=repr(exc),
            )
            analysis = replace(
                analysis, notices=(*analysis.notices, err.message), failed=(*analysis.failed, stage.name)
            )
    return analysis


#: Canonical stage names, in pipeline order. ``panelvox eval`` reports a stage missing from
#: :func:`default_stages` as "not implemented".
STAGE_NAMES: tuple[str, ...] = ("panels", "text", "balloons", "order", "characters", "speakers")


def default_stages(*, read_dense: bool = False) -> tuple[Stage, ...]:
    """The embedded default pipeline (CPU, no downloads), in order.

    Each analysis issue adds its stage here; models are created once per call, so callers
    build the tuple once and reuse it for every page. ``read_dense``: running text (a
    credits or letters page) is read too, not only announced with its size.
    """
    # Imported here: the stage modules import this one.
    from panelvox.analysis.balloons_stage import BalloonsStage
    from panelvox.analysis.characters_stage import CharactersStage
    from panelvox.analysis.lettering import WordList
    from panelvox.analysis.order_stage import OrderStage
    from panelvox.analysis.panels_stage import PanelStage
    from panelvox.analysis.speakers_stage import SpeakersStage
    from panelvox.analysis.text_stage import TextStage

    words = WordList.load()  # shared: text (spacing), balloons (hyphen joins)
    return (
        PanelStage(),
        TextStage(words=words, read_dense=read_dense),
        BalloonsStage(words=words),
        OrderStage(),
        CharactersStage(),  # needs panels and blocks
        SpeakersStage(),  # needs characters and the reading order of blocks
    )
