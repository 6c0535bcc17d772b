"""Translation hook. Every user-visible string goes through ``_()`` with a
``# Translators:`` comment above it, as in NVDA."""

from __future__ import annotations

import gettext

_DOMAIN = "panelvox"


def _(message: str) -> str:
    """Translate ``message`` (identity until catalogues ship)."""
    return gettext.dgettext(_DOMAIN, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return gettext.dngettext(_DOMAIN, singular, plural, n)
