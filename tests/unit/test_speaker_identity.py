"""Who is the same speaker: pair features, the shipped pair model, grouping into persons."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from panelvox.analysis.speaker_identity import (
    FEATURES,
    PairModel,
    balloon_facts,
    group_persons,
    membership,
    page_pairs,
    pair_features,
)
from panelvox.analysis.speakers_stage import SpeakersStage, as_persons, attribute
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

WHITE = np.full((1200, 800, 3), 250, np.uint8)


def _balloon(bid: str, panel: str, order: int, x: float, y: float, text: str, tail: bool = True) -> Balloon:
    return Balloon(
        bid,
        BalloonKind.SPEECH,
        BBox(x - 100, y, x + 100, y + 80),
        text,
        0.9,
        "t",
        panel=panel,
        order=order,
        tail=Tail(Point(x, y + 200), 90.0, 0.9) if tail else None,
    )


def _page(blocks: tuple[Balloon, ...], chars: tuple[Character, ...], panels: int = 2) -> PageAnalysis:
    return PageAnalysis(
        page=1,
        width=800,
        height=1200,
        direction=ReadingDirection.LTR,
        panels=tuple(
            Panel(f"p{k}", BBox(0, 600 * (k - 1), 800, 600 * k), 1.0, "t", order=k)
            for k in range(1, panels + 1)
        ),
        blocks=blocks,
        characters=chars,
    )


def _two_people() -> PageAnalysis:
    """Panel 1: the left one speaks, the right one answers; panel 2: the same again."""
    chars = (
        Character("c1", BBox(50, 300, 250, 600), 0.8, "t", panel="p1"),
        Character("c2", BBox(550, 300, 750, 600), 0.8, "t", panel="p1"),
        Character("c3", BBox(50, 900, 250, 1200), 0.8, "t", panel="p2"),
        Character("c4", BBox(550, 900, 750, 1200), 0.8, "t", panel="p2"),
    )
    blocks = (
        _balloon("b1", "p1", 1, 150, 20, "WHERE IS THE BOAT?"),
        _balloon("b2", "p1", 2, 650, 20, "IT SANK!"),
        _balloon("b3", "p2", 3, 150, 620, "SANK? HOW?"),
        _balloon("b4", "p2", 4, 650, 620, "A STORM!"),
    )
    return _page(blocks, chars)


def test_features_say_what_the_page_shows() -> None:
    page = _two_people()
    facts = balloon_facts(page, attribute(page), WHITE)
    assert [f.figure for f in facts] == ["c1", "c2", "c3", "c4"]  # each tail finds its figure
    assert [(f.rank, f.in_panel, f.dialogue_panel) for f in facts] == [
        (0, 2, 0),
        (1, 2, 0),
        (0, 2, 1),
        (1, 2, 1),
    ]
    row = dict(zip(FEATURES, pair_features(facts[0], facts[1], 1, 1200), strict=True))
    assert row["same_panel"] == 1 and row["same_panel_next"] == 1 and row["question_then_next"] == 1
    row = dict(zip(FEATURES, pair_features(facts[0], facts[2], 2, 1200), strict=True))
    assert row["same_panel"] == 0 and row["neighbour_panels"] == 1 and row["neighbour_same_rank"] == 1
    assert row["same_side_across"] == 1  # both speakers stand on the left
    pairs, rows = page_pairs(facts, 1200)
    assert pairs == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] and rows.shape == (6, len(FEATURES))


def test_grouping_follows_the_log_odds_and_the_merge_bias() -> None:
    pairs = [(0, 1), (0, 2), (1, 2)]
    # 0 and 2 are one person, 1 another
    assert group_persons(3, pairs, [-3.0, 2.0, -3.0], 0.0) == [0, 1, 0]
    # nothing says "same": three persons, unless the page's prior of few speakers merges them
    assert group_persons(3, pairs, [-0.3, -0.3, -0.3], 0.0) == [0, 1, 2]
    assert group_persons(3, pairs, [-0.3, -0.3, -0.3], 0.6) == [0, 0, 0]
    assert group_persons(0, [], [], 0.0) == []
    sure = membership(3, pairs, [-3.0, 2.0, -3.0], [0, 1, 0])
    assert sure[1] == 1.0 and sure[0] == pytest.approx(1 / (1 + np.exp(-2.0)))


def test_persons_point_at_their_first_figure_and_keep_the_balloons_figure() -> None:
    page = _two_people()
    page = replace(page, speakers=attribute(page))
    facts = balloon_facts(page, page.speakers, WHITE)
    out = as_persons(page, facts, [0, 1, 0, 1])
    links = {s.balloon: s for s in out.speakers}
    assert [(links[b].character, links[b].figure) for b in ("b1", "b2", "b3", "b4")] == [
        ("c1", "c1"),
        ("c2", "c2"),
        ("c1", "c3"),
        ("c2", "c4"),
    ]
    clusters = {c.id: c.cluster for c in out.characters}
    assert clusters["c1"] == clusters["c3"] != clusters["c2"] == clusters["c4"]


def test_two_persons_tied_to_one_figure_stay_two() -> None:
    # the answer's tail was tied to the figure that asked (a reply drawn to the same place):
    # the model still says two people; the answerer's id is their own next figure, never
    # the asker's, or both would be one speaker (and a name given to one heard for the other)
    page = _two_people()
    page = replace(page, speakers=attribute(page))
    page = replace(
        page, speakers=tuple(replace(s, character="c1") if s.balloon == "b2" else s for s in page.speakers)
    )
    facts = balloon_facts(page, page.speakers, WHITE)
    assert [f.figure for f in facts] == ["c1", "c1", "c3", "c4"]
    links = {s.balloon: s for s in as_persons(page, facts, [0, 1, 0, 1]).speakers}
    assert [(links[b].character, links[b].figure) for b in ("b1", "b2", "b3", "b4")] == [
        ("c1", "c1"),
        ("c4", "c1"),
        ("c1", "c3"),
        ("c4", "c4"),
    ]
    # seen only on the asker's figure: a voice of their own
    out = as_persons(page, facts[:3], [0, 1, 0])
    links = {s.balloon: s for s in out.speakers}
    assert links["b2"].character == "v1" != links["b1"].character == links["b3"].character == "c1"
    assert out.character("v1") is not None and out.character("v1").kind == "voice"


def test_a_voice_off_panel_is_one_character_for_all_its_balloons() -> None:
    blocks = (
        _balloon("b1", "p1", 1, 150, 20, "WHO GOES THERE?", tail=False),
        _balloon("b2", "p2", 2, 150, 620, "ANSWER ME!", tail=False),
    )
    page = _page(blocks, ())  # nobody drawn: a voice from off the panels
    page = replace(page, speakers=attribute(page))
    assert all(s.character is None for s in page.speakers)
    facts = balloon_facts(page, page.speakers, WHITE)
    out = as_persons(page, facts, [0, 0])
    assert [c.kind for c in out.characters] == ["voice"]
    assert {s.character for s in out.speakers} == {"v1"}
    assert {s.reason for s in out.speakers} == {SpeakerReason.CONVERSATION}


def test_the_shipped_model_matches_the_code_and_runs_in_the_stage() -> None:
    model = PairModel.shipped()
    assert model.coef.shape == (len(FEATURES),)
    again = PairModel.from_json(model.to_json())
    assert np.allclose(again.coef, model.coef) and again.merge_bias == model.merge_bias
    with pytest.raises(ValueError):
        PairModel.from_json({**model.to_json(), "features": ["something else"]})
    out = SpeakersStage()(WHITE, _two_people())
    assert out.stages[-1] == "speakers"
    spoken = [s for s in out.speakers if s.character]
    # in one panel a balloon and its answer are two people
    assert spoken[0].character != spoken[1].character and spoken[2].character != spoken[3].character


def test_facts_of_a_page_without_dialogue_are_empty() -> None:
    caption = replace(_balloon("b1", "p1", 1, 150, 20, "MEANWHILE..."), kind=BalloonKind.CAPTION)
    page = _page((caption,), ())
    assert balloon_facts(page, attribute(page), WHITE) == []


def test_a_tail_pointing_off_the_page_leaves_the_balloon_its_own_box() -> None:
    # the tail's tip lies on the bottom edge and points down: the patch around it would start
    # below the page (an inverted box, once a crash of the whole speakers stage)
    blocks = (_balloon("b1", "p1", 1, 150, 900, "HELP!"), _balloon("b2", "p1", 2, 650, 20, "COMING!"))
    page = _page(blocks, (Character("c1", BBox(550, 300, 750, 600), 0.8, "t", panel="p1"),), panels=1)
    page = replace(page, height=1100)
    facts = balloon_facts(page, attribute(page), WHITE[:1100])
    assert [f.balloon.id for f in facts] == ["b1", "b2"]
