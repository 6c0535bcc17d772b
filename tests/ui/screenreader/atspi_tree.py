"""Print the accessible structure tree of the running Panelvox window as JSON.

Run with the SYSTEM python (python3-pyatspi): ``/usr/bin/python3 atspi_tree.py [--wait S]``.
Waits until the tree named "Page structure" has at least ``--min-items`` items, or the
time runs out, then prints {"items": [[depth, role, name, states], ...], "focused": name}
(states: those a screen reader would say after the name, like "expanded").
Optionally presses keys through AT-SPI (``--keys Right,w,F1,Next``) after the tree is ready;
``text:who speaks?`` types a text, ``wait:5`` waits five seconds more.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import pyatspi

#: X keysyms of the keys a test may press
KEYSYMS = {
    "Right": 0xFF53,
    "Left": 0xFF51,
    "Down": 0xFF54,
    "Up": 0xFF52,
    "Next": 0xFF56,
    "F1": 0xFFBE,
    "w": 0x77,
    "o": 0x6F,
    "t": 0x74,
    "q": 0x71,
    "space": 0x20,
    "Return": 0xFF0D,
}


#: states a screen reader says after an item's name ("expanded", "collapsed")
_NOISY_STATES = (
    ("expandable", pyatspi.STATE_EXPANDABLE),
    ("expanded", pyatspi.STATE_EXPANDED),
    ("collapsed", pyatspi.STATE_COLLAPSED),
)


def find_app(name: str):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is not None and (app.name or "").lower() == name:
            return app
    return None


def find_tree(node, depth: int = 0):
    if node is None or depth > 12:
        return None
    try:
        if node.getRoleName() in ("list", "list box", "tree", "tree table") and node.name == "Page structure":
            return node
        for i in range(node.childCount):
            found = find_tree(node.getChildAtIndex(i), depth + 1)
            if found is not None:
                return found
    except Exception:  # noqa: BLE001 - a vanished object mid-walk: try again next round
        return None
    return None


def items(tree) -> list[list[object]]:
    out: list[list[object]] = []
    for i in range(tree.childCount):
        child = tree.getChildAtIndex(i)
        if child is None:
            continue
        role = child.getRoleName()
        if role in ("column header", "table column header"):
            continue
        level = -1
        try:
            attrs = dict(a.split(":", 1) for a in child.getAttributes() if ":" in a)
            level = int(attrs.get("level", -1))
        except Exception:  # noqa: BLE001
            pass
        states = child.getState()
        noisy = [name for name, state in _NOISY_STATES if states.contains(state)]
        out.append([level, role, child.name, noisy])
    return out


def focused_name(tree) -> str | None:
    for i in range(tree.childCount):
        child = tree.getChildAtIndex(i)
        if child is not None and child.getState().contains(pyatspi.STATE_FOCUSED):
            return child.name
    return None


def snapshot(min_items: int):
    """(tree, items, focused) of the running window, or None while it is not ready.

    The window rebuilds its tree as analysis lands and as the reader moves, so any object
    may vanish between two calls: a failed read is simply tried again by the caller.
    """
    try:
        app = find_app("panelvox")
        tree = find_tree(app) if app is not None else None
        if tree is None:
            return None
        result = items(tree)
        if len(result) < min_items:
            return None
        return tree, result, focused_name(tree)
    except Exception as exc:  # noqa: BLE001 - a vanished object mid-read: try again
        print(f"retrying after {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def wait_for(min_items: int, seconds: float, want_focus: bool):
    deadline = time.monotonic() + seconds
    snap = None
    while time.monotonic() < deadline:
        snap = snapshot(min_items)
        if snap is not None and (not want_focus or snap[2] is not None):
            return snap
        time.sleep(0.5)
    return snap


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wait", type=float, default=60)
    ap.add_argument("--min-items", type=int, default=3)
    ap.add_argument("--keys", default="")
    args = ap.parse_args()
    snap = wait_for(args.min_items, args.wait, want_focus=False)
    keys = [k for k in args.keys.split(",") if k]
    if snap is not None and keys:
        for key in keys:
            if key.startswith("wait:"):
                time.sleep(float(key[5:]))
                continue
            if key.startswith("text:"):
                pyatspi.Registry.generateKeyboardEvent(0, key[5:], pyatspi.KEY_STRING)
            else:
                pyatspi.Registry.generateKeyboardEvent(KEYSYMS[key], None, pyatspi.KEY_SYM)
            time.sleep(1.5)
        snap = wait_for(args.min_items, 30, want_focus=True) or snap
    if snap is None:
        print(f"no tree with {args.min_items} items within {args.wait:.0f} s", file=sys.stderr)
        json.dump({"found": False, "items": [], "focused": None}, sys.stdout)
        return 1
    _tree, result, focused = snap
    json.dump({"found": True, "items": result, "focused": focused}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
