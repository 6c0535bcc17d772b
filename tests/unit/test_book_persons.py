"""Persons of the book: page persons grouped across pages, and the names the book gives them."""

from __future__ import annotations

import itertools

import numpy as np

from panelvox.model import BBox, Character, PageAnalysis, ReadingDirection
from panelvox.names.book_persons import (
    CARRIED,
    FEATURES,
    HELD,
    PagePerson,
    PersonModel,
    group_book,
    link_features,
    name_book,
)
from panelvox.names.persons import GUESS


def _person(
    page: int, key: str, look: tuple[float, ...], name: str | None = None, calls: str = ""
) -> PagePerson:
    return PagePerson(
        page=page,
        key=key,
        lines=2,
        share=0.5,
        lead=key == "k1",
        voice=False,
        look=look,
        name=name,
        name_sure=False,
        calls=frozenset(calls.split()) if calls else frozenset(),
        persons_on_page=2,
    )


def _model(bias: float = 0.0) -> PersonModel:
    """Looks decide: log-odds 10 * (similarity - 0.5); a shared name adds 5, two names take 10."""
    coef = np.zeros(len(FEATURES))
    coef[FEATURES.index("look_similarity")] = 10.0
    coef[FEATURES.index("same_name")] = 5.0
    coef[FEATURES.index("other_names")] = -10.0
    coef[FEATURES.index("calls_the_other")] = -10.0
    return PersonModel(np.zeros(len(FEATURES)), np.ones(len(FEATURES)), coef, -5.0, bias)


RED, BLUE = (1.0, 0.0), (0.0, 1.0)


def _story() -> list[PagePerson]:
    return [
        _person(1, "k1", RED),
        _person(1, "k2", BLUE),
        _person(2, "k1", BLUE),
        _person(2, "k2", RED),
        _person(3, "k1", RED),
    ]


def test_page_persons_that_look_alike_on_other_pages_are_one_person() -> None:
    assert group_book(_story(), _model()) == [0, 1, 1, 0, 0]


def test_the_grouping_does_not_depend_on_the_order_of_the_pages() -> None:
    story = _story()
    want = {p.ident: g for p, g in zip(story, group_book(story, _model()), strict=True)}
    for order in itertools.permutations(range(len(story))):
        shuffled = [story[i] for i in order]
        got = {p.ident: g for p, g in zip(shuffled, group_book(shuffled, _model()), strict=True)}
        assert got == want


def test_two_persons_of_one_page_are_never_one_person() -> None:
    same = [_person(1, "k1", RED), _person(1, "k2", RED), _person(2, "k1", RED)]
    groups = group_book(same, _model(bias=100.0))
    assert groups[0] != groups[1]


def test_whoever_calls_a_name_is_not_that_person() -> None:
    lars = _person(1, "k1", RED, name="LARS")
    caller = _person(2, "k1", RED, calls="LARS")
    row = link_features(lars, caller)
    assert row[FEATURES.index("calls_the_other")] == 1.0
    assert group_book([lars, caller], _model()) == [0, 1]


def _page(number: int, keys: list[str]) -> PageAnalysis:
    chars = tuple(
        Character(f"c{k}", BBox(0, 0, 10, 10), 0.9, "test", cluster=key) for k, key in enumerate(keys, 1)
    )
    return PageAnalysis(number, 100, 100, ReadingDirection.LTR, characters=chars)


def test_a_name_held_on_two_pages_is_said_as_fact_there_and_carried_as_a_guess() -> None:
    persons = [
        _person(1, "k1", RED, name="KALA"),
        _person(2, "k1", RED, name="KALA"),
        _person(3, "k1", RED),
        _person(3, "k2", BLUE, calls="KALA"),
    ]
    pages = {n: _page(n, ["k1", "k2"] if n == 3 else ["k1"]) for n in (1, 2, 3)}
    pages[1], pages[2] = _named(pages[1], "Kala"), _named(pages[2], "Kala")
    out = name_book(pages, persons, [0, 0, 0, 1])
    c1, c2, c3 = (out[n].characters[0] for n in (1, 2, 3))
    assert (c1.name, c1.name_confidence) == ("Kala", HELD)
    assert (c2.name, c2.name_confidence) == ("Kala", HELD)
    assert (c3.name, c3.name_confidence) == ("Kala", CARRIED)
    assert out[3].characters[1].name is None
    assert c1.person == c2.person == c3.person == "b1.k1"
    assert out[3].characters[1].person == "b3.k2"


def test_a_name_held_on_one_page_only_is_a_guess_and_two_names_name_no_one() -> None:
    persons = [_person(1, "k1", RED, name="KALA"), _person(2, "k1", RED)]
    pages = {1: _named(_page(1, ["k1"]), "Kala"), 2: _page(2, ["k1"])}
    out = name_book(pages, persons, [0, 0])
    assert out[1].characters[0].name_confidence == GUESS  # the page's own words: a guess
    assert (out[2].characters[0].name, out[2].characters[0].name_confidence) == ("Kala", CARRIED)
    assert name_book(pages, persons, [0, 0], carry=lambda u, v: False)[2].characters[0].name is None
    clash = [_person(1, "k1", RED, name="KALA"), _person(2, "k1", RED, name="CHAD")]
    pages = {1: _named(_page(1, ["k1"]), "Kala"), 2: _named(_page(2, ["k1"]), "Chad")}
    out = name_book(pages, clash, [0, 0])
    assert all(p.characters[0].name is None for p in out.values())


def test_the_users_name_reaches_the_persons_other_pages_as_a_guess_and_no_one_else() -> None:
    persons = [_person(1, "k1", RED), _person(1, "k2", BLUE), _person(2, "k1", RED)]
    pages = {1: _page(1, ["k1", "k2"]), 2: _page(2, ["k1"])}
    out = name_book(pages, persons, [0, 1, 0], user={(1, "k1"): "Kala"})
    assert (out[1].characters[0].name, out[1].characters[0].name_confidence) == ("Kala", 1.0)
    assert out[1].characters[1].name is None
    assert (out[2].characters[0].name, out[2].characters[0].name_confidence) == ("Kala", CARRIED)


def _named(page: PageAnalysis, name: str) -> PageAnalysis:
    from dataclasses import replace

    first = replace(page.characters[0], name=name, name_confidence=0.45)
    return replace(page, characters=(first, *page.characters[1:]))


def test_the_shipped_link_model_loads_and_its_weights_are_checked() -> None:
    import json
    from importlib import resources

    import pytest

    model = PersonModel.shipped()
    assert model.coef.shape == (len(FEATURES),)
    data = json.loads(resources.files("panelvox.names").joinpath("data/person_links.json").read_text("utf-8"))
    assert "command" in data and "cross_validated" in data
    data["coef"][0] += 1.0
    with pytest.raises(ValueError, match="sha256"):
        PersonModel.from_json(data)


def test_a_long_book_is_grouped_in_runs_of_pages_and_pairs_are_remembered() -> None:
    from panelvox.names.book_persons import BLOCK_PAGES, LinkKey

    same = [_person(1, "k1", RED), _person(2, "k1", RED), _person(BLOCK_PAGES + 1, "k1", RED)]
    memo: dict[LinkKey, float] = {}
    assert group_book(same, _model(), memo) == [0, 0, 1]
    assert len(memo) == 1  # only the pair within a run was compared
    memo[((1, "k1"), (2, "k1"), None, None)] = -100.0  # a remembered answer is used as it is
    assert group_book(same, _model(), memo) == [0, 1, 2]
