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


def interface_language() -> str:
    """The language of the interface's own words ("Panel 2", "says"): the catalogue's, or
    English, the language the strings are written in, while no catalogue is installed."""
    info = gettext.translation(_DOMAIN, fallback=True).info()
    return (info.get("language") or "en").replace("_", "-").split("-")[0].lower()
