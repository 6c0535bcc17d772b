"""What the screen reader says of an item, and what Panelvox's own voices say right after it.

Orca (43) gives a list item no language: it says the item's accessible name with its own
voice, and espeak-ng, Speech Dispatcher's default, spells Japanese ("Japanese letter,
Chinese letter"). So where the screen reader's voice cannot say a run of the text, the
item it reads carries the interface-language frame only, the run named by its language
("Character 1: Japanese."), and Panelvox's voice of that language says the lettering after
it. Where the screen reader's voice says every run, its text is the item's whole text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from panelvox.languages import language_runs
from panelvox.speech.language_voices import language_name

#: ends a sentence: a run that ended with one keeps a full stop after its language's name
_SENTENCE_END = frozenset(".!?…:;。！？")
_CLOSERS = "\"'’”)]」』）"


@dataclass(frozen=True, slots=True)
class ScreenReaderText:
    """``frame``: what the screen reader is given; ``lettering``: the (piece, language) runs
    its voice cannot say, in order, for Panelvox's voices; ``own_words``: whether the frame
    has words of the text besides the languages' names."""

    frame: str
    lettering: tuple[tuple[str, str], ...] = ()
    own_words: bool = True


def split_for_screen_reader(text: str, speaks: Callable[[str], bool], interface: str) -> ScreenReaderText:
    """``text`` cut into what the screen reader says and what it cannot.

    "Character 1: そんな借金なんて!" with a voice that does not speak Japanese ->
    frame "Character 1: Japanese.", lettering (("そんな借金なんて!", "ja"),)."""
    frame: list[str] = []
    lettering: list[tuple[str, str]] = []
    own_words = False
    for piece, lang in language_runs(text, interface):
        if not piece.strip() or speaks(lang):
            frame.append(piece)
            own_words = own_words or any(c.isalnum() for c in piece)
            continue
        core = piece.strip()
        tail = piece[len(piece.rstrip()) :]
        lead = piece[: len(piece) - len(piece.lstrip())]
        stop = "." if core.rstrip(_CLOSERS)[-1:] in _SENTENCE_END or tail else ""
        frame.append(f"{lead}{language_name(lang)}{stop}{tail}")
        lettering.append((core, lang))
    return ScreenReaderText("".join(frame).strip(), tuple(lettering), own_words)
