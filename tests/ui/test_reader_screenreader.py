"""The real window under Xvfb: its accessibility tree over AT-SPI, and Orca speaking it.

Both start the reader in a private D-Bus session with the AT-SPI bus, read the tree with a
small script for the system python (python3-pyatspi), and use the real default pipeline on
the drawn sample book (and on a book of drawn Japanese lettering). Skipped only where Xvfb,
AT-SPI, pyatspi or Orca are missing (the Japanese book's test: also openbox, Speech
Dispatcher, SoX, a CJK font or the Japanese voice).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BOOK = REPO / "assets" / "sample-rtl.cbz"
TREE_SCRIPT = Path(__file__).parent / "screenreader" / "atspi_tree.py"
#: Orca with its debug log written line by line (named "orca" so Panelvox sees a screen reader)
ORCA_LINE_LOG = Path(__file__).parent / "screenreader" / "orca"
BUS_LAUNCHER = Path("/usr/libexec/at-spi-bus-launcher")
SYSTEM_PYTHON = Path("/usr/bin/python3")
BALLOON = "Good morning! Is the train late?"
SECOND = "It is always late on Mondays."

pytestmark = [pytest.mark.screenreader, pytest.mark.slow]


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"missing: {', '.join(missing)}")
    if not BUS_LAUNCHER.exists():
        pytest.skip("at-spi2-core is not installed")
    probe = subprocess.run([str(SYSTEM_PYTHON), "-c", "import pyatspi"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("python3-pyatspi is not installed for the system python")


def _free_display() -> int:
    for n in range(90, 200):
        if not Path(f"/tmp/.X{n}-lock").exists() and not Path(f"/tmp/.X11-unix/X{n}").exists():
            return n
    pytest.skip("no free X display number")


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One analysis cache for both tests: the second reuses the first one's page analysis."""
    return tmp_path_factory.mktemp("analysis-cache")


def _session(
    tmp: Path,
    cache: Path,
    *,
    orca: bool,
    keys: str,
    expect: str = "",
    wm: bool = False,
    book: Path = BOOK,
    options: str = "",
    app: str = "--backend silence",
    setup: str = "",
) -> tuple[dict[str, object], str]:
    """Run the window (and Orca) in a private D-Bus session; the tree as JSON, the Orca log.

    With ``expect``, Orca is given up to 60 s to log that text before it is stopped, so a
    loaded machine slows the test down instead of failing it. With ``wm``, a window manager
    (openbox) runs too, as on a desktop: windows are activated and dialogs take the focus.
    ``options`` (``-v``: the log in ``tmp/app.log``) and ``app``: the command line's and the
    reader's options; ``setup``: shell lines run before the reader (the session's speech
    server settings). A Speech Dispatcher the reader started in the session stops with it.
    """
    home = tmp / "home"
    (home / "run").mkdir(parents=True)
    (home / "run").chmod(0o700)
    orca_log = tmp / "orca.out"
    display = _free_display()
    panelvox = Path(sys.executable).parent / "panelvox"
    script = f"""
set -u
export HOME={home} XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={cache}
export XDG_RUNTIME_DIR={home}/run DISPLAY=:{display}
Xvfb :{display} -screen 0 1280x900x24 -nolisten tcp >{tmp}/xvfb.log 2>&1 &
XVFB=$!
for i in $(seq 50); do [ -e /tmp/.X11-unix/X{display} ] && break; sleep 0.1; done
WM=
if [ {int(wm)} = 1 ]; then openbox >{tmp}/wm.log 2>&1 & WM=$!; fi
{BUS_LAUNCHER} --launch-immediately >{tmp}/atspi.log 2>&1 &
BUS=$!
sleep 1
ORCA=
if [ {int(orca)} = 1 ]; then
  {SYSTEM_PYTHON} {ORCA_LINE_LOG} -d braille -d speech -u {home}/orca --debug-file {orca_log} >{tmp}/orca.log 2>&1 &
  ORCA=$!
  sleep 3
fi
{setup}
QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_QPA_PLATFORM=xcb {panelvox} {options} read "{book}" {app} >{tmp}/app.log 2>&1 &
APP=$!
{SYSTEM_PYTHON} {TREE_SCRIPT} --wait 240 --min-items 3 --keys '{keys}' >{tmp}/tree.json 2>{tmp}/tree.err
RC=$?
if [ -n "$ORCA" ]; then
  for i in $(seq 600); do grep -qF {json.dumps(expect)} {orca_log} 2>/dev/null && break; sleep 0.1; done
  sleep 1
  kill -INT $ORCA
  for i in $(seq 100); do kill -0 $ORCA 2>/dev/null || break; sleep 0.1; done
  kill -9 $ORCA 2>/dev/null
fi
kill $APP; wait $APP
SPD_PID={home}/run/speech-dispatcher/pid/speech-dispatcher.pid
[ -f $SPD_PID ] && kill $(cat $SPD_PID)
[ -n "$WM" ] && kill $WM
kill $BUS $XVFB
exit $RC
"""
    (tmp / "session.sh").write_text(script, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.run(
        ["dbus-run-session", "--", "bash", str(tmp / "session.sh")], env=env, capture_output=True, timeout=420
    )
    tree_text = (tmp / "tree.json").read_text(encoding="utf-8") if (tmp / "tree.json").exists() else ""
    tree_err = (tmp / "tree.err").read_text(errors="replace") if (tmp / "tree.err").exists() else ""
    assert proc.returncode == 0, (
        f"tree script: {tree_err[-1500:]}\ntree: {tree_text[:1000]}\n"
        f"app: {(tmp / 'app.log').read_text(errors='replace')[-1500:]}\n"
        f"session: {proc.stderr.decode(errors='replace')[-1000:]}"
    )
    log = orca_log.read_text(encoding="utf-8", errors="replace") if orca_log.exists() else ""
    return json.loads(tree_text), log


def _spoken(log: str) -> list[str]:
    """What Orca said, one string per utterance, from its debug log."""
    return [m.group(1) for m in re.finditer(r"SPEECH OUTPUT: '(.*)'\{", log)]


def test_atspi_tree_has_page_panels_and_balloons(tmp_path: Path, shared_cache: Path) -> None:
    _need("Xvfb", "dbus-run-session")
    tree, _log = _session(tmp_path, shared_cache, orca=False, keys="")
    assert tree["found"]
    items = tree["items"]
    roles = {role for _level, role, _name, _states in items}
    assert roles == {"list item"}, roles
    # a flat list: no item can be opened or closed, so none is said "expanded" or "collapsed"
    assert all(not states for _level, _role, _name, states in items), items
    names = [name for _level, _role, name, _states in items]
    assert names[0].startswith("Page 1: 3 panels")
    assert f"Panel 1. Character 1: {BALLOON}" in names
    assert f"Character 1: {BALLOON}" in names  # the balloon item: exactly what is spoken
    assert any(SECOND in n for n in names)
    assert tree["focused"] == names[0]


def test_orca_speaks_each_item_once_and_the_messages(tmp_path: Path, shared_cache: Path) -> None:
    """Balloons, where am I (W), the keys (F1), the overview (O), T on a comic page, a panel,
    a page turn and the end of the book, as Orca says them."""
    _need("Xvfb", "dbus-run-session", "orca")
    keys = "Right,Right,w,F1,o,t,Down,Next,Next"
    tree, log = _session(tmp_path, shared_cache, orca=True, keys=keys, expect="End of book.")
    spoken = _spoken(log)
    assert spoken, log[-3000:]
    assert f"Character 1: {BALLOON}" in spoken
    assert f"Character 1: {SECOND}" in spoken
    assert sum(SECOND in s for s in spoken) == 1, spoken  # said once, not again as a stop of its own
    assert not [s for s in spoken if re.search(r"\b(expanded|collapsed|tree level)\b", s)], spoken
    # messages reach the listener through Orca itself, with no "notification" word; the
    # opening words, said before Orca knew the window, once it is active
    assert any(s.startswith("The Late Train, 2 pages.") for s in spoken), spoken
    assert any(s.startswith("The Late Train, page 1 of 2, panel 2 of 3.") for s in spoken), spoken
    assert any(s.startswith("Right arrow or N: next balloon.") for s in spoken), spoken
    # O: the overview, said next (the page item itself may or may not be said at start, as
    # Orca takes the window in; Orca's echo of the keys is not matched here)
    keys_said = next(i for i, s in enumerate(spoken) if s.startswith("Right arrow or N:"))
    assert spoken[keys_said + 1].startswith("Page 1: 3 panels"), spoken
    assert spoken[-1] == "End of book.", spoken  # Page Down on the last page
    assert "This is not a page of text." in spoken, spoken  # T on a comic page, through Orca
    assert not [s for s in spoken if "notification" in s.lower()], spoken
    assert any(s.startswith("Panel 3. Ten minutes later.") for s in spoken), spoken
    assert any(s.startswith("Page 2:") for s in spoken), spoken  # the page turn
    assert (tree["focused"] or "").startswith("Page 2"), tree["focused"]


def test_orca_says_read_all_and_the_answer_after_it(tmp_path: Path, shared_cache: Path) -> None:
    """Space reads the book through Orca (its SPEECH OUTPUT has every stop's words, the page
    turn included); the first question asked after it is answered through Orca too (before,
    read-all went to a speech output of its own and that answer was never heard); the first
    launch's welcome is Orca's too, after the opening words, not over them."""
    _need("Xvfb", "dbus-run-session", "orca", "openbox")
    keys = "space,wait:40,q,wait:2,text:who speaks?,Return"
    _tree, log = _session(tmp_path, shared_cache, orca=True, keys=keys, expect="From balloon", wm=True)
    spoken = _spoken(log)
    assert any(s.startswith("The Late Train, 2 pages.") and "Welcome to Panelvox." in s for s in spoken), (
        spoken
    )
    assert f"Character 1: {SECOND}" in spoken, spoken  # no key but Space brought it there
    assert any(s.startswith("Page 2:") for s in spoken), spoken  # the page turn, read on
    assert "End of book." in spoken, spoken
    asked = max(i for i, s in enumerate(spoken) if "End of book." in s)
    # "who speaks?" on page 2, from its structure
    answers = [s for s in spoken[asked:] if "From balloon" in s]
    assert answers and answers[0].startswith("Character 3"), spoken


#: vertical lettering drawn on the Japanese book's pages, a balloon per panel
JAPANESE_PAGES = (("そんな借金なんて", "それはよかった"), ("流しのガンマンです", "だから知らないって"))
#: Japanese script: what espeak-ng, Speech Dispatcher's default voice, spells letter by letter
_JAPANESE_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _japanese_book(folder: Path) -> Path:
    """Two pages of two tiers, each a balloon of vertical Japanese (fonts-noto-cjk)."""
    from PIL import Image, ImageDraw, ImageFont

    found = subprocess.run(["fc-match", "-f", "%{file}", ":lang=ja"], capture_output=True, text=True)
    try:
        font = ImageFont.truetype(found.stdout.strip(), 30)
    except OSError:
        pytest.skip("no Japanese font (fonts-noto-cjk, see scripts/setup)")
    if "CJK" not in font.getname()[0]:
        pytest.skip("the Japanese font is not a CJK one")
    folder.mkdir()
    for n, lines in enumerate(JAPANESE_PAGES, 1):
        im = Image.new("RGB", (820, 780), "white")
        d = ImageDraw.Draw(im)
        for tier, text in enumerate(lines):
            top = 20 + tier * 380
            d.rectangle((20, top, 800, top + 360), outline="black", width=4)
            columns = [text[i : i + 7] for i in range(0, len(text), 7)]
            d.ellipse((640 - 45 * len(columns), top + 20, 730, top + 340), outline="black", width=3)
            for c, column in enumerate(columns):  # columns read right to left
                for r, ch in enumerate(column):
                    d.text((670 - 45 * c, top + 50 + 38 * r), ch, font=font, fill="black")
        im.save(folder / f"{n:03d}.png")
    return folder


#: the session's Speech Dispatcher as Debian ships it (espeak-ng), playing to ALSA's null
#: device, and SoX (the Japanese voice's player) too: there is no sound card under Xvfb
_NULL_AUDIO = """
mkdir -p $XDG_CONFIG_HOME/speech-dispatcher
cp /etc/speech-dispatcher/speechd.conf $XDG_CONFIG_HOME/speech-dispatcher/speechd.conf
printf 'AudioOutputMethod "alsa"\\nAudioALSADevice "null"\\n' >>$XDG_CONFIG_HOME/speech-dispatcher/speechd.conf
export AUDIODEV=null
"""


def test_orca_never_spells_japanese_and_the_japanese_voice_says_it(tmp_path: Path) -> None:
    """A Japanese book under Orca with Speech Dispatcher's espeak-ng, which spells Japanese
    ("Japanese letter"): arrow moves and read-all hand Orca the interface-language frame only
    ("Character 1: Japanese."), read-all's words are Orca's, and the lettering goes to
    Panelvox's Japanese voice (its record in the reader's log)."""
    _need("Xvfb", "dbus-run-session", "orca", "openbox", "speech-dispatcher", "play", "fc-match")
    probe = subprocess.run([sys.executable, "-c", "import pyopenjtalk"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("the Japanese voice is not installed (pip install 'panelvox[ja]')")
    book = _japanese_book(tmp_path / "Manga Test")
    keys = "Right,wait:5,Right,wait:5,space,wait:45"
    _tree, log = _session(
        tmp_path,
        tmp_path / "cache",
        orca=True,
        keys=keys,
        expect="End of book.",
        wm=True,
        book=book,
        options="-v",
        app="--backend screenreader",
        setup=_NULL_AUDIO,
    )
    spoken = _spoken(log)
    assert spoken, log[-3000:]
    # nothing Orca is given is spelled: no Japanese script, no letter names
    assert not [s for s in spoken if _JAPANESE_SCRIPT.search(s)], spoken
    assert not [s for s in spoken if re.search(r"(Japanese|Chinese) letter", s)], spoken
    frames = [s for s in spoken if re.fullmatch(r"(Character \d+|Someone|Narrator): Japanese\.?", s)]
    assert frames, spoken  # the balloons' frames, said by Orca
    # read-all (Space) reads on through Orca: no key turns the page, read-all does
    turn = next((i for i, s in enumerate(spoken) if s.startswith("Page 2:")), None)
    assert turn is not None, spoken
    assert [s for s in spoken[turn:] if s in frames], spoken  # page 2's balloons
    assert "End of book." in spoken[turn:], spoken
    # the lettering went to Panelvox's Japanese voice (Orca was given none of it, above)
    app_log = (tmp_path / "app.log").read_text(encoding="utf-8", errors="replace")
    said = re.findall(r"language voice (\S+) says '(.*)' \(ja\)", app_log)
    assert said, app_log[-3000:]
    assert {voice for voice, _text in said} <= {"openjtalk", "kokoro-ja"}, said
    texts = " ".join(text for _voice, text in said)
    assert "借金" in texts, said  # page 1, by an arrow move
    assert "ガンマン" in texts, said  # page 2, by read-all
