"""Who speaks on a page, as ``panelvox names`` lists them."""

from __future__ import annotations

from dataclasses import dataclass

from panelvox.model import PageAnalysis
from panelvox.names.book_persons import CARRIED
from panelvox.names.stores import character_key


@dataclass(frozen=True, slots=True)
class SpeakerEntry:
    """One character who speaks on a page, as the list shows it."""

    key: str
    name: str  # what the listener hears: the name, or "character 2"
    source: str  # "user", "text" (read in the comic's words), "book" (said on another page of the same person) or ""
    lines: int
    first_line: str


def speaking_characters(
    analysis: PageAnalysis, user_keys: frozenset[str] = frozenset()
) -> list[SpeakerEntry]:
    """The characters that speak on a named page, as the listener hears them (a figure the
    words named apart from the rest of its person), in order of their first line."""
    chars = {c.id: c for c in analysis.characters}
    said: dict[str, list[str]] = {}
    for block in analysis.blocks_in_order():
        link = analysis.speaker_of(block.id)
        voice = analysis.voice_of(link) if link is not None else None
        if voice is None or link is None:
            continue
        # a person once, by their first figure; a figure the words named, apart
        who = voice.id if voice.name is not None or link.character is None else link.character
        said.setdefault(who, []).append(" ".join(block.text.split()))
    out = []
    for cid, texts in said.items():
        c = chars[cid]
        key = character_key(analysis.page, c)
        if key in user_keys:
            source = "user"
        elif not c.name:
            source = ""
        else:
            source = "book" if c.name_confidence <= CARRIED else "text"
        out.append(SpeakerEntry(key, c.label or c.name or "", source, len(texts), texts[0][:60]))
    return out
