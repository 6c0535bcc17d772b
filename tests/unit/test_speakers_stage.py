"""Speaker attribution on small made-up pages: tail, narrator, SFX, alternation, nobody."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from panelvox.analysis.speakers_stage import SpeakersStage, attribute
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    Point,
    ReadingDirection,
    SpeakerReason,
    Tail,
)

IMAGE = np.full((600, 800, 3), 255, np.uint8)


def _page(blocks: list[Balloon], chars: list[Character]) -> PageAnalysis:
    return PageAnalysis(
        page=1,
        width=800,
        height=600,
        direction=ReadingDirection.LTR,
        panels=(Panel("p1", BBox(0, 0, 800, 600), 1.0, "test", order=1),),
        blocks=tuple(blocks),
        characters=tuple(chars),
    )


def _char(cid: str, x0: float, x1: float, cluster: str | None = None) -> Character:
    return Character(cid, BBox(x0, 250, x1, 600), 0.8, "test", panel="p1", cluster=cluster)


def _balloon(
    bid: str,
    x0: float,
    x1: float,
    order: int,
    kind: BalloonKind = BalloonKind.SPEECH,
    tail: Tail | None = None,
) -> Balloon:
    return Balloon(bid, kind, BBox(x0, 20, x1, 120), "TEXT", 0.9, "test", panel="p1", order=order, tail=tail)


def test_tail_points_at_the_far_figure_not_the_nearest() -> None:
    # the balloon sits above the left figure but its tail slants to the right one
    tail = Tail(tip=Point(330, 200), direction_deg=35.0, confidence=0.9)
    page = _page(
        [_balloon("b1", 50, 300, 1, tail=tail)],
        [_char("c1", 60, 260), _char("c2", 520, 720)],
    )
    (link,) = attribute(page)
    assert (link.character, link.reason) == ("c2", SpeakerReason.TAIL)
    assert 0.5 <= link.confidence <= 0.95


def test_without_tail_the_nearest_figure_under_the_words_speaks() -> None:
    page = _page([_balloon("b1", 500, 740, 1)], [_char("c1", 60, 260), _char("c2", 520, 720)])
    (link,) = attribute(page)
    assert (link.character, link.reason) == ("c2", SpeakerReason.PROXIMITY)


def test_captions_go_to_the_narrator_and_sound_effects_to_nobody() -> None:
    page = _page(
        [
            _balloon("cap", 0, 800, 1, kind=BalloonKind.CAPTION),
            _balloon("sfx", 300, 500, 2, kind=BalloonKind.SFX),
        ],
        [_char("c1", 60, 260)],
    )
    links = attribute(page)
    assert [(s.balloon, s.character, s.reason) for s in links] == [("cap", None, SpeakerReason.NARRATOR)]


def test_no_character_in_the_panel_means_someone_says() -> None:
    (link,) = attribute(_page([_balloon("b1", 50, 300, 1)], []))
    assert link.character is None
    assert link.reason is SpeakerReason.NONE


def test_two_person_exchange_alternates_when_position_is_unclear() -> None:
    # first balloon's tail names the left speaker; the second, centred between both, answers
    first = _balloon("b1", 20, 200, 1, tail=Tail(Point(150, 220), 90.0, 0.9))
    second = replace(_balloon("b2", 300, 500, 2), bbox=BBox(300, 130, 500, 230))
    page = _page([first, second], [_char("c1", 60, 260), _char("c2", 540, 740)])
    links = {s.balloon: s for s in attribute(page)}
    assert (links["b1"].character, links["b1"].reason) == ("c1", SpeakerReason.TAIL)
    assert (links["b2"].character, links["b2"].reason) == ("c2", SpeakerReason.ALTERNATION)


def test_a_balloon_hanging_under_the_last_one_continues_it() -> None:
    first = _balloon("b1", 500, 740, 1, tail=Tail(Point(620, 230), 90.0, 0.9))
    second = replace(_balloon("b2", 0, 0, 2), bbox=BBox(520, 118, 720, 200))
    page = _page([first, second], [_char("c1", 60, 260), _char("c2", 520, 720)])
    links = {s.balloon: s for s in attribute(page)}
    assert links["b2"].character == "c2"
    assert links["b2"].reason is SpeakerReason.CONTINUATION


def test_stage_is_pure_and_records_itself() -> None:
    page = _page([_balloon("b1", 500, 740, 1)], [_char("c1", 520, 720)])
    out = SpeakersStage()(IMAGE, page)
    assert page.speakers == ()
    assert out.stages[-1] == "speakers"
    assert out.speaker_of("b1") is not None


def _two_panels(blocks: list[Balloon], chars: list[Character]) -> PageAnalysis:
    """Panel p1 is the left half of the page, p2 the right half."""
    return replace(
        _page(blocks, chars),
        panels=(
            Panel("p1", BBox(0, 0, 400, 600), 1.0, "test", order=1),
            Panel("p2", BBox(400, 0, 800, 600), 1.0, "test", order=2),
        ),
    )


def test_a_tail_crossing_the_gutter_picks_from_the_panel_it_points_into() -> None:
    tail = Tail(Point(395, 200), 10.0, 0.9)  # at the right edge of p1, pointing right
    chars = [_char("c1", 60, 200), replace(_char("c2", 500, 650), panel="p2")]
    links = {s.balloon: s for s in attribute(_two_panels([_balloon("b1", 200, 395, 1, tail=tail)], chars))}
    assert (links["b1"].character, links["b1"].reason) == ("c2", SpeakerReason.TAIL)
    # a tail that stays in its panel never reaches into the next one
    inside = Tail(Point(300, 200), 90.0, 0.9)
    links = {s.balloon: s for s in attribute(_two_panels([_balloon("b1", 200, 395, 1, tail=inside)], chars))}
    assert links["b1"].character == "c1"


def test_an_exchange_goes_on_across_panels_through_identity_clusters() -> None:
    first = _balloon("b1", 20, 200, 1, tail=Tail(Point(100, 220), 90.0, 0.9))
    # in p2 the two figures are the same two people (clusters); the balloon sits between them
    second = replace(_balloon("b2", 500, 700, 2), bbox=BBox(500, 130, 700, 230), panel="p2")
    chars = [
        _char("c1", 40, 180, "k1"),
        _char("c2", 220, 380, "k2"),
        replace(_char("c3", 420, 560, "k1"), panel="p2"),
        replace(_char("c4", 640, 780, "k2"), panel="p2"),
    ]
    links = {s.balloon: s for s in attribute(_two_panels([first, second], chars))}
    assert links["b1"].character == "c1"
    assert (links["b2"].character, links["b2"].reason) == ("c4", SpeakerReason.ALTERNATION)
    # without identities nothing says who spoke last: proximity decides
    plain = [replace(c, cluster=None) for c in chars]
    links = {s.balloon: s for s in attribute(_two_panels([first, second], plain))}
    assert links["b2"].reason is SpeakerReason.PROXIMITY


def test_the_tip_counts_more_than_a_roughly_measured_direction() -> None:
    # the tip ends right above the right figure; its measured direction leans a little left
    # (a few pixels of tail), towards the left figure standing close by
    tail = Tail(tip=Point(300, 240), direction_deg=115.0, confidence=0.9)
    page = _page([_balloon("b1", 150, 450, 1, tail=tail)], [_char("c1", 60, 270), _char("c2", 280, 480)])
    (link,) = attribute(page)
    assert (link.character, link.reason) == ("c2", SpeakerReason.TAIL)
