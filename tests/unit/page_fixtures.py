"""A drawn-free page for names and speaker tests: two people in one panel, each answering.

The left person (c1) says the first balloon, the right one (c2) the second; each balloon's
tail points down at its speaker, and the links are what the speakers stage leaves (the
person is the figure its tail points at).
"""

from __future__ import annotations

from dataclasses import replace

from panelvox.analysis.speakers_stage import attribute
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    Point,
    ReadingDirection,
    Tail,
)


def exchange(first: str, second: str, number: int = 1) -> PageAnalysis:
    """Page ``number``, 800 x 600: one panel, c1 says ``first``, c2 answers ``second``."""
    chars = (
        Character("c1", BBox(50, 250, 250, 600), 0.8, "t", panel="p1", cluster="k1"),
        Character("c2", BBox(550, 250, 750, 600), 0.8, "t", panel="p1", cluster="k2"),
    )
    blocks = tuple(
        Balloon(
            f"b{k}",
            BalloonKind.SPEECH,
            BBox(x - 110, 20, x + 110, 120),
            text,
            0.9,
            "t",
            panel="p1",
            order=k,
            tail=Tail(Point(x, 230), 90.0, 0.9),
        )
        for k, (x, text) in enumerate(((150, first), (650, second)), start=1)
    )
    page = PageAnalysis(
        page=number,
        width=800,
        height=600,
        direction=ReadingDirection.LTR,
        panels=(Panel("p1", BBox(0, 0, 800, 600), 1.0, "t", order=1),),
        blocks=blocks,
        characters=chars,
    )
    return replace(page, speakers=tuple(replace(s, figure=s.character) for s in attribute(page)))
