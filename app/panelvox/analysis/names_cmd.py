"""``panelvox names BOOK``: list who speaks in a book, and rename a character for good.

    panelvox names BOOK [--pages A-B]                 # list: key, name, lines, first words
    panelvox names BOOK --rename p4:c2 "Steenie"      # the name sticks for the book
    panelvox names BOOK --rename p4:c2 ""             # forget the rename

Pages are analysed with the default pipeline and the disk cache (a page read before is
not analysed again). A rename is stored in :class:`NameStore` with the character's look,
so the reader, ``panelvox narrate`` and this list use it on every page where that person
is found.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from panelvox.analysis.book_names import BookNames
from panelvox.analysis.name_store import BY_LOOK_CONFIDENCE, NameStore, character_key, character_look
from panelvox.analysis.names import speaker_names
from panelvox.errors import PanelvoxError
from panelvox.i18n import _
from panelvox.model import PageAnalysis, ReadingDirection

_KEY = re.compile(r"^p(\d+):([A-Za-z]\w*)$")


class NamesUsageError(PanelvoxError):
    """A ``panelvox names`` argument that cannot be used (bad key, page out of range)."""


@dataclass(frozen=True, slots=True)
class SpeakerEntry:
    """One character who speaks on a page, as the list shows it."""

    key: str
    name: str
    source: str  # "user", "text" (read in the comic's words), "look" (a look-alike's name) or ""

    lines: int
    first_line: str


def speaking_characters(
    analysis: PageAnalysis, user_keys: frozenset[str] = frozenset()
) -> list[SpeakerEntry]:
    """The characters that speak on a page, in order of their first line."""
    chars = {c.id: c for c in analysis.characters}
    spoken = speaker_names(analysis)
    said: dict[str, list[str]] = {}
    for block in analysis.blocks_in_order():
        link = analysis.speaker_of(block.id)
        if link is not None and link.character in chars:
            said.setdefault(link.character, []).append(" ".join(block.text.split()))
    out = []
    for cid, texts in said.items():
        c = chars[cid]
        key = character_key(analysis.page, c)
        source = (
            "user"
            if key in user_keys
            else ""
            if not c.name
            else "look"
            if c.name_confidence <= BY_LOOK_CONFIDENCE
            else "text"
        )
        out.append(SpeakerEntry(key, spoken[cid], source, len(texts), texts[0][:60]))
    return out


def run_names(
    book_path: Path,
    *,
    pages: tuple[int, int] | None = None,
    rename: tuple[str, str] | None = None,
    direction: str | None = None,
    store: NameStore | None = None,
    out: TextIO | None = None,
) -> int:
    """The whole command; returns the exit status."""
    from panelvox.analysis.cache import PageAnalyzer
    from panelvox.analysis.pipeline import default_stages
    from panelvox.books import open_book

    out = out or sys.stdout
    store = store or NameStore()
    override = ReadingDirection(direction) if direction else None
    with open_book(book_path, direction_override=override) as book:
        names = BookNames.for_book(book, store)
        analyzer = PageAnalyzer.with_default_cache(default_stages())

        def analyzed(number: int) -> PageAnalysis:
            return analyzer.analyze(
                book.content_hash, number, book.direction, lambda: book.load_page_array(number - 1)
            )

        if rename is not None:
            key, new_name = rename
            m = _KEY.match(key.strip())
            if m is None or not 1 <= int(m.group(1)) <= book.page_count:
                raise NamesUsageError(
                    # Translators: `panelvox names --rename` got a key unlike "p4:c2"; {key} is what was given.
                    _("No character {key} in this book; use a key from the list, like p4:c2.").format(
                        key=key
                    ),
                    detail=f"{book_path}: {book.page_count} pages",
                )
            number = int(m.group(1))
            analysis = analyzed(number)
            char = next((c for c in analysis.characters if c.id == m.group(2)), None)
            if char is None:
                raise NamesUsageError(
                    _("No character {key} in this book; use a key from the list, like p4:c2.").format(
                        key=key
                    ),
                    detail=f"page {number} has {[c.id for c in analysis.characters]}",
                )
            look = character_look(book.load_page_array(number - 1), analysis, char)
            store.rename(book.content_hash, character_key(number, char), new_name, look.tolist())
            if new_name.strip():
                # Translators: printed after a rename; {key} is like "p4:c2", {name} the new name.
                out.write(
                    _("{key} is now called {name}.").format(key=key, name=" ".join(new_name.split())) + "\n"
                )
            else:
                # Translators: printed after a rename was forgotten; {key} is like "p4:c2".
                out.write(_("{key} has no given name any more.").format(key=key) + "\n")
            return 0
        first, last = pages or (1, book.page_count)
        if not 1 <= first <= last <= book.page_count:
            raise NamesUsageError(
                # Translators: asked for pages the book does not have; {count} is its page count.
                _("This book has pages 1 to {count}.").format(count=book.page_count),
                detail=f"asked for pages {first}-{last}",
            )
        user_keys = frozenset(store.names(book.content_hash))
        for number in range(first, last + 1):
            analysis = names.apply(analyzed(number), functools.partial(book.load_page_array, number - 1))
            entries = speaking_characters(analysis, user_keys)
            # Translators: heading of one page in `panelvox names`; {n} is the page number.
            out.write(
                _("Page {n}").format(n=number) + ("\n" if entries else ": " + _("nobody speaks") + "\n")
            )
            for e in entries:
                origin = {
                    "user": _("given by you"),
                    "text": _("from the text"),
                    # Translators: `panelvox names`: a name given on another page, put here on a
                    # figure that looks alike; the narration says "probably" before it.
                    "look": _("looks like the one named elsewhere, not sure"),
                    "": _("no name yet"),
                }[e.source]
                out.write(f"  {e.key}  {e.name} ({origin}), {e.lines}×: {e.first_line}\n")
        out.flush()
    return 0
