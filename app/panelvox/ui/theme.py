"""Colours and text sizes of the reader window. Every text/background pair meets WCAG AA
(contrast ≥ 4.5:1), checked by :func:`contrast_ratio` in the tests.

The page highlight is a double outline (a dark line inside a light one), so it stands out
at ≥ 3:1 (WCAG's rule for non-text marks) against any page artwork, light or dark.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    background: str
    text: str
    selection_bg: str
    selection_text: str
    status_bg: str
    status_text: str
    outline_dark: str
    outline_light: str
    page_bg: str

    def text_pairs(self) -> tuple[tuple[str, str], ...]:
        return (
            (self.text, self.background),
            (self.selection_text, self.selection_bg),
            (self.status_text, self.status_bg),
        )


NORMAL = Theme(
    "normal",
    background="#ffffff",
    text="#1a1a1a",
    selection_bg="#0b4f9c",
    selection_text="#ffffff",
    status_bg="#f0f0f0",
    status_text="#1a1a1a",
    outline_dark="#0b4f9c",
    outline_light="#ffffff",
    page_bg="#5a5a5a",
)
HIGH_CONTRAST = Theme(
    "high-contrast",
    background="#000000",
    text="#ffffff",
    selection_bg="#ffff00",
    selection_text="#000000",
    status_bg="#000000",
    status_text="#ffff00",
    outline_dark="#000000",
    outline_light="#ffff00",
    page_bg="#000000",
)


def theme_for(high_contrast: bool) -> Theme:
    return HIGH_CONTRAST if high_contrast else NORMAL


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def contrast_ratio(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def point_size(*, large_text: bool, base_point_size: float) -> float:
    """The text size of the window: large text doubles the size the system asked for."""
    return round(base_point_size * (2.0 if large_text else 1.0), 1)


def stylesheet(theme: Theme, *, large_text: bool, base_point_size: float) -> str:
    """A Qt style sheet; large text doubles the size the system asked for (system scaling kept)."""
    size = point_size(large_text=large_text, base_point_size=base_point_size)
    return f"""
QWidget {{ background: {theme.background}; color: {theme.text}; font-size: {size}pt; }}
QTreeView::item:selected, QListView::item:selected, QMenu::item:selected {{
    background: {theme.selection_bg}; color: {theme.selection_text}; }}
QStatusBar, QStatusBar QLabel {{ background: {theme.status_bg}; color: {theme.status_text}; }}
QWidget:focus {{ outline: 3px solid {theme.selection_bg}; }}
"""
