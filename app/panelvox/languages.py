"""Which language a text is in, as far as a voice and an export need to know.

One place decides it, so the narration's rules, the voice that speaks a line and the
``lang`` an export writes never disagree. It reads the script, not the words: kana and
kanji are Japanese; everything else is the interface's language. That is all a reader of
manga and comics needs to choose a voice, and it never guesses from vocabulary.
"""

from __future__ import annotations

import re

#: Japanese script: kana, kanji (CJK ideographs and their extension A), the iteration and
#: prolonged-sound marks, CJK punctuation (、。「」), half-width katakana.
_JAPANESE = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
#: characters that carry no language of their own: they join the run they sit in
_NEUTRAL = re.compile(r"[\s\d!-/:-@\[-`{-~\u2000-\u206f\uff01-\uff20\uff3b-\uff40\uff5b-\uff65]")
JAPANESE = "ja"


def detect_language(text: str) -> str:
    """ "ja" when kana or kanji are at least 30 % of the letters, else "en".

    Coarse on purpose: it chooses normalisation rules and a voice for a whole balloon,
    so a Japanese line with one Latin word ("OKだよ") stays Japanese."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "en"
    japanese = sum(1 for c in letters if _JAPANESE.match(c))
    return JAPANESE if japanese / len(letters) >= 0.3 else "en"


def language_runs(text: str, interface: str) -> tuple[tuple[str, str], ...]:
    """``text`` cut into (piece, language) runs: Japanese script, and the rest in ``interface``.

    "Character 1 says: そんな借金なんて!" -> ("Character 1 says: ", "en"), ("そんな借金なんて!", "ja").
    Spaces, digits and punctuation join the run they follow (a line's "!" stays with its
    words). Latin letters written against Japanese without a space ("Tシャツ", "OKだよ")
    are part of the Japanese line, as its reader says them. Joined, the pieces are ``text``.
    """
    classes = [_class(c) for c in text]
    # Latin letters touching Japanese script (no space between) belong to the Japanese word.
    i = 0
    while i < len(text):
        if classes[i] != "latin":
            i += 1
            continue
        j = i
        while j < len(text) and classes[j] == "latin":
            j += 1
        touches = (i > 0 and classes[i - 1] == JAPANESE) or (j < len(text) and classes[j] == JAPANESE)
        if touches:
            classes[i:j] = [JAPANESE] * (j - i)
        i = j
    runs: list[tuple[str, str]] = []
    current: str | None = None
    start = 0
    for k, cls in enumerate(classes):
        lang = JAPANESE if cls == JAPANESE else (interface if cls == "latin" else None)
        if lang is None or lang == current:
            continue
        if current is None:
            current = lang  # leading spaces and digits join the first run
            continue
        runs.append((text[start:k], current))
        start, current = k, lang
    if text:
        runs.append((text[start:], current or interface))
    return tuple(runs)


def _class(char: str) -> str:
    if _JAPANESE.match(char):
        return JAPANESE
    if _NEUTRAL.match(char) or not char.isalpha():
        return "neutral"
    return "latin"
