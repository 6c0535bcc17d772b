"""The shared logistic model: the pair and person models score as they did before it, and a
shipped file whose sha256 does not match is refused and said in the log."""

from __future__ import annotations

import json
import logging
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from test_book_persons import BLUE, RED, _person, _story
from test_speaker_identity import WHITE, _two_people

from panelvox.analysis.speaker_identity import PairModel, balloon_facts, page_pairs
from panelvox.analysis.speakers_stage import attribute
from panelvox.names.book_persons import PersonModel, link_features

# the shipped models' log-odds on the unit tests' inputs, computed by the two models' own
# code before they shared LogisticModel (commit 4e78a78)
PAIR_BEFORE = [
    -3.5197847030065215,
    -0.352545037227777,
    -1.397767472564719,
    -0.007001402978881521,
    -0.3525450372277769,
    -3.654376469474651,
]
PERSON_BEFORE = [-0.8321809183276667, 0.11315123198765975, -1.6249184508849517, -0.42909610733929526]


def test_the_pair_model_scores_as_before() -> None:
    page = _two_people()
    _pairs, rows = page_pairs(balloon_facts(page, attribute(page), WHITE), 1200)
    model = PairModel.shipped()
    assert model.log_odds(rows) == pytest.approx(PAIR_BEFORE, abs=1e-12)
    assert model.merge_bias == 0.6
    assert model is PairModel.shipped()  # read once


def test_the_person_model_scores_as_before() -> None:
    story = _story()
    pairs = [
        (story[0], story[2]),
        (story[0], story[3]),
        (_person(1, "k1", RED, "LARS"), _person(2, "k2", BLUE, "ANNA", calls="LARS")),
        (_person(1, "k2", (0.6, 0.8), "LARS"), _person(4, "k1", RED, "LARS")),
    ]
    rows = np.array([link_features(u, v) for u, v in pairs], np.float64)
    model = PersonModel.shipped()
    assert model.log_odds(rows) == pytest.approx(PERSON_BEFORE, abs=1e-12)
    assert model.merge_bias == 1.5
    assert model.log_odds(np.zeros((0, len(PersonModel.FEATURES)))).shape == (0,)


@pytest.mark.parametrize("cls", [PairModel, PersonModel])
def test_the_json_round_trips_and_a_changed_weight_is_refused(cls: type[PairModel | PersonModel]) -> None:
    data = json.loads(resources.files(cls.PACKAGE).joinpath(cls.FILE).read_text("utf-8"))
    model = cls.from_json(data)
    written = model.to_json(**{k: v for k, v in data.items() if k not in model.to_json()})
    assert written == data  # the training script's writer gives back the shipped file's values
    data["coef"][3] += 1e-6
    with pytest.raises(ValueError, match="sha256"):
        cls.from_json(data)


def test_a_shipped_file_that_does_not_match_its_sha256_is_refused_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    data = json.loads(resources.files(PairModel.PACKAGE).joinpath(PairModel.FILE).read_text("utf-8"))
    data["intercept"] += 1.0  # edited by hand: the sha256 no longer matches
    (tmp_path / "edited_models" / "data").mkdir(parents=True)
    (tmp_path / "edited_models" / "__init__.py").write_text("", "utf-8")
    (tmp_path / "edited_models" / "data" / "pairs.json").write_text(json.dumps(data), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    class Edited(PairModel):
        __slots__ = ()
        PACKAGE, FILE = "edited_models", "data/pairs.json"

    with (
        caplog.at_level(logging.ERROR, logger="panelvox.logistic"),
        pytest.raises(ValueError, match="sha256"),
    ):
        Edited.shipped()
    assert "edited_models/data/pairs.json refused" in caplog.text
    assert PairModel.shipped().intercept == pytest.approx(data["intercept"] - 1.0)  # the shipped one is kept
