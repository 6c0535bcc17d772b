"""A plain-text transcript of what is spoken: one line per utterance under a page header."""

from __future__ import annotations

from collections.abc import Sequence

from panelvox.narration.script import Utterance


def transcript_lines(overview: str, utterances: Sequence[Utterance]) -> list[str]:
    """The page overview, then each utterance's spoken text, indented."""
    return [overview, *(f"  {u.text}" for u in utterances), ""]
