"""What the listener hears on the 67 cib pages, against their golden scripts: a regression guard.

The whole default pipeline and the names pass, read story by story as `panelvox eval cib
--stage script` reads them. The speaker pair model was trained on these pages (its held-out,
cross-validated figures are in docs/benchmarks.md), so the floors here guard against
regressions; they are not the figures reported. Skipped where ../shared/data is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from panelvox.analysis.cache import PageAnalyzer
from panelvox.analysis.lettering import WordList
from panelvox.eval.ground_truth import GTPage
from panelvox.eval.loaders import load_dataset
from panelvox.eval.page_scoring import heard_blocks
from panelvox.eval.runner import EvalStage, run_eval
from panelvox.model import Image, PageAnalysis
from panelvox.names.evidence import comic_words


@pytest.mark.slow
@pytest.mark.golden
def test_speakers_and_names_on_the_golden_scripts(shared_data: Path, golden_analyzer: PageAnalyzer) -> None:
    names: set[str] = set()
    as_fact: set[str] = set()

    def collect(page: GTPage, image: Image, pred: PageAnalysis) -> None:
        names.update(h.name for h in heard_blocks(pred) if h.name)
        as_fact.update(h.name for h in heard_blocks(pred) if h.name and not h.guess)

    result = run_eval(load_dataset("cib"), EvalStage.SCRIPT, on_page=collect, analyzer=golden_analyzer)
    m = result.metrics
    assert result.pages == 67
    # names: said rarely, right more often than wrong (0.79 measured before issue 17; 0.64
    # after it, 7 of 11 lines; 0.80, 4 of 5, once a figure that calls a name is never given
    # it; 0.82, 9 of 11, once whoever speaks of a name is not given it; goal 0.95); said as
    # fact only where two pages hold it for the person, and then right
    assert float(m["script.named_precision"]) >= 0.75, m
    sure = float(m["script.sure_name_precision"])
    assert sure != sure or sure == 1.0, (as_fact, m)  # NaN: none said as fact
    # never a word of the comics lexicon or of the dictionary ("Naah", "Gawsh", "Honey")
    words = WordList.load()
    assert names, "the pages name nobody at all"
    bad = {
        n for n in names if n.split()[0].casefold() in comic_words() or words.knows(n.split()[0].casefold())
    }
    assert not bad, bad
    # the lettering (issue 17's targets: 0.93 / 0.90 / 0.85 / 0.95 / 0.02; 0.932 / 0.900 /
    # 0.868 / 0.969 / 0.014 measured at the seventh stop): every line found, in its order,
    # read exactly, told as what it is, and nothing said that is not lettering. Lines found
    # and reading order meet their targets by one line each, so their floors are a point
    # under them: room for another machine's last bits, not for a lost rule.
    assert float(m["script.found_rate"]) >= 0.92, m
    assert float(m["script.in_order_rate"]) >= 0.89, m
    assert float(m["script.exact_rate"]) >= 0.85, m
    assert float(m["script.kind_right_rate"]) >= 0.95, m
    assert float(m["script.junk_rate"]) <= 0.02, m
    # who speaks: better than "everyone on the page is one speaker", in both measures
    assert float(m["script.attribution"]) > float(m["script.baseline.attribution"]), m
    # across the story (issue 29): better than one label for everyone, a person's lines mostly
    # under one label, few more labels on a page than people (held out: 0.487 / 0.610 / 1.098)
    assert float(m["script.story_attribution"]) > float(m["script.baseline.story_attribution"]), m
    assert float(m["script.common_label"]) >= 0.55, m
    assert float(m["script.labels_per_person"]) <= 1.15, m
    assert float(m["script.turns"]) >= 0.70 > float(m["script.baseline.turns"]), m
    # the uncertainty cue informs: a line said with it is more often wrong than right, and
    # more often than a line said plainly (0.69 / 0.26 for the words when calibrated)
    assert float(m["cue.text_cued_wrong"]) >= 0.5 > float(m["cue.text_plain_wrong"]), m
    # the speaker's cue ("probably Kala") qualifies a name: right more often than wrong. It is
    # not compared with plain lines any more: an unnamed "character 2" carries no cue and is
    # wrong about a third of the time (0.31 measured), more often than a guessed name (0.18),
    # so words and speakers together no longer separate (0.286 / 0.287); calibrating the
    # speaker's cue against unnamed labels is issue 31's "Order unclear"-like work
    assert float(m["cue.speaker_cued_wrong"]) < 0.5, m
    # "Order unclear." and the page's panel notice (issue 31): said only where the order is
    # more likely wrong than right (chosen held out by story: on these pages, nowhere); the
    # panels said plainly are in order far more often than not (0.034 wrong measured)
    for cued, wrong in (
        ("cue.order_cued", "cue.order_cued_wrong"),
        ("cue.order_pages_cued", "cue.order_pages_cued_wrong"),
    ):
        assert int(m[cued]) == 0 or float(m[wrong]) > 0.5, m
    assert float(m["cue.order_plain_wrong"]) < 0.1, m
