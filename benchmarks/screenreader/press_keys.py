"""Press keys in the focused window through AT-SPI and record when (for the latency benchmark).

Run with the SYSTEM python (python3-pyatspi)::

    /usr/bin/python3 press_keys.py --app plainlist --keys Down*15 --interval 3.5 --out times.json

Waits until the application ``--app`` shows a list with at least ``--min-items`` items,
then presses the keys, one every ``--interval`` seconds, and writes [[key, epoch seconds
just before the press], ...] as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import pyatspi

KEYSYMS = {"Down": 0xFF54, "Right": 0xFF53, "Next": 0xFF56}


def _list_items(app_name: str) -> int:
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is None or (app.name or "").lower() != app_name:
            continue
        stack = [(app, 0)]
        while stack:
            node, depth = stack.pop()
            if node is None or depth > 12:
                continue
            if node.getRoleName() in ("list", "list box"):
                return int(node.childCount)
            stack.extend((node.getChildAtIndex(k), depth + 1) for k in range(node.childCount))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--keys", required=True, help="comma-separated; Key*N repeats")
    ap.add_argument("--interval", type=float, default=3.5)
    ap.add_argument("--min-items", type=int, default=1)
    ap.add_argument("--wait", type=float, default=240)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    deadline = time.monotonic() + args.wait
    while True:
        try:
            if _list_items(args.app) >= args.min_items:
                break
        except Exception as exc:  # noqa: BLE001 - a window still being built: try again
            print(f"retrying: {exc!r}", file=sys.stderr)
        if time.monotonic() > deadline:
            print(f"no list in {args.app} within {args.wait:.0f} s", file=sys.stderr)
            return 1
        time.sleep(0.5)
    if not args.keys:
        return 0  # only waited for the window
    time.sleep(3)  # the screen reader takes the window in first
    keys: list[str] = []
    for part in filter(None, args.keys.split(",")):
        name, _star, count = part.partition("*")
        keys.extend([name] * (int(count) if count else 1))
    pressed = []
    for key in keys:
        pressed.append([key, time.time()])
        pyatspi.Registry.generateKeyboardEvent(KEYSYMS[key], None, pyatspi.KEY_SYM)
        time.sleep(args.interval)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(pressed, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
