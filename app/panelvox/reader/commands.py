"""The reader's commands and their keys, as data.

The Qt view binds these key names (``QKeySequence`` spelling) and F1 speaks the list, so
the keys a user hears about, the keys that work and the README's table are one source.
No key uses Insert or Caps Lock (the NVDA, JAWS and Orca modifiers); bare letters are safe
because screen readers pass them through in an application window (focus mode).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from panelvox.i18n import _


class Command(Enum):
    NEXT_BALLOON = "next-balloon"
    PREV_BALLOON = "previous-balloon"
    NEXT_PANEL = "next-panel"
    PREV_PANEL = "previous-panel"
    NEXT_PAGE = "next-page"
    PREV_PAGE = "previous-page"
    FIRST_PAGE = "first-page"
    LAST_PAGE = "last-page"
    GO_TO_PAGE = "go-to-page"
    SAY_ALL = "say-all"
    STOP = "stop"
    REPEAT = "repeat"
    WHERE_AM_I = "where-am-i"
    OVERVIEW = "overview"
    READ_TEXT = "read-text"
    DESCRIBE = "describe"
    ASK = "ask"
    RENAME = "rename-speaker"
    UNDO_RENAME = "undo-rename"
    RATE_UP = "rate-up"
    RATE_DOWN = "rate-down"
    TOGGLE_ZOOM = "toggle-zoom"
    TOGGLE_SFX = "toggle-sound-effects"
    TOGGLE_SPEAKERS = "toggle-speaker-names"
    SWITCH_DIRECTION = "switch-direction"
    LARGE_TEXT = "large-text"
    HIGH_CONTRAST = "high-contrast"
    OPEN = "open"
    EXPORT = "export"
    SETTINGS = "settings"
    HELP = "help"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class KeyBinding:
    command: Command
    #: key names in QKeySequence spelling ("Shift+N", "PgDown", "Ctrl+,")
    keys: tuple[str, ...]
    #: how the keys are said ("Right arrow or N")
    spoken_keys: str
    #: what the command does, one short phrase
    help: str


def keymap() -> tuple[KeyBinding, ...]:
    """Every binding, in the order F1 speaks them."""
    b = KeyBinding
    C = Command
    return (
        # Translators: F1 help; the keys for "next balloon".
        b(C.NEXT_BALLOON, ("Right", "N"), _("Right arrow or N"), _("next balloon")),
        # Translators: F1 help; the keys for "previous balloon".
        b(C.PREV_BALLOON, ("Left", "P"), _("Left arrow or P"), _("previous balloon")),
        # Translators: F1 help; the keys for "next panel".
        b(C.NEXT_PANEL, ("Down", "Shift+N"), _("Down arrow or Shift N"), _("next panel")),
        # Translators: F1 help; the keys for "previous panel".
        b(C.PREV_PANEL, ("Up", "Shift+P"), _("Up arrow or Shift P"), _("previous panel")),
        # Translators: F1 help; the key for "next page".
        b(C.NEXT_PAGE, ("PgDown",), _("Page Down"), _("next page")),
        # Translators: F1 help; the key for "previous page".
        b(C.PREV_PAGE, ("PgUp",), _("Page Up"), _("previous page")),
        # Translators: F1 help; the key for "first page".
        b(C.FIRST_PAGE, ("Home",), _("Home"), _("first page")),
        # Translators: F1 help; the key for "last page".
        b(C.LAST_PAGE, ("End",), _("End"), _("last page")),
        # Translators: F1 help; the key for "go to page".
        b(C.GO_TO_PAGE, ("G",), _("G"), _("go to a page")),
        # Translators: F1 help; the key for "read all from here".
        b(C.SAY_ALL, ("Space",), _("Space"), _("read all from here; Space again stops")),
        # Translators: F1 help; the keys that stop speech.
        b(C.STOP, ("Esc", "Control"), _("Escape or Control"), _("stop speech; any key also stops it")),
        # Translators: F1 help; the key for "repeat".
        b(C.REPEAT, ("R",), _("R"), _("repeat")),
        # Translators: F1 help; the key for "where am I".
        b(C.WHERE_AM_I, ("W",), _("W"), _("where am I")),
        # Translators: F1 help; the key for "page overview".
        b(C.OVERVIEW, ("O",), _("O"), _("page overview")),
        # Translators: F1 help; the key for "read a page of text".
        b(C.READ_TEXT, ("T",), _("T"), _("read a page of text (credits, letters) in full")),
        # Translators: F1 help; the key for "describe the panel".
        b(C.DESCRIBE, ("D",), _("D"), _("describe the current panel")),
        # Translators: F1 help; the key for "ask about the page".
        b(C.ASK, ("Q",), _("Q"), _("ask a question about the page")),
        # Translators: F1 help; the key for "name the speaker".
        b(C.RENAME, ("F2",), _("F2"), _("name the speaker of this balloon, for the whole book")),
        # Translators: F1 help; the keys for "undo the last name given".
        b(C.UNDO_RENAME, ("Ctrl+Z",), _("Control Z"), _("undo the last name you gave")),
        # Translators: F1 help; the keys for "faster speech".
        b(C.RATE_UP, ("+", "="), _("Plus"), _("speak faster")),
        # Translators: F1 help; the key for "slower speech".
        b(C.RATE_DOWN, ("-",), _("Minus"), _("speak slower")),
        # Translators: F1 help; the key for "zoom".
        b(C.TOGGLE_ZOOM, ("Z",), _("Z"), _("zoom to the current panel or balloon, or back")),
        # Translators: F1 help; the key for "sound effects on or off".
        b(C.TOGGLE_SFX, ("S",), _("S"), _("sound effects on or off")),
        # Translators: F1 help; the keys for "speaker names on or off".
        b(C.TOGGLE_SPEAKERS, ("Shift+S",), _("Shift S"), _("speaker names on or off")),
        # Translators: F1 help; the keys for "switch reading direction".
        b(C.SWITCH_DIRECTION, ("Ctrl+R",), _("Control R"), _("switch reading direction for this book")),
        # Translators: F1 help; the keys for "large text".
        b(C.LARGE_TEXT, ("Ctrl+T",), _("Control T"), _("large text on or off")),
        # Translators: F1 help; the keys for "high contrast".
        b(C.HIGH_CONTRAST, ("Ctrl+H",), _("Control H"), _("high contrast on or off")),
        # Translators: F1 help; the keys for "open a book".
        b(C.OPEN, ("Ctrl+O",), _("Control O"), _("open a book")),
        # Translators: F1 help; the keys for "export this book".
        b(C.EXPORT, ("Ctrl+E",), _("Control E"), _("export this book as a web page, e-book or audio")),
        # Translators: F1 help; the keys for "settings".
        b(C.SETTINGS, ("Ctrl+,",), _("Control comma"), _("settings")),
        # Translators: F1 help; the key for "key help".
        b(C.HELP, ("F1",), _("F1"), _("say these keys")),
        # Translators: F1 help; the keys for "quit".
        b(C.QUIT, ("Ctrl+Q",), _("Control Q"), _("quit")),
    )


def help_text() -> str:
    """The key list as F1 speaks it."""
    # Translators: one entry of the spoken key list: "Right arrow or N: next balloon."
    items = [_("{keys}: {action}.").format(keys=k.spoken_keys, action=k.help) for k in keymap()]
    return " ".join(items)


def key_table() -> dict[str, Command]:
    """Key name → command, for the view's key handler."""
    return {key: binding.command for binding in keymap() for key in binding.keys}
