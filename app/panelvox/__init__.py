"""Panelvox: an offline reader that lets blind and low-vision people read comics and manga."""

from __future__ import annotations

__version__ = "0.1.0"
