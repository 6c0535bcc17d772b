"""Print the accessible structure tree of the running Panelvox window as JSON.

Run with the SYSTEM python (python3-pyatspi): ``/usr/bin/python3 atspi_tree.py [--wait S]``.
Waits until the tree named "Page structure" has at least one item below the page, or the
time runs out, then prints {"roles": ..., "items": [[depth, role, name], ...]}.
Optionally presses keys through AT-SPI (``--keys Right,Right``) after the tree is ready.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import pyatspi


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
        if node.getRoleName() in ("tree", "tree table") and node.name == "Page structure":
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
        out.append([level, role, child.name])
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wait", type=float, default=60)
    ap.add_argument("--min-items", type=int, default=3)
    ap.add_argument("--keys", default="")
    args = ap.parse_args()
    deadline = time.monotonic() + args.wait
    result: list[list[object]] = []
    tree = None
    while time.monotonic() < deadline:
        app = find_app("panelvox")
        tree = find_tree(app) if app is not None else None
        if tree is not None:
            result = items(tree)
            if len(result) >= args.min_items:
                break
        time.sleep(0.5)
    keys = [k for k in args.keys.split(",") if k]
    for key in keys:
        sym = {"Right": 0xFF53, "Left": 0xFF51, "Down": 0xFF54, "Up": 0xFF52}[key]
        pyatspi.Registry.generateKeyboardEvent(sym, None, pyatspi.KEY_SYM)
        time.sleep(1.5)
    focused = None
    if tree is not None:
        for i in range(tree.childCount):
            child = tree.getChildAtIndex(i)
            if child is not None and child.getState().contains(pyatspi.STATE_FOCUSED):
                focused = child.name
    json.dump({"found": tree is not None, "items": result, "focused": focused}, sys.stdout)
    return 0 if tree is not None else 1


if __name__ == "__main__":
    sys.exit(main())
