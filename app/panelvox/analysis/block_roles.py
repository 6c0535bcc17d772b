"""What a block of lettering is beyond its outline: narration, a sound, a cry, the story's
title, or no lettering at all.

Applied by the balloons stage to the blocks it built, before the order stage:

- **Not lettering.** Marks the text reader finds in the art that are not meant to be read:
  a page number (digits outside the panels), a lone digit or speck in the art, foreign
  script on a page lettered in another (Japanese in a book whose ComicInfo gives a
  Latin-script language, else where the page's lines are at least 85 % one script), and
  unsure untraced readings (under 0.8 confidence, whatever kind they were given) that are
  mostly no word (scene text and display lettering under 0.7 whatever they hold), scene text holding no word at
  all however surely read (an artist's signature, marks in the art; a word whose first
  letter the detector lost is lettering), unsure readings whose boxes cross each other
  (the detector confused by lettering or hatching), and one word read with under
  0.6 confidence in a traced outline (motion lines or a machine's parts whose light ground
  was traced). A number drawn on a thing in
  a panel ("1000" on a weight) is a sign and is kept. They are dropped: nothing is said
  for them. A balloon holding only "2" holds a hand-lettered "?" and says it.
- **Pieces.** A block lying within a traced balloon at its lettering's size is part of it
  (see :mod:`panelvox.analysis.block_pieces`), before anything is dropped.
- **Narration, sounds and cries.** Untraced lettering that opens with a word that moves the
  story on, or has a sentence that does ("LATER...", "MEANWHILE", "... SUDDENLY SHE SEES",
  "THE END": the comics lexicon's narration words, a first letter the detector lost given
  back; a time of day: "THAT NIGHT...", "NEXT MORNING", not "GOOD NIGHT") is a caption;
  made only of sounds spelt out (the lexicon's sounds, stretched or not) it is a sound
  effect; large untraced lettering with no sound in it ("OUCH!",
  "YEEOWW!!") is a cry, said as speech. Inside a traced outline, sounds made by things
  ("CLAP", "CRASH! BANG!") are a sound effect (the art's light ground was traced), and so
  is display lettering made only of sounds ("BOP!"); a creature's voice at the dialogue's
  size ("WOOF!": the lexicon's voices) is its line. A traced box running its panel's width
  against the panel's top or bottom border, told in the past tense without a cry or a
  question ("IT OCCURRED TO THE PROFESSOR..."), is a caption.
- **Titles.** Display lettering (much larger than the page's speech) in the top part of the
  page, read surely, that holds a word of the English word list or a name ("WILLIE") that
  is no word of the comics lexicon, and is no cry ("!"): the story's title, even where the
  art round it was traced as an outline; the page's largest lettering, :data:`LOGO` times
  its dialogue's size, is the title though it is a name the word list does not know (a
  logo: "SNIFFY", "GUNGA"), unless a cry or a sound. Its blocks become one caption with
  ``title`` set, which the order stage puts before the page's panels. A story has one
  title, its page's largest lettering: display lettering :data:`TITLE_RIVAL` times smaller
  than another's at the top of the page, lying outside it, is a sign in the art ("POOCH
  PALACE" on a shop under the logo "SNIFFY"), kept as what its size and place made it.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from panelvox.analysis.block_pieces import rejoin_balloons
from panelvox.analysis.display_initial import TIMES, display_initial
from panelvox.analysis.lettering import (
    WordList,
    as_lettered,
    comic_lexicon,
    interjection_words,
    narration_words,
    proper_names,
    sound_words,
    voice_words,
)
from panelvox.analysis.line_groups import thickness
from panelvox.analysis.spacing import WordFrequencies
from panelvox.model import Balloon, BalloonKind, BBox, Panel, TextLine
from panelvox.models.ctc_beam import Lexicon
from panelvox.models.ocr_head import LATIN, head_for

#: a title's letters are at least this many times the page's typical lettering
TITLE_SIZE = 1.8
#: ... and it starts in this top share of the page
TITLE_BAND = 0.4
#: a story's title is its page's largest lettering: display lettering this many times
#: smaller than another's at the top of the page, and lying outside it, is a sign
TITLE_RIVAL = 2.5
#: a logo: the page's largest lettering, this many times its typical lettering or more
LOGO = 5.0
#: an untraced sign read with less confidence than this, mostly no word, is a scribble;
#: one read with 0.1 less is a scribble whatever it holds
SCRIBBLE_CONFIDENCE = 0.8
#: two readings both under this confidence whose boxes cross by more than :data:`CROSSED`
#: of the smaller one's area were read from lettering that confused the detector
CROSSED_CONFIDENCE = 0.85
CROSSED = 0.4
#: the share of a page's lines in its main script above which another script is foreign
MAIN_SCRIPT_SHARE = 0.85
#: a caption box runs its panel's width against its top or bottom border: its sides are
#: within this many line thicknesses of the panel's
CAPTION_EDGE = 1.0

#: ... but not when they are a greeting
_GREETINGS = frozenset({"good"})
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*")
_LONE_TWO = re.compile(r"2+[!?]*")
_SENTENCE_END = re.compile(r"\.+|…|--+|—")


def _untraced(b: Balloon) -> bool:
    return b.polygon is None and b.tail is None


def _foreign_languages(lines: Sequence[TextLine], language: str | None = None) -> set[str]:
    """The scripts foreign to the page, as block languages: Japanese in a book known (from
    its ComicInfo) to be in a Latin-script language, else the script foreign to a page
    lettered (almost) all in one. A Japanese book's Latin lettering is not foreign by its
    language alone: "OK!" and sound effects are often lettered so in manga."""
    if head_for(language) == LATIN:
        return {"ja"}
    scripts = [ln.script for ln in lines]
    if len(scripts) < 5:
        return set()
    main = max(set(scripts), key=scripts.count)
    if scripts.count(main) < MAIN_SCRIPT_SHARE * len(scripts):
        return set()
    return {"ja", "en"} - {"ja" if main == "japanese" else "en"}


def crossed_readings(lines: Sequence[TextLine]) -> set[str]:
    """The ids of unsure readings whose boxes cross another unsure reading's: a letterer
    never sets one line over another, so boxes that cross (a balloon's three lines read as
    columns: "GUS", "STA") come from lettering or hatching that confused the detector, and
    neither reading can be trusted."""
    unsure = [ln for ln in lines if ln.confidence < CROSSED_CONFIDENCE]
    out: set[str] = set()
    for k, a in enumerate(unsure):
        for b in unsure[k + 1 :]:
            smaller = min(a.bbox.area, b.bbox.area)
            if smaller > 0 and a.bbox.intersection(b.bbox) > CROSSED * smaller:
                out |= {a.id, b.id}
    return out


def is_not_lettering(block: Balloon, read: float, lexicon: Lexicon, foreign: set[str]) -> bool:
    """True for a mark the listener should not hear (see the module docstring); ``read`` is
    the mean confidence of the block's lines."""
    text = block.text
    if not _untraced(block):
        # one short reading the recogniser is unsure of, in an "outline": marks of the art
        # (motion lines, a machine's parts) whose light ground was traced
        return len(block.lines) == 1 and len(text.split()) == 1 and read < SCRIBBLE_CONFIDENCE - 0.2
    if not any(c.isalpha() for c in text):
        # a page number (outside the panels), a lone digit or speck in the art, an unsure
        # reading; a number drawn on a thing in a panel ("1000" on a weight) is a sign
        digits = sum(c.isdigit() for c in text)
        return block.panel is None or digits < 2 or read < SCRIBBLE_CONFIDENCE
    if block.language in foreign:
        return True
    if block.kind is BalloonKind.OTHER and _no_word(text, lexicon):
        # scene text holding no word at all, however surely read: an artist's signature
        # ("RAY WILLNER" read "RIYWILLNR") or a misread of marks in the art
        return True
    if read < SCRIBBLE_CONFIDENCE:
        # mostly no word, whatever kind it was given ("PCHKE" as a sound); a sign, scene
        # text or display lettering read very unsurely, whatever it holds (lettering of a
        # balloon or caption whose outline was not traced is said, unsure, while it holds words)
        tokens = [w for w in _TOKEN.findall(text) if len(w) > 1]
        unworded = 2 * sum(map(lexicon, tokens)) < len(tokens)
        art = block.kind in (BalloonKind.OTHER, BalloonKind.SFX)
        return unworded or (art and read < SCRIBBLE_CONFIDENCE - 0.1)
    return False


def _no_word(text: str, lexicon: Lexicon) -> bool:
    """``text`` has words of letters and none is a word of lettering, nor one whose first
    letter the detector lost ("ATER", "ORRY": lettering cut at its edge, not a scribble)."""
    tokens = [w for w in _TOKEN.findall(text) if len(w) > 1]
    if not tokens or any(map(lexicon, tokens)):
        return False
    return not any(lexicon(c + t) for t in tokens if len(t) > 2 for c in "abcdefghijklmnopqrstuvwxyz")


def _title_like(
    block: Balloon,
    height: float,
    typical: float,
    page_height: float,
    words: WordList,
    read: float,
    largest: bool = False,
) -> bool:
    """Display lettering at the top of the page, read surely, holding a word or a name
    ("WILLIE"): the art round a title is often traced as an outline, but the lettering of
    a balloon is of the dialogue's size. ``largest``: the page's largest lettering; a logo
    of :data:`LOGO` times the page's lettering is the story's name though the word list
    does not know it ("SNIFFY", "GUNGA"), unless it is a cry or a sound."""
    if block.language == "ja" or read < SCRIBBLE_CONFIDENCE:
        return False
    if height < TITLE_SIZE * typical or block.bbox.y0 > TITLE_BAND * page_height:
        return False
    if "!" in block.text:
        return False  # a cry or a sound
    comic = comic_lexicon()  # interjections and sounds are no title
    tokens = [t.lower().strip("'’") for t in _TOKEN.findall(block.text)]
    if largest and height >= LOGO * typical:
        named = [t for t in tokens if len(t) > 2]
        return bool(named) and not any(stretched_in(t, comic) for t in named)  # "BLAMMM" is a sound
    if _untraced(block) and block.kind is BalloonKind.SPEECH:
        return False
    return any(len(t) > 2 and t not in comic and (words.knows(t) or t in proper_names()) for t in tokens)


def _outshone(
    block: Balloon, blocks: Sequence[Balloon], heights: Mapping[str, float], page_height: float
) -> bool:
    """Whether lettering far larger than ``block``'s (:data:`TITLE_RIVAL` times) lies at the
    top of the page and ``block`` outside it: the story's title is that lettering (a logo,
    "SNIFFY"), and ``block`` a sign drawn in the art ("POOCH PALACE" on a shop), not part
    of the title as a subtitle lettered within the logo's letters is."""
    mid_x, mid_y = (block.bbox.x0 + block.bbox.x1) / 2, (block.bbox.y0 + block.bbox.y1) / 2
    return any(
        heights[o.id] >= TITLE_RIVAL * heights[block.id]
        and o.bbox.y0 <= TITLE_BAND * page_height
        and not (o.bbox.x0 <= mid_x <= o.bbox.x1 and o.bbox.y0 <= mid_y <= o.bbox.y1)
        for o in blocks
    )


def _caption_box(block: Balloon, panels: Mapping[str, Panel], typical: float, words: WordList) -> bool:
    """A traced "balloon" running the width of its panel against the panel's top or bottom
    border, lettered without a cry or a question and told in the past tense ("IT OCCURRED
    TO THE PROFESSOR...", "I MOVED BACKWARD..."): a caption box whose corners were not
    square enough to be traced as one. Dialogue at a panel's edge speaks in the present
    ("THAT DOES IT. NOW TO SLEEP") or cries out."""
    panel = panels.get(block.panel or "")
    if panel is None or block.kind is not BalloonKind.SPEECH or _untraced(block):
        return False
    b, p, gap = block.bbox, panel.bbox, CAPTION_EDGE * typical
    if b.x0 - p.x0 > gap or p.x1 - b.x1 > gap or (b.y0 - p.y0 > gap and p.y1 - b.y1 > gap):
        return False
    return told_in_past(block.text, words)


def told_in_past(text: str, words: WordList) -> bool:
    """Lettering told in the past tense ("HIS HEAD DROPPED BACK"), without a cry or a
    question: narration's voice, not dialogue's."""
    if {"!", "?"} & set(text):
        return False
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    return any(len(t) >= 5 and t.endswith("ed") and words.knows(t) for t in tokens)


def _lone_question(block: Balloon) -> Balloon:
    """A balloon holding nothing but a hand-lettered "?" (or "??", "?!") that was read as
    "2": the character's puzzlement, not a number (a number said in a balloon is lettered
    with its words: "TWO!")."""
    if _untraced(block) or not _LONE_TWO.fullmatch(block.text.strip()):
        return block
    return replace(block, text=block.text.strip().replace("2", "?"))


def tell_roles(
    blocks: Sequence[Balloon],
    lines: Sequence[TextLine],
    page_height: float,
    words: WordList,
    lexicon: Lexicon,
    language: str | None = None,
    panels: Sequence[Panel] = (),
) -> list[Balloon]:
    """``blocks`` without the marks that are not lettering, the title's blocks made one, and
    untraced narration, sounds and cries given their kind (see the module docstring);
    ``language``: the book's, when known; ``panels``: the page's, for caption boxes."""
    by_id = {ln.id: ln for ln in lines}
    main = [ln for ln in lines if not ln.ruby]
    typical = statistics.median(thickness(ln) for ln in main) if main else 0.0
    foreign = _foreign_languages(main, language)

    def read(b: Balloon) -> float:
        confs = [by_id[i].confidence for i in b.lines if i in by_id]
        return sum(confs) / len(confs) if confs else b.confidence

    by_panel = {p.id: p for p in panels}
    blocks = rejoin_balloons(blocks, by_id, words, _kept_apart)
    crossed = crossed_readings(main)
    blocks = [b for b in blocks if not (_untraced(b) and b.lines and set(b.lines) <= crossed)]
    kept = [
        replace(b, kind=BalloonKind.CAPTION)
        if _caption_box(b, by_panel, typical, words)
        else _lone_question(b)
        for b in blocks
        if not is_not_lettering(b, read(b), lexicon, foreign)
    ]
    titles = []
    large: set[str] = set()  # blocks of display lettering
    heights: dict[str, float] = {}
    for b in kept:
        members = [by_id[i] for i in b.lines if i in by_id]
        heights[b.id] = statistics.median(thickness(ln) for ln in members) if members else 0.0
    most = max(heights.values(), default=0.0)
    for b in kept:
        height = heights[b.id]
        if typical and height >= TITLE_SIZE * typical:
            large.add(b.id)
        if typical and _title_like(b, height, typical, page_height, words, read(b), height >= most):
            titles.append(b)
    titles = [t for t in titles if not _outshone(t, kept, heights, page_height)]
    if not titles:
        return [_sound_or_cry(b, lexicon, b.id in large) for b in kept]
    merged, title = merge_titles(kept, titles)
    return [b if b is title else _sound_or_cry(b, lexicon, b.id in large) for b in merged]


def merge_titles(kept: Sequence[Balloon], titles: Sequence[Balloon]) -> tuple[list[Balloon], Balloon]:
    """``kept`` with the title's blocks (``titles``, at least one, all of them in ``kept``)
    made one caption, in the place of the first of them read (top, then left); and that
    caption."""
    ordered = sorted(titles, key=lambda b: (b.bbox.y0, b.bbox.x0))
    box: BBox = ordered[0].bbox
    for b in ordered[1:]:
        box = box.union(b.bbox)
    title = replace(
        ordered[0],
        kind=BalloonKind.CAPTION,
        bbox=box,
        text=" ".join(b.text for b in ordered),
        confidence=min(b.confidence for b in ordered),
        lines=tuple(i for b in ordered for i in b.lines),
        title=True,
    )
    rest = [b for b in kept if all(b is not t for t in ordered[1:])]
    return [title if b is ordered[0] else b for b in rest], title


def stretched_in(token: str, words: frozenset[str]) -> bool:
    """``token`` is one of ``words``, stretched or not ("RRINGG", "ZAPP", "YEEOWW")."""
    t = token.lower()
    return t in words or re.sub(r"(.)\1+", r"\1", t) in words or re.sub(r"(.)\1{2,}", r"\1\1", t) in words


def _is_sound(token: str) -> bool:
    """A sound spelt out, stretched or not ("BANG", "RRINGG", "ZAPP", "WHAMMM")."""
    return stretched_in(token, sound_words())


def made_of(text: str, test: Callable[[str], bool]) -> bool:
    """Whether ``text`` has words and each passes ``test`` (its words of two letters or
    more, apostrophes off their ends): lettering made only of sounds, or only of cries."""
    tokens = [t.strip("'’") for t in _TOKEN.findall(text) if len(t.strip("'’")) > 1]
    return bool(tokens) and all(map(test, tokens))


def _all_sounds(block: Balloon) -> bool:
    """Lettering made only of sounds spelt out ("SOCK!", "CRASH! BANG!")."""
    return made_of(block.text, _is_sound)


def _kept_apart(block: Balloon) -> bool:
    """Lettering never made part of a balloon it lies in: sounds, and an untraced piece that
    moves the story on ("MEANWHILE...": a caption box set against the balloon's top)."""
    return _all_sounds(block) or (_untraced(block) and _opens_narration(block.text))


def _opens_narration(text: str) -> bool:
    """Words that move the story on ("LATER...", "AND MEANWHILE", "SUDDENLY SHE...",
    "THE END", a time of day: "THAT NIGHT...") opening the lettering or one of its
    sentences ("SHE ASKS A PASSING RODENT... SUDDENLY SHE DISCOVERS A HOUSE"), neither a
    cry nor a question."""
    if {"!", "?"} & set(text):
        return False
    for sentence in _SENTENCE_END.split(text):
        words = [t.lower() for t in _TOKEN.findall(sentence) if t.lower() not in ("and", "the")]
        if words and words[0] in narration_words():
            return True
        # a time of day opening the sentence, alone or after one word ("THAT NIGHT", "NEXT
        # MORNING", "NIGHT FALLS"), marks the passage of time
        if words and (
            words[0] in TIMES or (len(words) > 1 and words[1] in TIMES and words[0] not in _GREETINGS)
        ):
            return True
    return False


def _display_initial(text: str, lexicon: Lexicon) -> str:
    """``text`` with a caption's misread or lost display initial put back ("ATER..." →
    "LATER...", "GATE THAT NIGHT" → "LATE THAT NIGHT": :mod:`panelvox.analysis.display_initial`)."""
    return display_initial(text, lexicon, narration_words(), WordFrequencies.load(), as_lettered())


def _sound_or_cry(block: Balloon, lexicon: Lexicon, large: bool = False) -> Balloon:
    """Untraced lettering that opens with a word that moves the story on is narration;
    lettering that is all sounds ("CRASH! BANG!") is a sound effect, whatever its size;
    large lettering with no sound in it but a word ("OUCH!", "TIMBER!") is a cry: speech
    whose balloon was not traced (a misread that holds no word stays a sound effect).
    ``large``: display lettering (:data:`TITLE_SIZE` times the page's typical); made only
    of sounds it is a sound effect even where an outline was traced round it (the art
    round a "BOP!" or a burst), as a balloon's lettering is of the dialogue's size."""
    if block.language == "ja":
        return block
    if block.kind is BalloonKind.CAPTION:  # narration opens with a display initial
        block = replace(block, text=_display_initial(block.text, lexicon))
    tokens = [t for t in _TOKEN.findall(block.text) if len(t.strip("'’")) > 1]
    if not tokens:
        return block
    if not _untraced(block):
        bare = [t.strip("'’") for t in tokens]
        # a sound made by a thing ("CLAP", "CRASH! BANG!") is lettered in the art, whose
        # light ground was traced as an outline; a creature's voice ("WOOF!") in a balloon
        # is its line, unless it is display lettering
        voice = any(stretched_in(t, voice_words()) for t in bare)
        if block.kind is BalloonKind.SPEECH and all(map(_is_sound, bare)) and (large or not voice):
            return replace(block, kind=BalloonKind.SFX)
        return block
    if block.kind is not BalloonKind.THOUGHT:
        # a caption's display initial was put back above; display lettering that moves the
        # story on ("THE END" in large script) is narration, not a sound
        text = block.text if block.kind is BalloonKind.CAPTION else _display_initial(block.text, lexicon)
        if _opens_narration(text):
            return replace(block, kind=BalloonKind.CAPTION, text=text)
    sounds = [_is_sound(t.strip("'’")) for t in tokens]
    if all(sounds) and block.kind in (BalloonKind.SPEECH, BalloonKind.CAPTION, BalloonKind.OTHER):
        return replace(block, kind=BalloonKind.SFX)
    cry = [lexicon(t) or stretched_in(t.strip("'’"), interjection_words()) for t in tokens]
    if not any(sounds) and block.kind is BalloonKind.SFX and any(cry):  # "OUCH!", "YEEOWW!!"
        return replace(block, kind=BalloonKind.SPEECH)
    return block
