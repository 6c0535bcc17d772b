"""The narration script, built from hand-made page analyses."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from page_fixtures import exchange

from panelvox.analysis.order_stage import FALLBACK_CONFIDENCE
from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
    TextLine,
)
from panelvox.narration import order_cue
from panelvox.narration.order_cue import FEATURES as ORDER_FEATURES
from panelvox.narration.order_cue import OrderCueModel, panel_features
from panelvox.narration.overview import describe_here, page_overview, where_am_i
from panelvox.narration.prefs import (
    NarrationPrefs,
    ReadingUnit,
    UncertaintyCue,
    UtteranceKind,
    Verbosity,
    load_prefs,
    save_prefs,
    settings_path,
)
from panelvox.narration.script import (
    Flag,
    group_by_unit,
    heard_speakers,
    join_sentences,
    page_voices,
    script_page,
    text_confidence,
    to_request,
    word_cued,
)
from panelvox.reader.page_outline import build_outline
from panelvox.speech.backend import Capabilities, Priority, Voice


def _panel(pid: str, order: int, x: float, conf: float = 1.0) -> Panel:
    return Panel(pid, BBox(x, 0, x + 100, 100), 0.9, "test", order=order, order_confidence=conf)


def _block(
    bid: str, kind: BalloonKind, text: str, panel: str | None, order: int, conf: float = 0.9
) -> Balloon:
    return Balloon(
        bid, kind, BBox(order * 10, 10, order * 10 + 30, 40), text, conf, "test", panel=panel, order=order
    )


def _link(bid: str, char: str | None, conf: float = 0.9) -> SpeakerLink:
    return SpeakerLink(bid, char, conf, SpeakerReason.TAIL if char else SpeakerReason.NONE, "test")


def page() -> PageAnalysis:
    return PageAnalysis(
        page=4,
        width=400,
        height=100,
        direction=ReadingDirection.LTR,
        panels=(_panel("p1", 1, 0), _panel("p2", 2, 100), _panel("p3", 3, 200)),
        blocks=(
            _block("b1", BalloonKind.CAPTION, "MEANWHILE, IN THE VALLEY...", "p1", 1),
            _block("b2", BalloonKind.SPEECH, "WHO ARE YOU?", "p1", 2),
            _block("b3", BalloonKind.SPEECH, "A FRIEND.", "p1", 3),
            _block("b4", BalloonKind.SFX, "KRAKOOM!", "p3", 4),
            _block("b5", BalloonKind.THOUGHT, "HE LIES.", "p3", 5),
            _block("b6", BalloonKind.SPEECH, "GRBLX", "p3", 6, conf=0.2),
        ),
        characters=(
            # labels as the book's names pass gives them: the narration reads them, never names
            Character("c1", BBox(0, 50, 40, 100), 0.8, "test", panel="p1", cluster="k1", label="Steenie"),
            Character(
                "c2",
                BBox(50, 50, 90, 100),
                0.8,
                "test",
                panel="p1",
                name="the stranger",
                label="the stranger",
            ),
        ),
        speakers=(_link("b2", "c1"), _link("b3", "c2", 0.3), _link("b5", "c1"), _link("b6", None)),
    )


def test_normal_verbosity_names_speakers_in_reading_order() -> None:
    utts = script_page(page(), NarrationPrefs())
    texts = [u.text for u in utts]
    assert texts == [
        "Meanwhile, in the valley.",
        "Steenie: Who are you?",
        "Probably the stranger: A friend.",
        "Sound: Krakoom!",
        "Steenie thinks: He lies.",
        "Uncertain: Someone: Grblx",
    ]
    assert [u.kind for u in utts][:2] == [UtteranceKind.CAPTION, UtteranceKind.DIALOGUE]
    assert utts[0].speaker == "narrator" and utts[0].speaker_key == "narrator"
    assert utts[1].speaker_key == "k1"  # the identity cluster keeps the voice across pages
    assert Flag.SPEAKER_UNCERTAIN in utts[2].flags
    assert utts[5].speaker == "someone" and Flag.UNCERTAIN in utts[5].flags
    # The region lets the UI highlight the balloon.
    assert utts[1].region.block == "b2" and utts[1].region.panel == "p1"
    assert utts[1].display == "WHO ARE YOU?"


def test_terse_is_text_only_and_full_announces_panels() -> None:
    terse = script_page(page(), NarrationPrefs(verbosity=Verbosity.TERSE))
    assert terse[1].text == "Who are you?"
    full = script_page(page(), NarrationPrefs(verbosity=Verbosity.FULL))
    texts = [u.text for u in full]
    assert texts[0] == "Panel 1. Caption: Meanwhile, in the valley."
    assert texts[1] == "Steenie: Who are you?"  # panel said once per panel
    assert "Panel 2: no text." in texts  # the silent panel is not skipped
    assert texts.index("Panel 2: no text.") < texts.index("Panel 3. Sound: Krakoom!")
    by_balloon = script_page(page(), NarrationPrefs(verbosity=Verbosity.FULL), unit=ReadingUnit.BALLOON)
    assert by_balloon[1].text == "Panel 1. Steenie: Who are you?"


def test_kinds_can_be_skipped() -> None:
    prefs = NarrationPrefs(kinds=frozenset(UtteranceKind) - {UtteranceKind.SFX})
    assert all(u.kind is not UtteranceKind.SFX for u in script_page(page(), prefs))


def test_uncertainty_cues() -> None:
    tone = script_page(page(), NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE))
    last = tone[-1]
    assert last.text == "Someone: Grblx" and last.uncertain
    caps = Capabilities(can_tone=True, per_utterance_voice=True, pitch_range=(0.5, 1.5))
    assert to_request(last, NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE), caps).tone_before
    # A backend that cannot beep gets the word, so the cue is never lost.
    req = to_request(last, NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE), Capabilities())
    assert req.text.startswith("Uncertain") and not req.tone_before
    voice = to_request(last, NarrationPrefs(uncertainty_cue=UncertaintyCue.VOICE), caps)
    plain = to_request(replace(last, flags=frozenset()), NarrationPrefs(), caps)
    assert voice.pitch < plain.pitch


def test_a_name_that_is_only_a_guess_is_said_probably() -> None:
    sure = replace(page(), speakers=tuple(replace(s, confidence=0.9) for s in page().speakers))
    said = next(u for u in script_page(sure, NarrationPrefs()) if "A friend" in u.text)
    assert said.text == "The stranger: A friend." and Flag.SPEAKER_UNCERTAIN not in said.flags
    # the same link, but the name reached the figure by its look only
    guessed = replace(sure, characters=tuple(replace(c, name_confidence=0.4) for c in sure.characters))
    said = next(u for u in script_page(guessed, NarrationPrefs()) if "A friend" in u.text)
    assert said.text == "Probably the stranger: A friend." and Flag.SPEAKER_UNCERTAIN in said.flags


def test_character_voices_are_distinct_and_stable() -> None:
    utts = script_page(page(), NarrationPrefs())
    voices = tuple(Voice(f"en+{v}", v) for v in ("m1", "m2", "m3", "m4", "m7", "f1", "f2", "f3", "f4"))
    caps = Capabilities(per_utterance_voice=True, voices=voices, pitch_range=(0.5, 1.5))
    voices_on_page = page_voices(utts)
    narrator = to_request(utts[0], NarrationPrefs(), caps, voices=voices_on_page)
    steenie = to_request(utts[1], NarrationPrefs(), caps, voices=voices_on_page)
    stranger = to_request(utts[2], NarrationPrefs(), caps, voices=voices_on_page)
    assert (narrator.voice, narrator.pitch) != (steenie.voice, steenie.pitch)
    assert (steenie.voice, steenie.pitch) != (stranger.voice, stranger.pitch)
    assert to_request(utts[4], NarrationPrefs(), caps, voices=voices_on_page).voice == steenie.voice
    # Without page context a character still gets its own stable voice.
    assert (
        to_request(utts[1], NarrationPrefs(), caps).voice == to_request(utts[4], NarrationPrefs(), caps).voice
    )
    off = to_request(utts[1], NarrationPrefs(character_voices=False), caps)
    assert off.voice is None and off.pitch == 1.0


#: a hand-made order cue: doubtful where the stage fell back inside the panel (no clean cut),
#: and of a page whose least sure panel's place is under one half
DOUBTS_FALLBACKS = OrderCueModel(FALLBACK_CONFIDENCE, 0.45)


def _column(a: PageAnalysis, panel: str) -> PageAnalysis:
    """``a`` with ``panel``'s blocks stacked one under another, clean gutters between them."""
    blocks, y = [], 0
    for b in a.blocks:
        if b.panel == panel:
            b = replace(b, bbox=BBox(b.bbox.x0, y, b.bbox.x0 + 30, y + 20))
            y += 30
        blocks.append(b)
    return replace(a, blocks=tuple(blocks))


def test_order_uncertainty_and_notices_are_spoken() -> None:
    a = replace(
        page(),
        panels=(_panel("p1", 1, 0, conf=0.3), _panel("p2", 2, 100), _panel("p3", 3, 200)),
        notices=("Part of this page could not be analysed (text).",),
    )
    a = _column(_column(a, "p1"), "p3")  # the balloons of each panel in a clean column
    utts = script_page(a, NarrationPrefs(), order_cue=DOUBTS_FALLBACKS)
    assert (
        utts[0].text == "Part of this page could not be analysed (text)."
        and utts[0].priority is Priority.NEXT
    )
    assert utts[1].text == "The order of these panels is unclear."
    assert Flag.ORDER_UNCERTAIN in utts[1].flags
    assert not any("Order unclear" in u.text for u in utts)
    assert not any(Flag.ORDER_UNCERTAIN in u.flags for u in utts if u.region.block)
    # p1's balloons overlapping with no line between them: the stage fell back, the model doubts
    utts = script_page(
        _column(replace(page(), notices=a.notices), "p3"), NarrationPrefs(), order_cue=DOUBTS_FALLBACKS
    )
    # a short cue in the panel's first line, not a stop of its own before the balloons
    assert [u.text for u in utts][1:3] == [
        "Order unclear. Meanwhile, in the valley.",
        "Steenie: Who are you?",
    ]
    assert [Flag.ORDER_UNCERTAIN in u.flags for u in utts] == [False, True, False, False, False, False, False]
    # the cue is said before the words, never inside them
    assert utts[1].words == "Meanwhile, in the valley."
    steps = group_by_unit(utts, ReadingUnit.BALLOON)
    assert [len(s) for s in steps] == [2, 1, 1, 1, 1, 1]  # page notices ride with the first balloon
    full = script_page(
        _column(page(), "p3"), NarrationPrefs(verbosity=Verbosity.FULL), order_cue=DOUBTS_FALLBACKS
    )
    assert full[0].text == "Panel 1. Order unclear. Caption: Meanwhile, in the valley."


def test_order_cue_goes_to_the_first_line_heard() -> None:
    """A skipped first block hands the cue on; a panel with one line heard has no order to doubt."""
    a = _column(page(), "p1")
    texts = [u.text for u in script_page(a, NarrationPrefs(), order_cue=DOUBTS_FALLBACKS)]
    assert "Order unclear. Sound: Krakoom!" in texts
    no_sfx = NarrationPrefs(kinds=frozenset(UtteranceKind) - {UtteranceKind.SFX})
    texts = [u.text for u in script_page(a, no_sfx, order_cue=DOUBTS_FALLBACKS)]
    assert "Order unclear. Steenie thinks: He lies." in texts
    one = replace(a, blocks=tuple(b for b in a.blocks if b.id != "b6"))
    texts = [u.text for u in script_page(one, no_sfx, order_cue=DOUBTS_FALLBACKS)]
    assert not any("Order unclear" in t for t in texts)


def test_order_features_are_what_the_order_stage_decided() -> None:
    """Overlapping balloons with no line between them are the stage's fallback; a clean
    column is three sure cuts."""
    a = page()
    tangled = dict(zip(ORDER_FEATURES, panel_features(a, "p1"), strict=True))
    assert tangled["blocks"] == 3 / 8 and tangled["captions"] == 1 / 3
    assert tangled["inner_confidence"] == FALLBACK_CONFIDENCE and tangled["fallback_share"] == 1.0
    clean = dict(zip(ORDER_FEATURES, panel_features(_column(a, "p1"), "p1"), strict=True))
    assert clean["inner_confidence"] == 1.0 and clean["fallback_share"] == clean["tolerant_share"] == 0.0
    low = replace(a, panels=(_panel("p1", 1, 0, conf=0.3), *a.panels[1:]))
    assert dict(zip(ORDER_FEATURES, panel_features(low, "p1"), strict=True))["panel_confidence"] == 0.3


def test_the_shipped_order_cue_is_quiet_where_the_stage_is_sure() -> None:
    """The shipped cue never doubts a panel whose balloons the stage cut cleanly apart, and
    its cut is the one its sha256 names."""
    model = OrderCueModel.shipped()
    clean = _column(_column(page(), "p1"), "p3")
    assert not any("Order unclear" in u.text for u in script_page(clean, NarrationPrefs()))
    assert not model.doubtful(clean, "p1")
    data = json.loads((Path(order_cue.__file__).parent / order_cue.MODEL_FILE).read_text("utf-8"))
    assert OrderCueModel.from_json(data) == model
    assert data["command"].startswith("scripts/train_order_cue.py")
    # a page's panels are doubted by the same rule: where the page's least sure place is
    low = replace(clean, panels=(_panel("p1", 1, 0, conf=0.3), *clean.panels[1:]))
    assert DOUBTS_FALLBACKS.panels_doubtful(low) and not DOUBTS_FALLBACKS.panels_doubtful(clean)
    assert model.panels_doubtful(low) is (model.page_cut >= 0.3)
    data["cut"] += 0.5
    with pytest.raises(ValueError, match="sha256"):
        OrderCueModel.from_json(data)


def test_balloons_joined_in_one_item_are_sentences() -> None:
    """A panel said as one item (a screen reader's list, one announcement) pauses between its
    balloons: lettering without a closing mark ends with a full stop."""
    assert join_sentences(["We help him", "Probably Chad Billow: Look sharp!"]) == (
        "We help him. Probably Chad Billow: Look sharp!"
    )
    assert join_sentences(["Panel 2.", 'He said "hi"', "Yes?", "そんな借金なんて", "はい", ""]) == (
        'Panel 2. He said "hi". Yes? そんな借金なんて。 はい'
    )
    a = replace(page(), blocks=tuple(replace(b, text=b.text.rstrip(".!?")) for b in page().blocks))
    outline = build_outline(0, a, NarrationPrefs())
    p1 = next(g for g in outline.panels if g.number == 1)
    assert (
        p1.text == "Panel 1. Meanwhile, in the valley. Steenie: Who are you. Probably the stranger: A friend"
    )


def test_empty_pages_say_so() -> None:
    empty = PageAnalysis(1, 100, 100, ReadingDirection.LTR)
    assert [u.text for u in script_page(empty, NarrationPrefs())] == [
        "No panels or text were found on this page."
    ]
    panels_only = replace(empty, panels=(_panel("p1", 1, 0),))
    assert [u.text for u in script_page(panels_only, NarrationPrefs())] == ["No text was found on this page."]
    # a page of running text that was announced, not read, is not also "nothing found"
    text_page = replace(empty, notices=("A page of text, about 2,000 words.",))
    assert [u.text for u in script_page(text_page, NarrationPrefs())] == [
        "A page of text, about 2,000 words."
    ]
    large = replace(empty, notices=("This page is very large; it was analysed at a smaller size.",))
    assert [u.text for u in script_page(large, NarrationPrefs())][
        -1
    ] == "No panels or text were found on this page."


def test_a_failed_stage_is_never_said_as_an_empty_page() -> None:
    """Issue 32: a text stage that failed made the page say "No text was found"; absence is
    said only of what was looked for, and the counts of what failed are left out."""
    failed = "Part of this page could not be analysed (text)."
    panels_only = replace(
        PageAnalysis(1, 100, 100, ReadingDirection.LTR), panels=(_panel("p1", 1, 0),), notices=(failed,)
    )
    assert [u.text for u in script_page(replace(panels_only, failed=("text",)), NarrationPrefs())] == [failed]
    assert page_overview(replace(panels_only, failed=("text",))) == "Page 1: 1 panel."
    assert describe_here(replace(panels_only, failed=("balloons",))) == "The text here could not be read."
    nothing = replace(panels_only, panels=(), failed=("panels", "text"))
    assert [u.text for u in script_page(nothing, NarrationPrefs())] == [failed]
    assert page_overview(nothing) == "Page 1."
    # the panels failed, the text stage ran and found none: that much is said
    no_text = replace(nothing, failed=("panels",))
    assert [u.text for u in script_page(no_text, NarrationPrefs())][-1] == "No text was found on this page."
    # the page JSON keeps what failed
    assert PageAnalysis.from_json(nothing.to_json()).failed == ("panels", "text")
    assert "failed" not in replace(nothing, failed=()).to_json()


def test_text_without_panels_or_speakers_is_read_plainly() -> None:
    a = PageAnalysis(
        1,
        100,
        100,
        ReadingDirection.RTL,
        blocks=(_block("b1", BalloonKind.SPEECH, "なんだって！？", None, 1),),
    )
    [utt] = script_page(a, NarrationPrefs())
    assert utt.text == "なんだって?" and utt.language == "ja" and utt.speaker is None


def test_overview_where_am_i_and_groups() -> None:
    a = page()
    assert page_overview(a) == (
        "Page 4: 3 panels, 4 balloons, 1 caption, 1 sound effect, 2 speakers: Steenie, probably the stranger."
    )  # the stranger's one line is a guess ("Probably the stranger: A friend."): so is the summary
    assert describe_here(a, "p1") == "3 text blocks; Steenie, probably the stranger speak."
    assert describe_here(a, "p2") == "No text here."
    assert (
        where_am_i("Bone", 4, 20, 2, 6, "No text here.") == "Bone, page 4 of 20, panel 2 of 6. No text here."
    )
    utts = script_page(a, NarrationPrefs(verbosity=Verbosity.FULL))
    panels = group_by_unit(utts, ReadingUnit.PANEL)
    assert [{u.region.panel for u in g} for g in panels] == [{"p1"}, {"p2"}, {"p3"}]
    assert len(group_by_unit(utts, ReadingUnit.BALLOON)) == 7
    assert len(group_by_unit(utts, ReadingUnit.PAGE)) == 1


def test_overview_counts_one_person_seen_in_two_panels_once() -> None:
    a = page()
    again = Character("c3", BBox(250, 50, 290, 100), 0.8, "test", panel="p3", cluster="k1", label="Steenie")
    speakers = (*(s for s in a.speakers if s.balloon != "b5"), _link("b5", "c3"))
    a = replace(a, characters=(*a.characters, again), speakers=speakers)
    assert page_overview(a).endswith("2 speakers: Steenie, probably the stranger.")


def test_prefs_persist_atomically_and_keep_other_settings(tmp_path: Path) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"ui": {"zoom": 2}}), encoding="utf-8")
    prefs = NarrationPrefs(
        verbosity=Verbosity.TERSE,
        rate=1.4,
        kinds=frozenset({UtteranceKind.DIALOGUE}),
        uncertainty_cue=UncertaintyCue.TONE,
        backend="piper",
    )
    save_prefs(prefs)
    assert load_prefs() == prefs
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["ui"] == {"zoom": 2}
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".settings-")]


def test_damaged_or_odd_settings_fall_back_to_defaults() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    assert load_prefs() == NarrationPrefs()
    path.write_text(
        json.dumps({"narration": {"rate": "fast", "verbosity": "full", "nonsense": 1}}), encoding="utf-8"
    )
    assert load_prefs() == NarrationPrefs(verbosity=Verbosity.FULL)


def _lined(
    conf_lines: tuple[float, ...], block_conf: float, kind: BalloonKind = BalloonKind.SPEECH
) -> PageAnalysis:
    """One block whose lines are recognised with ``conf_lines``; the block's own confidence
    (lines times balloon outline) is ``block_conf``."""
    lines = tuple(
        TextLine(f"l{i}", BBox(10, 10 + 10 * i, 60, 18 + 10 * i), "WORDS", c, "test")
        for i, c in enumerate(conf_lines)
    )
    block = replace(
        _block("b1", kind, "WORDS WORDS", "p1", 1, conf=block_conf), lines=tuple(ln.id for ln in lines)
    )
    return replace(page(), panels=(_panel("p1", 1, 0),), blocks=(block,), lines=lines, speakers=())


def test_the_word_cue_follows_the_least_sure_line_not_the_balloon_outline() -> None:
    # an untraced balloon (low block confidence) with well-read words: said plainly
    sure = _lined((0.95, 0.9), block_conf=0.3)
    assert text_confidence(sure, sure.blocks[0]) == 0.9
    assert [u.text for u in script_page(sure, NarrationPrefs())] == ["Words words"]
    # one badly read line is enough to doubt the block
    unsure = _lined((0.95, 0.3), block_conf=0.8)
    (utt,) = script_page(unsure, NarrationPrefs())
    assert utt.text == "Uncertain: Words words" and utt.uncertain
    assert not script_page(unsure, NarrationPrefs(text_threshold=0.2))[0].uncertain


def test_no_cue_for_sound_effects_speaker_guesses_or_unreadable_balloons() -> None:
    sfx = _lined((0.2,), block_conf=0.2, kind=BalloonKind.SFX)
    (utt,) = script_page(sfx, NarrationPrefs())
    assert utt.text == "Sound: Words words" and not utt.uncertain
    # "probably" already says the speaker is a guess: no tone or voice change on top
    guess = script_page(page(), NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE))[2]
    assert guess.text == "Probably the stranger: A friend." and not guess.uncertain
    caps = Capabilities(can_tone=True)
    assert not to_request(guess, NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE), caps).tone_before
    blank = replace(page(), blocks=(replace(page().blocks[1], text="", confidence=0.1),))
    (utt,) = script_page(blank, NarrationPrefs())
    assert utt.text == "Steenie: a balloon whose text could not be read" and not utt.uncertain


def test_word_cued_gives_the_word_where_the_cue_cannot_be_a_tone_or_voice() -> None:
    last = script_page(page(), NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE))[-1]
    assert word_cued(last, NarrationPrefs(uncertainty_cue=UncertaintyCue.TONE)) == "Uncertain: Someone: Grblx"
    worded = script_page(page(), NarrationPrefs())[-1]
    assert word_cued(worded, NarrationPrefs()) == "Uncertain: Someone: Grblx"  # never twice


def test_a_summary_never_says_as_fact_a_name_every_line_hedges() -> None:
    """The page overview and "where am I" name a speaker as the lines do: "probably Kala"
    where each of Kala's lines says "Probably Kala", the name alone once a line says it
    plainly, and "character 2" as it is."""
    page = exchange("WHERE IS THE TRAIN?", "LATE AGAIN.")
    kala = replace(page.characters[0], name="Kala", label="Kala", name_confidence=0.3)
    page = replace(page, characters=(kala, replace(page.characters[1], label="character 2")))
    lines = [u.text for u in script_page(page, NarrationPrefs())]
    assert lines[0].startswith("Probably Kala:")
    assert heard_speakers(page) == ["probably Kala", "character 2"]
    assert page_overview(page).endswith("2 speakers: probably Kala, character 2.")
    assert "probably Kala, character 2 speak" in describe_here(page)
    sure = replace(page, characters=(replace(kala, name_confidence=1.0), page.characters[1]))
    assert heard_speakers(sure) == ["Kala", "character 2"]
