"""The figure-appearance model: the speaker's region, the shipped weights, the embedding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest

from panelvox.analysis.appearance import (
    SIDECAR_FILE,
    WEIGHTS_FILE,
    AppearanceModel,
    FeatureSpec,
    Region,
    centre,
    feature_size,
    figure_features,
    speaker_box,
)
from panelvox.checksum import sha256_of
from panelvox.errors import ModelUnavailable
from panelvox.eval.loaders import DATA_ENV, data_root
from panelvox.model import Balloon, BalloonKind, BBox, PageAnalysis, Panel, Point, ReadingDirection, Tail

REPO = Path(__file__).resolve().parents[2]


def _page(blocks: tuple[Balloon, ...]) -> PageAnalysis:
    return PageAnalysis(
        page=1,
        width=800,
        height=1200,
        direction=ReadingDirection.LTR,
        panels=(
            Panel("p1", BBox(0, 0, 800, 600), 1.0, "t", order=1),
            Panel("p2", BBox(0, 600, 800, 1200), 1.0, "t", order=2),
        ),
        blocks=blocks,
    )


def _balloon(bid: str, panel: str, box: BBox, tail: Tail | None) -> Balloon:
    return Balloon(bid, BalloonKind.SPEECH, box, "HELLO!", 0.9, "t", panel=panel, tail=tail)


def _figure(
    canvas: np.ndarray, x: int, y: int, shirt: tuple[int, int, int], hair: tuple[int, int, int]
) -> None:
    """A drawn person: a head with hair, a shirt, trousers, black outlines."""
    cv2.circle(canvas, (x, y + 40), 30, (240, 200, 170), -1)
    cv2.ellipse(canvas, (x, y + 25), (32, 18), 0, 180, 360, hair, -1)
    cv2.circle(canvas, (x, y + 40), 30, (0, 0, 0), 2)
    cv2.rectangle(canvas, (x - 40, y + 72), (x + 40, y + 170), shirt, -1)
    cv2.rectangle(canvas, (x - 40, y + 72), (x + 40, y + 170), (0, 0, 0), 2)
    cv2.rectangle(canvas, (x - 35, y + 170), (x + 35, y + 280), (40, 40, 120), -1)


def test_speaker_box_follows_the_tail_and_stays_in_its_panel() -> None:
    tail = Tail(Point(600, 300), 60.0, 0.9)
    b = _balloon("b1", "p1", BBox(450, 50, 750, 200), tail)
    box = speaker_box(_page((b,)), b, Region())
    assert box.contains_point(Point(600, 300))
    # pushed along the tail (down and to the right), so the figure's centre lies right of the tip
    assert box.center.x > 600 - 1e-6
    assert box.x0 >= 0 and box.x1 <= 800 and box.y0 >= 0 and box.y1 <= 600
    # sized by the panel's height (600): a close-up's figure is big
    assert box.width == pytest.approx(Region().width * 600)
    page_sized = speaker_box(_page((b,)), b, Region(per_panel=False))
    assert page_sized.width == pytest.approx(Region().width * 800)


def test_speaker_box_without_a_tail_is_under_the_balloon() -> None:
    b = _balloon("b1", "p2", BBox(100, 650, 300, 750), None)
    box = speaker_box(_page((b,)), b, Region())
    assert box.y0 >= 750 - 1e-6 - Region().above * 600
    assert box.x0 < 200 < box.x1
    assert box.y1 <= 1200


def test_a_low_confidence_tail_is_not_followed() -> None:
    weak = _balloon("b1", "p1", BBox(100, 50, 300, 150), Tail(Point(700, 500), 0.0, 0.1))
    box = speaker_box(_page((weak,)), weak, Region())
    assert box.x0 < 200 < box.x1


def test_features_have_their_declared_size_and_see_colour() -> None:
    canvas = np.full((400, 400, 3), 250, np.uint8)
    _figure(canvas, 100, 50, (200, 30, 30), (30, 20, 10))
    _figure(canvas, 300, 50, (30, 60, 200), (230, 200, 40))
    spec = FeatureSpec()
    left = figure_features(canvas, BBox(40, 40, 160, 340), (), spec)
    right = figure_features(canvas, BBox(240, 40, 360, 340), (), spec)
    assert left.shape == right.shape == (feature_size(spec),)
    assert left.dtype == np.float32 and np.all(np.isfinite(left))
    assert not np.allclose(left, right)
    empty = figure_features(canvas, BBox(10, 10, 11, 11), (), spec)
    assert empty.shape == left.shape and not empty.any()


def test_painted_out_text_does_not_change_the_descriptor() -> None:
    canvas = np.full((400, 200, 3), 250, np.uint8)
    _figure(canvas, 100, 80, (200, 30, 30), (30, 20, 10))
    box, text = BBox(20, 0, 180, 380), BBox(20, 0, 180, 60)
    plain = figure_features(canvas, box, (text,))
    lettered = canvas.copy()
    cv2.putText(lettered, "HEY!", (40, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0), 3)
    assert np.allclose(plain, figure_features(lettered, box, (text,)), atol=1e-6)
    assert not np.allclose(plain, figure_features(lettered, box, ()))


def test_shipped_weights_match_their_sidecar() -> None:
    base = resources.files("panelvox.analysis")
    sidecar = json.loads(base.joinpath(SIDECAR_FILE).read_text(encoding="utf-8"))
    with resources.as_file(base.joinpath(WEIGHTS_FILE)) as path:
        assert sha256_of(Path(path)) == sidecar["sha256"]
        assert Path(path).stat().st_size <= 10 * 1024 * 1024
    assert sidecar["command"].startswith("scripts/train_appearance_model.py")
    for key in ("same_page", "cross_page"):
        assert 0.0 <= sidecar["held_out"]["model"][key] <= 1.0


def test_weights_with_another_sha256_are_refused(tmp_path: Path) -> None:
    model = AppearanceModel.shipped()
    path = tmp_path / "appearance.npz"
    model.save(path)
    assert AppearanceModel.load(path, sha256_of(path)).dim == model.dim
    with pytest.raises(ModelUnavailable):
        AppearanceModel.load(path, "0" * 64)
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(ModelUnavailable):
        AppearanceModel.load(tmp_path / "bad.npz")


def test_embeddings_are_normalised_and_tell_drawn_people_apart() -> None:
    model = AppearanceModel.shipped()
    assert model is AppearanceModel.shipped()  # read once
    assert 1 <= model.dim <= 64
    canvas = np.full((700, 900, 3), 250, np.uint8)
    # one red-shirted dark-haired boy twice, one blue-shirted blond girl
    _figure(canvas, 120, 40, (200, 30, 30), (30, 20, 10))
    _figure(canvas, 420, 360, (200, 30, 30), (30, 20, 10))
    _figure(canvas, 740, 40, (30, 60, 200), (230, 200, 40))
    boxes = [BBox(40, 30, 200, 330), BBox(340, 350, 500, 650), BBox(660, 30, 820, 330)]
    emb = model.embed(canvas, boxes)
    assert emb.shape == (3, model.dim) and emb.dtype == np.float32
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    assert model.embed(canvas, []).shape == (0, model.dim)
    same, other = model.same_log_odds(emb[0], emb[1]), model.same_log_odds(emb[0], emb[2])
    assert same > other
    assert same == pytest.approx(model.same_log_odds(emb[1], emb[0]))
    # the same figure shifted by a few pixels keeps (nearly) its embedding
    moved = model.embed(canvas, [BBox(44, 34, 204, 334)])
    assert float(emb[0] @ moved[0]) > 0.9


def test_balloons_are_embedded_where_their_tails_point() -> None:
    model = AppearanceModel.shipped()
    canvas = np.full((1200, 800, 3), 250, np.uint8)
    _figure(canvas, 200, 250, (200, 30, 30), (30, 20, 10))
    _figure(canvas, 600, 850, (200, 30, 30), (30, 20, 10))
    tail = Tail(Point(200, 250), 90.0, 0.9)
    a = _balloon("b1", "p1", BBox(100, 60, 300, 200), tail)
    b = _balloon("b2", "p2", BBox(500, 660, 700, 800), Tail(Point(600, 850), 90.0, 0.9))
    page = _page((a, b))
    emb = model.embed_balloons(canvas, page, [a, b])
    assert emb.shape == (2, model.dim)
    boxes = [model.box(page, a), model.box(page, b)]
    assert np.allclose(emb, model.embed(canvas, boxes, [a.bbox, b.bbox]), atol=1e-6)
    assert float(emb[0] @ emb[1]) > 0.9  # one drawn person in two panels


def test_embedding_does_not_depend_on_the_other_boxes() -> None:
    model = AppearanceModel.shipped()
    canvas = np.full((400, 400, 3), 250, np.uint8)
    _figure(canvas, 100, 50, (200, 30, 30), (30, 20, 10))
    box = BBox(40, 40, 160, 340)
    alone = model.embed(canvas, [box])
    together = model.embed(canvas, [BBox(200, 0, 400, 400), box])
    assert np.allclose(alone[0], together[1], atol=1e-6)


def test_centre_takes_out_what_a_book_shares_in_any_order() -> None:
    rng = np.random.default_rng(3)
    people = rng.normal(size=(3, 16))
    shared = 5.0 * rng.normal(size=16)  # the book's palette: every figure has it
    raw = np.stack([people[k % 3] + shared + 0.1 * rng.normal(size=16) for k in range(12)])
    emb = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)
    out = centre(emb)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    # before, everyone looks alike; after, one person's appearances against another's
    assert float(emb[0] @ emb[1]) > 0.9
    assert float(out[0] @ out[3]) > 0.9 > float(out[0] @ out[1])
    order = rng.permutation(12)
    assert np.allclose(centre(emb[order]), out[order], atol=1e-6)
    assert centre(emb[:1]).shape == (1, 16)


@pytest.mark.slow
def test_training_script_smoke_run(tmp_path: Path) -> None:
    root = data_root()
    if root is None or not (root / "cib").is_dir() or not (root / "cib-extra").is_dir():
        pytest.skip("no evaluation data (../shared/data)")
    # its own cache: the user's analyses are neither read nor written
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO / "app"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        **{DATA_ENV: str(root)},
    )
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "train_appearance_model.py"),
            "--pages",
            "2",
            "--write",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "colour descriptor" in run.stdout
    sidecar = json.loads((tmp_path / SIDECAR_FILE).read_text(encoding="utf-8"))
    weights = tmp_path / WEIGHTS_FILE
    model = AppearanceModel.load(weights, sidecar["sha256"])
    assert "--pages 2" in sidecar["command"]
    assert 1 <= model.dim <= 64
