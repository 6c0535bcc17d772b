"""What untraced lettering is: lettering outside any balloon the balloons stage could trace.

Its size and words tell it: no letters at all is a mark (a page number, a date); letters
much larger than the page's typical lettering are a sound effect (one or two words on one
line) or display lettering (a title, a sign); ordinary lettering of a few words or lines is
speech whose outline was not found, and a short cry ("HUH!") too.

Lettering set at a slant (:data:`SLANT` degrees or more off the level) is drawn into the
art: a sign on a thing, a label, a sound. A letterer sets balloon and caption lettering
level with the page, so slanted lettering whose outline was not traced is not speech;
unless it reads as narration (told in the past tense, or opening with a word that moves the
story on, :mod:`panelvox.analysis.block_roles`): a caption box set at a slant; or is
made only of cries read surely ("OW-W", "YEOW!"): a character's cry lettered free, as a
sound is (an unsure reading of marks in the art is no cry: scene text, dropped). Where
captions sit (on the paper round the panels, against a panel's top or bottom border) the
slant tells nothing: the balloons stage's caption rules decide there. For the same reason
slanted lettering in a traced outline without a tail is a sign's board, and so is any
lettering in an outline shaped as a board (:func:`board_kind`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from panelvox.analysis.block_roles import SCRIBBLE_CONFIDENCE, made_of, stretched_in, told_in_past
from panelvox.analysis.lettering import WordList, interjection_words
from panelvox.analysis.line_groups import slope, thickness
from panelvox.model import BalloonKind, TextLine

#: lettering whose lines slope this much (degrees, their median) is set at a slant: above
#: the wobble of hand lettering and of the detector's boxes on level lines
SLANT = 4.0
#: narration is told in sentences: a slanted caption has at least this many words
NARRATION_WORDS = 4


def slanted(lines: Sequence[TextLine]) -> bool:
    """Whether the lines of a block are set at a slant (their median slope)."""
    slopes = [a for a in (slope(ln) for ln in lines) if a is not None]
    return bool(slopes) and abs(math.degrees(statistics.median(slopes))) >= SLANT


def free_kind(
    lines: Sequence[TextLine],
    typical: float,
    words: WordList,
    display: float = 1.8,
    captions: bool = False,
) -> tuple[BalloonKind, float]:
    """The kind of a block of untraced lettering and how sure it is (see the module
    docstring); ``typical``: the page's typical line thickness, ``display``: how many times
    that display lettering is; ``captions``: the lettering lies where captions sit (on the
    paper round the panels, against a panel's border), where the slant tells nothing."""
    height = statistics.median(thickness(ln) for ln in lines)
    text = " ".join(ln.text for ln in lines)
    letters = sum(c.isalpha() for c in text)
    if letters == 0:
        return BalloonKind.OTHER, 0.8  # page numbers, dates
    if height >= display * typical:
        if len(lines) == 1 and len(text.split()) <= 2:
            return BalloonKind.SFX, 0.6
        return BalloonKind.OTHER, 0.5  # titles, signs
    if slanted(lines) and not captions:
        if len(text.split()) >= NARRATION_WORDS and told_in_past(text, words):
            return BalloonKind.CAPTION, 0.5  # a caption box set at a slant
        if _cry(text) and statistics.fmean(ln.confidence for ln in lines) >= SCRIBBLE_CONFIDENCE - 0.1:
            return BalloonKind.SPEECH, 0.4  # a character's cry lettered free ("OW-W", "YEOW!")
        return BalloonKind.OTHER, 0.5  # a sign, a label drawn into the art
    if len(lines) >= 2 or len(text.split()) >= 3:
        return BalloonKind.SPEECH, 0.5  # lettering whose outline was not found
    if text.rstrip(" '\"’”")[-1:] in ("!", "?", "…") and letters >= 2:
        return BalloonKind.SPEECH, 0.4  # a short exclamation ("HUH!") whose balloon was not traced
    return BalloonKind.OTHER, 0.4


def _cry(text: str) -> bool:
    """Lettering made only of cries ("OW-W", "YEOWW!", "OH! OH!"), stretched or not."""
    return made_of(text, lambda t: stretched_in(t, interjection_words()))


def board_kind(
    kind: BalloonKind, lines: Sequence[TextLine], words: WordList, *, board: bool = False, tail: bool = False
) -> BalloonKind:
    """The kind of lettering in a traced outline: on a sign board's outline (``board``, see
    :mod:`panelvox.analysis.sign_boards`; its post may pass for a ``tail``), or slanted in
    an outline without a tail, it is a sign (balloon lettering is level), unless it is told
    as narration or cried."""
    if kind not in (BalloonKind.SPEECH, BalloonKind.THOUGHT):
        return kind
    if not board and (tail or not slanted(lines)):
        return kind
    text = " ".join(ln.text for ln in lines)
    if _cry(text) or (len(text.split()) >= NARRATION_WORDS and told_in_past(text, words)):
        return kind
    return BalloonKind.OTHER
