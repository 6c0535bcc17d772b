"""Text normalisation and edit distances used by every text metric.

The implementation lives in :mod:`panelvox.textmatch`, shared with the verifier's quote
checks so that "the eval says this quote is not on the page" and "the verifier says so"
are the same measurement; this module keeps the eval's own import path.
"""

from __future__ import annotations

from panelvox.textmatch import (
    anls,
    edit_distance,
    ned,
    normalize,
    partial_distance,
    partial_similarity,
    similarity,
    word_form,
)

__all__ = [
    "anls",
    "edit_distance",
    "ned",
    "normalize",
    "partial_distance",
    "partial_similarity",
    "similarity",
    "word_form",
]
