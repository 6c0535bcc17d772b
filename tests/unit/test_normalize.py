"""Speech text normalisation: comic lettering in, words a voice reads well out."""

from __future__ import annotations

import pytest

from panelvox.narration.normalize import detect_language, normalize_for_speech, number_words, ordinal_words


@pytest.mark.parametrize(
    ("lettering", "spoken"),
    [
        ("I DON'T KNOW-- MAYBE THE FBI IS RIGHT...", "I don't know, maybe the FBI is right."),
        ("WHAT?! YOU'RE *KIDDING* ME!!!", "What? You're kidding me!"),
        ("...AND THEN THE U.S. ARMY CAME IN 1944.", "And then the U.S. Army came in nineteen forty-four."),
        ("EVERY-\nTHING IS\nFINE.", "Everything is fine."),
        ("I'M GOING TO ST. LOUIS WITH DR. JONES", "I'm going to Saint Louis with Doctor Jones"),
        ("MEET ME AT NO. 5 BAKER ST.", "Meet me at number five baker Street."),
        ("It cost $5 -- or 10% more", "It cost five dollars, or ten percent more"),
        ("We have 1,250 men", "We have one thousand two hundred fifty men"),
        ("_Really_ now... fine", "Really now, fine"),
        ("THE 21ST CENTURY", "The twenty-first century"),
        # a sentence's end glued to the next word is two sentences; "U.S.A." and 3.5 stay whole
        ('BACK ON THE "SEA HAWK".THE NEXT DAY', 'Back on the "sea hawk". The next day'),
        ("SO WELL.'TIS HIS.HEY!YOU.-WE GO", "So well. 'Tis his. Hey! You. We go"),
        ("THE U.S.A. PAID 3.5 MILLION", "The U.S.A. Paid 3.5 million"),
        ("SEE WWW.PANELVOX.ORG", "See www.panelvox.org"),
        # a full stop before "!" or "?" adds nothing
        ("OH BOY.! WHERE'S THE KID.? WAIT...!", "Oh boy! Where's the kid? Wait!"),
    ],
)
def test_lettering_becomes_speakable(lettering: str, spoken: str) -> None:
    assert normalize_for_speech(lettering) == spoken


def test_all_caps_words_are_lowered_so_they_are_not_spelled() -> None:
    out = normalize_for_speech("HELLO THERE, STRANGER")
    assert not any(w.isupper() and len(w) > 1 for w in out.split())


def test_names_are_restored() -> None:
    assert normalize_for_speech("STEENIE! WAIT!", names=["Steenie"]) == "Steenie! Wait!"


def test_mixed_case_keeps_acronyms_and_lowers_emphasis() -> None:
    assert normalize_for_speech("The NASA guy was SO late") == "The NASA guy was so late"


def test_japanese_is_nfkc_only() -> None:
    assert detect_language("なんだって！？") == "ja"
    out = normalize_for_speech("なんだって！？\n本当に")
    assert out == "なんだって?本当に"
    # Full-width digits are folded but not turned into English words.
    assert normalize_for_speech("第１話", language="ja") == "第1話"


def test_numbers() -> None:
    assert number_words(0) == "zero"
    assert number_words(105) == "one hundred five"
    assert number_words(2_000_005) == "two million five"
    assert number_words(1905, year=True) == "nineteen oh five"
    assert ordinal_words(3) == "third"
    assert ordinal_words(40) == "fortieth"


def test_a_name_the_dictionary_knows_only_as_a_name_keeps_its_capital() -> None:
    """A listener's braille display shows "It was Joe, Anna!", not "joe, anna"; a word that
    is also an English word ("BILL", "MARK"), dialect ("TH'") or unknown stays lowered."""
    assert normalize_for_speech("IT WAS JOE, ANNA!") == "It was Joe, Anna!"
    assert (
        normalize_for_speech("I TOLD LARS ABOUT BAGHDAD ON SUNDAY.") == "I told Lars about Baghdad on Sunday."
    )
    assert normalize_for_speech("WILL YOU MARK IT, BILL?") == "Will you mark it, bill?"
    assert normalize_for_speech("GIMME TH' GUN, KEMAL!") == "Gimme th' gun, kemal!"
    assert normalize_for_speech("JOE'S HAT") == "Joe's hat"


def test_no_stray_symbol_reaches_the_words() -> None:
    """A recogniser's middle dot, bullet or tilde between words is a space, never said or
    shown ("night's·sleep" was heard on a page issue 30 quotes); lettering's own marks stay."""
    assert normalize_for_speech("A GOOD NIGHT'S·SLEEP") == "A good night's sleep"
    assert normalize_for_speech("HELLO • THERE ¦ YOU") == "Hello there you"
    assert normalize_for_speech("LIFE~HEY!") == "Life hey!"
    assert normalize_for_speech("50% & $3") == "fifty percent & three dollars"
