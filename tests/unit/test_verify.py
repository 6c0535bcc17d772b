"""The verifier on hand-written claims: each hallucination type, with and without support."""

from __future__ import annotations

from vlm_fixtures import char, description, page, sample

from panelvox.narration.describe import Claim, ClaimKind
from panelvox.narration.page_narration import compose_page_narration, panel_utterances
from panelvox.narration.prefs import UtteranceKind
from panelvox.narration.script import Flag
from panelvox.narration.verify import (
    Decision,
    FlaggedPolicy,
    Hallucination,
    VerifiedPanel,
    extract_quotes,
    quote_match,
    reported_speech,
    verify_narration,
    verify_panel,
)


def _one(claim: Claim, panel: str = "p1", **kw: object) -> VerifiedPanel:
    return verify_panel(description(panel, sample(claim)), page(**kw))  # type: ignore[arg-type]


def _types(vp: VerifiedPanel) -> set[Hallucination]:
    return {f.type for f in vp.flags}


# -- type 1: quoting text that is not there ---------------------------------------------------------
def test_quote_of_text_on_the_page_is_kept() -> None:
    claim = Claim(ClaimKind.SUMMARY, "Steenie asks “where is the boat?” and looks worried", prob=0.9)
    vp = _one(claim)
    assert Hallucination.QUOTE not in _types(vp)
    assert vp.claims[0].decision is Decision.KEEP


def test_invented_quote_is_dropped_with_evidence() -> None:
    claim = Claim(ClaimKind.SUMMARY, "A man shouts 'give me the treasure map' at the sea", prob=0.9)
    vp = _one(claim)
    assert vp.claims[0].decision is Decision.DROP
    flag = next(f for f in vp.flags if f.type is Hallucination.QUOTE)
    assert "give me the treasure map" in flag.evidence


def test_ocr_noise_still_matches_fuzzily() -> None:
    assert quote_match("It sank last night", "IT SANK LAST NIGHT.") == 1.0
    assert quote_match("it sunk last nite", "IT SANK LAST NIGHT.") >= 0.8
    assert quote_match("the treasure is buried", "IT SANK LAST NIGHT.") < 0.6


def test_quote_matching_ignores_punctuation_and_spans_split_balloons() -> None:
    assert quote_match("i don't know", "I... DON'T KNOW!") == 1.0
    assert quote_match("i don't know", "I... DON'T KNOW!", words_only=False) < 1.0
    # the OCR split one balloon into b1 and b2: a quote running across both is on the page
    vp = _one(Claim(ClaimKind.SUMMARY, "a balloon reads “where is the boat? it sank”", prob=0.9))
    assert Hallucination.QUOTE not in _types(vp)


def test_paraphrased_dialogue_must_match_the_page() -> None:
    supported = _one(Claim(ClaimKind.SUMMARY, "Dougal says that the boat sank last night", prob=0.9))
    assert Hallucination.QUOTE not in _types(supported)
    invented = _one(Claim(ClaimKind.SUMMARY, "Dougal says that dragons stole the castle", prob=0.9))
    assert invented.claims[0].decision is Decision.DROP
    assert Hallucination.QUOTE in _types(invented)


def test_quote_extraction_ignores_apostrophes() -> None:
    assert extract_quotes("Steenie's dog isn't here") == []
    assert extract_quotes("he says “hello there” and 'bye now'") == ["hello there", "bye now"]


# -- type 2: misattribution -------------------------------------------------------------------------
def test_attribution_agreeing_with_the_speaker_stage_is_kept() -> None:
    vp = _one(Claim(ClaimKind.SUMMARY, "Dougal says “it sank last night”", prob=0.9))
    assert _types(vp) == set()


def test_attribution_to_the_wrong_character_is_flagged() -> None:
    vp = _one(Claim(ClaimKind.SUMMARY, "Steenie says “it sank last night”", prob=0.9))
    assert vp.claims[0].decision is Decision.UNCERTAIN
    flag = next(f for f in vp.flags if f.type is Hallucination.MISATTRIBUTION)
    assert "b2" in flag.evidence and "Dougal" in flag.evidence


def test_someone_speaking_who_has_no_balloon_in_the_panel_is_flagged() -> None:
    ok = _one(Claim(ClaimKind.ACTION, "Steenie talks to Dougal", 0, prob=0.9))
    assert Hallucination.MISATTRIBUTION not in _types(ok)
    vp = _one(Claim(ClaimKind.SUMMARY, "Dougal talks to the baker", prob=0.9), panel="p2")
    assert Hallucination.MISATTRIBUTION in _types(vp)


def test_lettering_nobody_speaks_is_not_an_attribution() -> None:
    vp = _one(Claim(ClaimKind.SETTING, "A sign says bakery", prob=0.9), panel="p2")
    assert Hallucination.MISATTRIBUTION not in _types(vp)
    assert reported_speech("A sign says bakery") == [("A sign", "bakery")]


# -- type 3: objects and scenery ------------------------------------------------------------------
def test_scenery_agreed_by_every_sample_is_kept() -> None:
    a = sample(Claim(ClaimKind.SETTING, "a stormy harbour at night"), Claim(ClaimKind.OBJECT, "a lantern"))
    b = sample(Claim(ClaimKind.SETTING, "a harbour in a storm"), Claim(ClaimKind.OBJECT, "lantern"))
    c = sample(Claim(ClaimKind.SETTING, "the stormy harbour"), Claim(ClaimKind.OBJECT, "a small lantern"))
    vp = verify_panel(description("p1", a, b, c), page())
    assert all(v.decision is Decision.KEEP for v in vp.claims)
    assert vp.claims[0].agreement == 1.0


def test_scenery_the_samples_disagree_on_is_uncertain() -> None:
    a = sample(Claim(ClaimKind.OBJECT, "a golden crown"), Claim(ClaimKind.SETTING, "a harbour"))
    b = sample(Claim(ClaimKind.OBJECT, "a fishing net"), Claim(ClaimKind.SETTING, "a harbour"))
    c = sample(Claim(ClaimKind.OBJECT, "a red umbrella"), Claim(ClaimKind.SETTING, "harbour at dusk"))
    vp = verify_panel(description("p1", a, b, c), page())
    crown = next(v for v in vp.claims if v.claim.text == "a golden crown")
    assert crown.decision is Decision.UNCERTAIN
    assert crown.agreement == 0.0
    assert any(f.type is Hallucination.SCENERY and "agreement" in f.evidence for f in crown.flags)
    harbour = next(v for v in vp.claims if v.claim.kind is ClaimKind.SETTING)
    assert harbour.decision is Decision.KEEP


def test_low_token_probability_is_uncertain_even_in_one_sample() -> None:
    vp = _one(Claim(ClaimKind.OBJECT, "a lantern", prob=0.05))
    assert vp.claims[0].decision is Decision.UNCERTAIN
    assert "token probability" in vp.flags[0].evidence
    sure = _one(Claim(ClaimKind.OBJECT, "a lantern", prob=0.9))
    assert sure.claims[0].decision is Decision.KEEP


def test_a_claim_that_cannot_be_checked_at_all_is_uncertain() -> None:
    vp = _one(Claim(ClaimKind.OBJECT, "a lantern"))
    assert vp.claims[0].decision is Decision.UNCERTAIN


# -- type 4: characters ---------------------------------------------------------------------------
def test_character_count_agreeing_with_detections_is_kept() -> None:
    s = sample(*char(0, "Steenie", expression="worried"), *char(1, "Dougal", expression="calm"))
    vp = verify_panel(description("p1", s, s), page())
    assert Hallucination.CHARACTER not in _types(vp)


def test_more_characters_than_detected_are_flagged() -> None:
    s = sample(*char(0, "a fisherman", posture="standing"))
    vp = verify_panel(description("p2", s, s), page())
    who = vp.claims[0]
    assert who.decision is Decision.UNCERTAIN
    assert any("1 characters described, 0 detected" in f.evidence for f in who.flags)
    # its attributes share the doubt
    assert vp.claims[1].decision is Decision.UNCERTAIN


def test_count_cannot_be_checked_without_a_character_detector() -> None:
    s = sample(*char(0, "a girl"))
    vp = verify_panel(description("p1", s, s), page(characters_ran=False))
    assert any("no character detection" in f.evidence for f in vp.flags)


def test_unknown_names_and_absent_characters_are_flagged() -> None:
    s = sample(*char(0, "Bartholomew"), *char(1, "Dougal"))
    vp = verify_panel(description("p1", s, s), page())
    unknown = vp.claims[0]
    assert any(f.type is Hallucination.CHARACTER and "Bartholomew" in f.evidence for f in unknown.flags)
    assert vp.claims[1].decision is Decision.KEEP
    elsewhere = verify_panel(
        description(
            "p2",
            sample(Claim(ClaimKind.SUMMARY, "Steenie waits")),
        ),
        page(),
    )
    assert any("not detected in this panel" in f.evidence for f in elsewhere.flags)


def test_attributes_are_checked_by_self_consistency() -> None:
    a = sample(*char(0, "Steenie", expression="smiling"), *char(1, "Dougal", expression="angry frown"))
    b = sample(*char(0, "Steenie", expression="smiling broadly"), *char(1, "Dougal", expression="calm"))
    c = sample(*char(0, "Steenie", expression="smiling"), *char(1, "Dougal", expression="sleepy"))
    vp = verify_panel(description("p1", a, b, c), page())
    exprs = {v.claim.text: v for v in vp.claims if v.claim.kind is ClaimKind.EXPRESSION}
    assert exprs["smiling"].decision is Decision.KEEP
    assert exprs["angry frown"].decision is Decision.UNCERTAIN
    assert exprs["angry frown"].flags[0].type is Hallucination.CHARACTER


# -- utterances and narration -------------------------------------------------------------------------
def test_flagged_claims_are_cued_or_dropped_by_the_users_choice() -> None:
    a = sample(Claim(ClaimKind.OBJECT, "a golden crown"), Claim(ClaimKind.SETTING, "a harbour"))
    b = sample(Claim(ClaimKind.OBJECT, "a fishing net"), Claim(ClaimKind.SETTING, "the harbour"))
    vp = verify_panel(description("p1", a, b), page())
    cued = panel_utterances(vp, policy=FlaggedPolicy.CUE)
    assert [u.kind for u in cued] == [UtteranceKind.DESCRIPTION] * 2
    crown = next(u for u in cued if "crown" in u.text)
    assert crown.text.startswith("Uncertain:") and Flag.UNCERTAIN in crown.flags
    assert Hallucination.SCENERY.flag in crown.flags
    dropped = panel_utterances(vp, policy=FlaggedPolicy.DROP)
    assert [u.display for u in dropped] == ["Setting: a harbour."]


def test_page_narration_is_composed_from_dialogue_and_checked_claims() -> None:
    s = sample(
        Claim(ClaimKind.SUMMARY, "Two friends talk on a pier", prob=0.9),
        Claim(ClaimKind.OBJECT, "the boat with the word 'treasure ahoy' painted on it", prob=0.9),
    )
    vp = verify_panel(description("p1", s), page())
    out = compose_page_narration(page(), [vp])
    assert "Two friends talk on a pier." in out.text
    assert "Steenie says: “WHERE IS THE BOAT?”" in out.text
    assert "treasure ahoy" not in out.text
    assert out.dropped_claims == 1
    assert out.words < 400


def test_page_narration_stays_under_the_word_budget() -> None:
    long = " ".join(["waves"] * 60)
    s = sample(*(Claim(ClaimKind.OBJECT, f"{long} {i}", prob=0.9) for i in range(10)))
    vp = verify_panel(description("p1", s), page())
    out = compose_page_narration(page(), [vp], max_words=100)
    assert len(out.text.split()) <= 100
    assert "WHERE IS THE BOAT?" in out.text  # dialogue outlives descriptions


def test_free_narration_loses_sentences_that_quote_absent_text() -> None:
    text = 'Steenie asks "Where is the boat?". Dougal replies "The dragon ate it!". They look at the sea.'
    kept, flags = verify_narration(text, page())
    assert "dragon" not in kept and "Where is the boat" in kept and "look at the sea" in kept
    assert [f.type for f in flags] == [Hallucination.QUOTE]
