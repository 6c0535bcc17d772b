"""The reader window offscreen: keys in, what is heard and what the tree shows out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QAccessible, QDropEvent
from pytestqt.qtbot import QtBot
from reader_fixtures import cheap_analyzer, make_book

from panelvox.reader.position import Level, Position
from panelvox.speech.backends.spy_backend import SpyBackend, SpyEvent
from panelvox.ui.reader_app import Reader, build_reader
from panelvox.ui.theme import HIGH_CONTRAST, NORMAL, contrast_ratio

ASSETS = Path(__file__).resolve().parents[2] / "assets"


@pytest.fixture
def spy() -> SpyBackend:
    return SpyBackend()


def _heard(r: Reader, spy: SpyBackend) -> list[str]:
    r.speech.wait_idle(5)
    return spy.texts(SpyEvent.STARTED)


def _open(qtbot: QtBot, r: Reader, path: Path) -> None:
    assert r.window.open_path(path)
    qtbot.waitUntil(lambda: r.controller.outline(r.controller.position.page).ready, timeout=10_000)
    qtbot.waitUntil(lambda: r.window.tree.count() > 1)


def _key(
    qtbot: QtBot, r: Reader, key: Qt.Key, mods: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
) -> None:
    qtbot.keyClick(r.window.tree, key, mods)
    r.speech.wait_idle(5)
    qtbot.wait(5)  # let queued results reach the UI thread


def test_keys_move_and_tree_names_are_what_is_heard(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_Right)
    heard = _heard(reader, spy)
    assert heard[-1] == "Page one panel one balloon one."
    assert reader.window.tree.currentItem().text() == heard[-1]
    _key(qtbot, reader, Qt.Key.Key_N)
    assert _heard(reader, spy)[-1] == "Page one panel one balloon two."
    _key(qtbot, reader, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    assert reader.controller.position == Position(0, 2, Level.PANEL)
    current = reader.window.tree.currentItem().text()
    assert current == "Panel 2. Page one panel two balloon one. Page one panel two balloon two."
    assert " ".join(_heard(reader, spy)[-3:]) == current
    _key(qtbot, reader, Qt.Key.Key_Up)
    assert _heard(reader, spy)[-3] == "Panel 1."
    _key(qtbot, reader, Qt.Key.Key_P)
    assert _heard(reader, spy)[-1] == "Page 1: 2 panels, 4 balloons."
    assert reader.window.tree.currentItem().text() == "Page 1: 2 panels, 4 balloons."
    names = reader.window.tree.names()
    assert names[0] == (0, "Page 1: 2 panels, 4 balloons.")
    assert [d for d, _n in names] == [0, 1, 2, 2, 1, 2, 2]
    assert names[2] == (2, "Page one panel one balloon one.")


def test_page_keys_broken_page_and_end(qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path) -> None:
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "Page 2: 2 panels, 4 balloons.")
    _key(qtbot, reader, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "Page 3 is not a picture.")
    assert reader.window.tree.currentItem().text() == "Page 3 is not a picture."
    _key(qtbot, reader, Qt.Key.Key_Right)  # the broken page has nothing inside: on to page 4
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "Page 4: 2 panels, 4 balloons.")
    _key(qtbot, reader, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "Page 5: 2 panels, 4 balloons.")
    _key(qtbot, reader, Qt.Key.Key_PageDown)
    assert _heard(reader, spy)[-1] == "End of book."
    _key(qtbot, reader, Qt.Key.Key_Home)
    assert reader.controller.position == Position(0)
    qtbot.waitUntil(lambda: reader.window.page_view.image is not None, timeout=5000)


def _mid_utterance(spy: SpyBackend) -> bool:
    """The backend is speaking an utterance now (started, neither done nor cancelled)."""
    ended = len(spy.texts(SpyEvent.DONE)) + len(spy.texts(SpyEvent.CANCELLED))
    return len(spy.texts(SpyEvent.STARTED)) > ended


@pytest.mark.slow
def test_stop_repeat_and_any_key(qtbot: QtBot, tmp_path: Path) -> None:
    slow = SpyBackend(seconds_per_char=0.05)  # long enough that a key lands mid-utterance
    r = build_reader(
        backends=[slow], analyzer_factory=cheap_analyzer, screen_reader=False, persist_settings=False
    )
    qtbot.addWidget(r.window)
    try:
        r.window.show()
        _open(qtbot, r, make_book(tmp_path / "Test Book.cbz"))
        r.speech.wait_idle(10)
        _key(qtbot, r, Qt.Key.Key_Space)  # say-all
        qtbot.waitUntil(lambda: r.controller.position.step >= 1 and _mid_utterance(slow), timeout=10_000)
        assert r.controller.saying_all
        qtbot.keyClick(r.window.tree, Qt.Key.Key_Escape)
        r.speech.wait_idle(5)
        assert not r.controller.saying_all
        assert slow.texts(SpyEvent.CANCELLED)
        cancelled = len(slow.texts(SpyEvent.CANCELLED))
        started = len(slow.texts(SpyEvent.STARTED))
        _key(qtbot, r, Qt.Key.Key_Space)
        # wait until the backend is speaking (not merely queued), so the key lands mid-utterance
        qtbot.waitUntil(
            lambda: len(slow.texts(SpyEvent.STARTED)) > started and _mid_utterance(slow), timeout=5000
        )
        qtbot.keyClick(r.window.tree, Qt.Key.Key_Control)  # Control alone stops
        r.speech.wait_idle(5)
        assert len(slow.texts(SpyEvent.CANCELLED)) == cancelled + 1
        started = len(slow.texts(SpyEvent.STARTED))
        _key(qtbot, r, Qt.Key.Key_Space)
        qtbot.waitUntil(
            lambda: len(slow.texts(SpyEvent.STARTED)) > started and _mid_utterance(slow), timeout=5000
        )
        qtbot.keyClick(r.window.tree, Qt.Key.Key_J)  # an unbound key stops speech too
        r.speech.wait_idle(5)
        assert len(slow.texts(SpyEvent.CANCELLED)) == cancelled + 2
        slow.seconds_per_char = 0.0
        _key(qtbot, r, Qt.Key.Key_W)
        _key(qtbot, r, Qt.Key.Key_R)
        heard = slow.texts(SpyEvent.STARTED)
        assert heard[-1] == heard[-2] and heard[-1].startswith("Test Book, page 1 of 5")
    finally:
        r.close()


def test_resume_after_restart(qtbot: QtBot, spy: SpyBackend, tmp_path: Path) -> None:
    book = make_book(tmp_path / "Test Book.cbz")
    first = build_reader(
        backends=[spy], analyzer_factory=cheap_analyzer, screen_reader=False, persist_settings=False
    )
    qtbot.addWidget(first.window)
    _open(qtbot, first, book)
    for key in (Qt.Key.Key_PageDown, Qt.Key.Key_Down, Qt.Key.Key_Right):
        _key(qtbot, first, key)
        qtbot.waitUntil(lambda: first.controller.outline(first.controller.position.page).ready)
    first.close()
    again = build_reader(
        backends=[spy], analyzer_factory=cheap_analyzer, screen_reader=False, persist_settings=False
    )
    qtbot.addWidget(again.window)
    try:
        _open(qtbot, again, book)
        # Down entered panel 1 (its first balloon said), Right went on to its second
        assert again.controller.position == Position(1, 1, Level.BALLOON)
        qtbot.waitUntil(lambda: _heard(again, spy)[-1] == "Page two panel one balloon two.")
        assert "Test Book, 5 pages. Resuming at page 2 of 5." in _heard(again, spy)
        assert again.window.tree.currentItem().text() == "Page two panel one balloon two."
    finally:
        again.close()


def test_go_to_page_dialog_and_bad_input(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_G)
    dialog = reader.window.goto_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue("forty")
    dialog.accept()
    assert _heard(reader, spy)[-1] == "Type a page number, like 5."
    _key(qtbot, reader, Qt.Key.Key_G)
    reader.window.goto_dialog.setTextValue("4")  # type: ignore[union-attr]
    reader.window.goto_dialog.accept()  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "Page 4: 2 panels, 4 balloons.")


def test_describe_ask_help_zoom_contrast(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    _key(qtbot, reader, Qt.Key.Key_D)
    assert _heard(reader, spy)[-1] == "No description model is configured."
    _key(qtbot, reader, Qt.Key.Key_Q)
    reader.window.ask_dialog.setTextValue("how many panels")  # type: ignore[union-attr]
    reader.window.ask_dialog.accept()  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: _heard(reader, spy)[-1] == "2. From panels 1, 2.", timeout=5000)
    _key(qtbot, reader, Qt.Key.Key_F1)
    assert _heard(reader, spy)[-1].startswith("Right arrow or N: next balloon.")
    _key(qtbot, reader, Qt.Key.Key_Right)
    _key(qtbot, reader, Qt.Key.Key_F2)  # the drawn book's balloons have no known speaker
    assert _heard(reader, spy)[-1] == "No character is known to say this, so there is nobody to name."
    assert reader.window.rename_dialog is None
    _key(qtbot, reader, Qt.Key.Key_Z)
    assert reader.window.page_view.zoom and _heard(reader, spy)[-1] == "Zoom on."
    qtbot.waitUntil(lambda: reader.window.page_view.image is not None, timeout=5000)
    src = reader.window.page_view.source_rect()
    assert src.width() < reader.window.page_view.image.width()  # type: ignore[union-attr]
    _key(qtbot, reader, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    assert reader.window.page_view.theme is HIGH_CONTRAST
    _key(qtbot, reader, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert "font-size" in reader.window.styleSheet() and reader.controller.settings.large_text
    _key(qtbot, reader, Qt.Key.Key_Plus, Qt.KeyboardModifier.ShiftModifier)
    assert _heard(reader, spy)[-1] == "Speech rate 110 percent."


def test_large_text_widens_the_structure_pane(qtbot: QtBot, reader: Reader, tmp_path: Path) -> None:
    """With large text the structure pane grows with the font (it stayed as wide as before,
    a few words a line), and it never gets narrower than a line of words."""
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    tree = reader.window.tree
    qtbot.waitUntil(lambda: tree.width() > 0)
    normal = tree.width()
    reader.window.apply_appearance(replace(reader.controller.settings, large_text=True))
    qtbot.waitUntil(lambda: tree.width() > normal)
    assert tree.width() >= 1.4 * normal and tree.width() >= tree.minimumWidth()
    reader.window.apply_appearance(replace(reader.controller.settings, large_text=False))
    assert tree.minimumWidth() <= normal


def test_settings_dialog_and_drop_and_bad_file(
    qtbot: QtBot, reader: Reader, spy: SpyBackend, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.cbz"
    bad.write_text("not a comic")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(bad))])
    drop = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    reader.window.dropEvent(drop)
    assert _heard(reader, spy)[-1] == "This file is not a comic book Panelvox can open."
    mime.setUrls([QUrl.fromLocalFile(str(make_book(tmp_path / "Dropped.cbz")))])
    reader.window.dropEvent(
        QDropEvent(
            QPointF(10, 10),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
    )
    assert reader.controller.title == "Dropped"
    _key(qtbot, reader, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = reader.window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.sfx.setChecked(False)  # type: ignore[attr-defined]
    dialog.accept()  # type: ignore[attr-defined]
    assert _heard(reader, spy)[-1] == "Settings saved."
    assert "sfx" not in {k.value for k in reader.controller.prefs.kinds}


def test_theme_colours_meet_wcag_aa() -> None:
    for theme in (NORMAL, HIGH_CONTRAST):
        for fg, bg in theme.text_pairs():
            assert contrast_ratio(fg, bg) >= 4.5, (theme.name, fg, bg)
        assert contrast_ratio(theme.outline_dark, theme.outline_light) >= 3.0


@pytest.mark.slow
def test_real_pipeline_on_a_drawn_page(qtbot: QtBot, spy: SpyBackend) -> None:
    """The default pipeline (panels, OCR, balloons, order) in the worker, on sample-rtl page 1."""
    r = build_reader(backends=[spy], screen_reader=False, persist_settings=False)
    qtbot.addWidget(r.window)
    try:
        r.window.show()
        assert r.window.open_path(ASSETS / "sample-rtl.cbz")
        qtbot.waitUntil(lambda: r.controller.outline(0).ready, timeout=180_000)
        _key(qtbot, r, Qt.Key.Key_Right)
        heard = _heard(r, spy)[-1]
        assert "Good morning" in heard and "train" in heard
        assert r.window.tree.currentItem().text() == r.controller.position_text()
    finally:
        r.close()


def test_the_structure_is_a_flat_list_and_messages_a_status_bar_notification(
    qtbot: QtBot, reader: Reader, tmp_path: Path
) -> None:
    """No item can be opened or closed (no "expanded"); the announcer has the notification
    role Orca speaks, inside the status bar, where Orca says no role name."""
    _open(qtbot, reader, make_book(tmp_path / "Test Book.cbz"))
    tree = QAccessible.queryAccessibleInterface(reader.window.tree)
    assert tree is not None and tree.role() is QAccessible.Role.List
    for i in range(tree.childCount()):
        child = tree.child(i)
        assert child is not None
        state = child.state()
        assert not (state.expandable or state.expanded or state.collapsed)
    announcer = QAccessible.queryAccessibleInterface(reader.window.announcer)
    assert announcer is not None and announcer.role() is QAccessible.Role.Notification
    assert announcer.parent() is not None and announcer.parent().role() is QAccessible.Role.StatusBar
    reader.window.announcer.announce("Hello.")
    assert reader.window.announcer.label.text() == "Hello." and reader.window.announcer.isVisible()
