"""What the listener hears for each character: its name, or "character N".

The last step of the book's names pass (:class:`panelvox.names.book_names.BookNames`): every
character that speaks on the page gets a :attr:`Character.label`, so the narration, the
reader, ``panelvox names`` and ``panelvox analyze`` all call a person the same way and none
of them calls naming code. A named character is called by its name; the others are
"character 1", "character 2"… by their first line on the page, one number per person
(the same person in two panels is one character), never a made-up description; a person
whose name the words gave on one figure is still called by number on its other figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from panelvox.i18n import _
from panelvox.model import PageAnalysis


def label_page(analysis: PageAnalysis, numbers: Mapping[str, int] | None = None) -> PageAnalysis:
    """``analysis`` with a label on every character that speaks (and on its cluster's figures).

    ``numbers`` gives a person of the book (:attr:`Character.person`) the number it is called
    by on every page; without it the page's persons are numbered by their first line.
    """
    numbers = numbers or {}
    by_id = {c.id: c for c in analysis.characters}
    person_label: dict[str, str] = {}  # identity cluster (or id) -> label
    numbered = 0
    for block in analysis.blocks_in_order():
        link = analysis.speaker_of(block.id)
        char = by_id.get(link.character) if link is not None and link.character else None
        if char is None or link is None:
            continue
        voice = analysis.voice_of(link)
        if voice is not None and voice.name is not None:
            continue  # said by a named figure: the person needs no number here
        person = char.cluster or char.id
        if person not in person_label:  # a person named on one figure is still one person
            numbered += 1
            n = numbers.get(char.person or "", numbered)
            # Translators: how an unnamed character is called; {n} numbers them in the book.
            person_label[person] = _("character {n}").format(n=n)
    chars = []
    for c in analysis.characters:
        label = c.name if c.name is not None else person_label.get(c.cluster or c.id)
        chars.append(c if c.label == label else replace(c, label=label))
    return replace(analysis, characters=tuple(chars))
