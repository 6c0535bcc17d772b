"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``):
no WebSocket library, no network. Used to run axe-core on exported HTML and to use it by
keyboard the way a person does (real key events, real focus)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"


def missing_tools() -> str | None:
    """Why the browser checks cannot run here, or None."""
    if shutil.which("chromium") is None:
        return "Debian's chromium is not installed (scripts/setup installs it)"
    if not AXE.is_file():
        return "npm axe-core is not installed in node_modules (scripts/setup installs it)"
    return None


class Browser:
    """One headless Chromium with one page; ``call`` sends a DevTools command and waits."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="panelvox-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # the pipe protocol reads commands on fd 3 and writes replies on fd 4: bash (dash cannot name fds above 9)
        # moves our pipe ends there before it becomes Chromium
        args = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            f"--user-data-dir={self.profile}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec 3<&{to_chrome_r} 4>&{from_chrome_w}; exec chromium "$@"', "bash", *args],
            pass_fds=(to_chrome_r, from_chrome_w),
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.profile, "stderr.log"), "wb"),  # noqa: SIM115
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)[
            "sessionId"
        ]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)

    def call(self, method: str, *, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                log = Path(self.profile, "stderr.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"chromium closed the pipe: {log}")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(raw))

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"]))
        return result["result"].get("value")

    def open(self, path: Path) -> None:
        self.call("Page.navigate", session=True, url=path.resolve().as_uri())
        for _ in range(200):
            if self.evaluate("document.readyState") == "complete":
                return
        raise RuntimeError("the page did not load")

    def key(self, key: str, code: str, key_code: int, *, shift: bool = False) -> None:
        """Press and release a key as the keyboard does (the browser moves the focus)."""
        modifiers = 8 if shift else 0
        for kind in ("rawKeyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                session=True,
                type=kind,
                key=key,
                code=code,
                windowsVirtualKeyCode=key_code,
                modifiers=modifiers,
            )
        if key == "Enter":
            self.call("Input.dispatchKeyEvent", session=True, type="char", text="\r")

    def tab(self) -> None:
        self.key("Tab", "Tab", 9)

    def enter(self) -> None:
        self.key("Enter", "Enter", 13)

    def axe(self, *, best_practices: bool = False) -> dict[str, Any]:
        """axe-core's results for the WCAG 2.2 A and AA rules (and the 2.0/2.1 ones);
        ``best_practices``: axe's best-practice rules too (landmark-unique, region, …), whose
        violations are mostly "moderate"."""
        self.evaluate(AXE.read_text(encoding="utf-8") + "; true")
        tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
        tags += ["best-practice"] if best_practices else []
        script = (
            "axe.run(document, {runOnly: {type: 'tag', values: TAGS}})"
            ".then(r => ({violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, "
            "nodes: v.nodes.map(n => n.target.join(' '))})), passes: r.passes.length}))"
        )
        return dict(self.evaluate(script.replace("TAGS", json.dumps(tags))))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.call("Browser.close")
        self.proc.wait(timeout=20)
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)
