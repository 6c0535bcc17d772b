"""The reader window: page picture, structure tree, status line, menus, keys.

A thin view: every command goes to the :class:`ReaderController`; this class only binds
keys, runs dialogs, shows pictures and keeps the tree's focus on the reader's position.
"""

from __future__ import annotations

import logging
import sys
from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt, QTimer
from PySide6.QtGui import (
    QAccessible,
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QLabel,
    QListWidgetItem,
    QMainWindow,
    QSplitter,
    QWidget,
)

from panelvox.i18n import _
from panelvox.reader.commands import Command, key_table
from panelvox.reader.describe_jobs import DescribeResult, DescribeWorker
from panelvox.reader.page_outline import PageOutline
from panelvox.reader.position import Level, Position, page_number
from panelvox.reader.reader_controller import ReaderController, ReaderListener
from panelvox.reader.reader_settings import ReaderSettings
from panelvox.ui.announcer import Announcer, install_notification_role
from panelvox.ui.job_thread import JobThread, PageImage, Work
from panelvox.ui.page_view import PageView
from panelvox.ui.structure_view import StructureView
from panelvox.ui.theme import point_size, stylesheet, theme_for

log = logging.getLogger(__name__)

_IMAGE_CACHE = 3
#: Commands the window runs itself (they open dialogs or end the program).
_VIEW_COMMANDS = frozenset(
    {
        Command.GO_TO_PAGE,
        Command.OPEN,
        Command.EXPORT,
        Command.SETTINGS,
        Command.QUIT,
        Command.ASK,
        Command.RENAME,
    }
)
#: Commands whose work runs on the describe thread (started on first use: most readers never add a model).
_DESCRIBE_COMMANDS = frozenset({Command.DESCRIBE, Command.ASK})
#: the structure pane's least width, in average characters of the window's text
_STRUCTURE_CHARS = 30
BOOK_FILTER = "*.cbz *.cbr *.cb7 *.cbt *.zip *.rar *.7z *.tar *.pdf"
#: where messages go to the screen reader through AT-SPI (Orca); elsewhere accessible-output2
#: already hands them to NVDA, JAWS or VoiceOver itself
_ANNOUNCES_BY_ATSPI = sys.platform.startswith("linux")


class _Listener(ReaderListener):
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def book_changed(self) -> None:
        self.window.on_book_changed()

    def outline_changed(self, outline: PageOutline) -> None:
        self.window.on_outline(outline)

    def position_changed(self, position: Position, *, focus: bool) -> None:
        self.window.on_position(position, focus=focus)

    def status_changed(self, text: str) -> None:
        self.window.status.setText(text)
        self.window.status.setAccessibleName(text)

    def appearance_changed(self, settings: ReaderSettings) -> None:
        self.window.apply_appearance(settings)

    def announce(self, text: str) -> bool:
        return self.window.announce(text)

    def present(self, position: Position, text: str) -> bool:
        return self.window.present(position, text)


class MainWindow(QMainWindow):
    def __init__(self, controller: ReaderController, *, request_image: object = None) -> None:
        super().__init__()
        self._unsaid: list[str] = []  # messages waiting for the window to be active
        self.controller = controller
        self.keys = key_table()
        self._request_image = request_image  # callable(page) set by the app
        self._images: OrderedDict[tuple[int, int], PageImage] = OrderedDict()
        self._base_point_size = QApplication.font().pointSizeF() or 10.0
        # Translators: the window title when no book is open.
        self.setWindowTitle(_("Panelvox"))
        self.setAcceptDrops(True)
        self.page_view = PageView()
        self.tree = StructureView()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.page_view)
        splitter.addWidget(self.tree)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        self.setCentralWidget(splitter)
        self.status = QLabel()
        # Translators: accessible description of the status line.
        self.status.setAccessibleDescription(_("Reading position and analysis progress"))
        self.statusBar().addWidget(self.status, 1)
        install_notification_role()
        #: messages for the screen reader (where am I, the keys, errors), shown in the status bar
        self.announcer = Announcer()
        self.statusBar().addPermanentWidget(self.announcer)
        self.goto_dialog: QInputDialog | None = None
        self.ask_dialog: QInputDialog | None = None
        self.rename_dialog: QInputDialog | None = None
        self.describe_thread: JobThread | None = None
        self._describe_worker: DescribeWorker | None = None
        self.open_dialog: QFileDialog | None = None
        self.settings_dialog: QWidget | None = None
        self.export_dialog: QWidget | None = None
        self._build_menus()
        self.tree.installEventFilter(self)
        self.tree.currentItemChanged.connect(self._tree_moved)
        self.setFocusProxy(self.tree)
        controller.listener = _Listener(self)
        self.apply_appearance(controller.settings)
        self.resize(1100, 800)

    # -- menus -------------------------------------------------------------------------
    def _build_menus(self) -> None:
        # Translators: the File menu.
        file_menu = self.menuBar().addMenu(_("&File"))
        # Translators: File menu item.
        self._action(file_menu, _("&Open book…"), Command.OPEN, "Ctrl+O")
        # Translators: File submenu of recently opened books.
        self.recent_menu = file_menu.addMenu(_("&Recent books"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        # Translators: File menu item.
        self.export_action = self._action(file_menu, _("&Export this book…"), Command.EXPORT, "Ctrl+E")
        # Translators: File menu item.
        self._action(file_menu, _("&Settings…"), Command.SETTINGS, "Ctrl+,")
        # Translators: File menu item.
        self._action(file_menu, _("&Quit"), Command.QUIT, "Ctrl+Q")
        # Translators: the Help menu.
        help_menu = self.menuBar().addMenu(_("&Help"))
        # Translators: Help menu item that speaks the keys.
        self._action(help_menu, _("&Keys"), Command.HELP, "F1")

    def _action(self, menu: object, text: str, command: Command, shortcut: str) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)  # keys go through eventFilter
        action.triggered.connect(lambda: self.run_command(command))
        menu.addAction(action)  # type: ignore[attr-defined]
        return action

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.controller.store.recent()
        if not recent:
            # Translators: shown in the empty recent books menu.
            self.recent_menu.addAction(_("No recent books")).setEnabled(False)
        for entry in recent:
            action = self.recent_menu.addAction(entry.title or Path(entry.path).name)
            action.setToolTip(entry.path)
            action.triggered.connect(lambda _checked=False, p=entry.path: self.open_path(Path(p)))

    # -- keys --------------------------------------------------------------------------
    def command_for(self, event: QKeyEvent) -> Command | None:
        key = event.key()
        if key == Qt.Key.Key_Control:
            return Command.STOP
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        names = [QKeySequence(QKeyCombination(mods, Qt.Key(key))).toString()]
        if mods & Qt.KeyboardModifier.ShiftModifier and not Qt.Key.Key_A <= key <= Qt.Key.Key_Z:
            # "+" is Shift+= on many layouts: look it up without the Shift too.
            names.append(
                QKeySequence(
                    QKeyCombination(mods & ~Qt.KeyboardModifier.ShiftModifier, Qt.Key(key))
                ).toString()
            )
        return next((self.keys[n] for n in names if n in self.keys), None)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self.handle_key(event)
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.handle_key(event):
            super().keyPressEvent(event)

    def handle_key(self, event: QKeyEvent) -> bool:
        """Run the key's command; any other key only interrupts speech. True when consumed."""
        command = self.command_for(event)
        if command is None:
            if event.key() not in (Qt.Key.Key_Shift, Qt.Key.Key_Alt, Qt.Key.Key_Meta):
                self.controller.interrupt()
            return event.key() not in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_F10, Qt.Key.Key_Alt)
        self.run_command(command)
        return True

    def run_command(self, command: Command) -> None:
        try:
            if command in _DESCRIBE_COMMANDS:
                self.start_describe_thread()
            if command in _VIEW_COMMANDS:
                self.controller.interrupt()
                {
                    Command.GO_TO_PAGE: self.ask_page,
                    Command.OPEN: self.ask_open,
                    Command.EXPORT: self.ask_export,
                    Command.SETTINGS: self.show_settings,
                    Command.QUIT: self.close,
                    Command.ASK: self.ask_question,
                    Command.RENAME: self.ask_rename,
                }[command]()
            else:
                self.controller.run(command)
        except Exception:  # a bug in one command must not end reading; say so, log the detail
            log.exception("command %s failed", command.value)
            # Translators: said when a command fails unexpectedly; details go to the log.
            self.controller.say_message(_("That did not work. The details are in the log file."))

    # -- dialogs -----------------------------------------------------------------------
    def ask_page(self) -> None:
        if self.controller.book is None:
            self.controller.run(Command.NEXT_PAGE)  # says that no book is open
            return
        dialog = QInputDialog(self)
        # Translators: title of the go-to-page dialog.
        dialog.setWindowTitle(_("Go to page"))
        # Translators: label of the go-to-page box; {count} is the number of pages.
        dialog.setLabelText(_("Page number, 1 to {count}:").format(count=self.controller.page_count))
        dialog.setTextValue(str(self.controller.position.number))
        dialog.textValueSelected.connect(self.controller.go_to_page_text)
        dialog.finished.connect(lambda _r: self.tree.setFocus())
        self.goto_dialog = dialog
        dialog.open()

    def ask_question(self) -> None:
        """Q: a question box; the answer is spoken when the worker has it."""
        if self.controller.book is None:
            self.controller.run(Command.NEXT_PAGE)  # says that no book is open
            return
        dialog = QInputDialog(self)
        # Translators: title of the ask-about-this-page dialog.
        dialog.setWindowTitle(_("Ask about this page"))
        # Translators: label of the question box; {n} is the current page number.
        dialog.setLabelText(
            _("Your question about page {n}, like: who says hello?").format(n=self.controller.position.number)
        )
        dialog.textValueSelected.connect(self.controller.ask)
        dialog.finished.connect(lambda _r: self.tree.setFocus())
        self.ask_dialog = dialog
        dialog.open()

    def ask_rename(self) -> None:
        """F2: a name box for the speaker of the current balloon; the name sticks for the book."""
        target = self.controller.rename_target()  # says why when there is nobody to name
        if target is None:
            return
        dialog = QInputDialog(self)
        # Translators: title of the dialog that names a character.
        dialog.setWindowTitle(_("Name this speaker"))
        # Translators: label of the name box; {name} is what the reader calls the character now.
        dialog.setLabelText(
            _("New name for {name}, for the whole book (empty: forget yours):").format(name=target.name)
        )
        dialog.setTextValue(target.character.name or "")
        dialog.textValueSelected.connect(lambda text: self.controller.rename_speaker(target, text))
        dialog.finished.connect(lambda _r: self.tree.setFocus())
        self.rename_dialog = dialog
        dialog.open()

    def ask_open(self) -> None:
        # Translators: title of the open-book dialog.
        dialog = QFileDialog(self, _("Open a comic book"))
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)  # Qt's own dialog is keyboard-complete
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        # Translators: file type filter of the open dialog.
        dialog.setNameFilters(
            [_("Comic books ({patterns})").format(patterns=BOOK_FILTER), _("All files (*)")]
        )
        dialog.fileSelected.connect(lambda p: self.open_path(Path(p)))
        self.open_dialog = dialog
        dialog.open()

    def ask_export(self) -> None:
        book = self.controller.book
        if book is None:
            self.controller.run(Command.NEXT_PAGE)  # says that no book is open
            return
        from panelvox.ui.export_dialog import ExportDialog

        dialog = ExportDialog(book.path, self.controller.say_message, self)
        dialog.finished.connect(lambda _r: self.tree.setFocus())
        self.export_dialog = dialog
        dialog.open()

    def show_settings(self) -> None:
        from panelvox.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.controller, self)
        dialog.finished.connect(lambda _r: self.tree.setFocus())
        self.settings_dialog = dialog
        dialog.open()

    def open_path(self, path: Path) -> bool:
        return self.controller.open(path)

    # -- the describe worker -------------------------------------------------------------
    def start_describe_thread(self) -> None:
        """Start the describe/ask worker once; it loads the model itself, on first need."""
        if self.describe_thread is not None:
            return
        worker = self.controller.describe_worker()

        def make_work() -> Work:
            return worker

        thread = JobThread(self.controller.describe_jobs, make_work, self)
        thread.done.connect(self._on_describe_result, Qt.ConnectionType.QueuedConnection)
        self._describe_worker, self.describe_thread = worker, thread
        thread.start()

    def _on_describe_result(self, result: object) -> None:
        if isinstance(result, DescribeResult):
            self.controller.on_describe_result(result)

    def stop_describe_thread(self) -> None:
        if self.describe_thread is None:
            return
        self.describe_thread.stop()  # waits for a description in progress to end
        if self.describe_thread.isFinished() and self._describe_worker is not None:
            self._describe_worker.close()
        self.describe_thread = None

    # -- drag and drop -----------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.open_path(Path(urls[0].toLocalFile()))

    # -- controller events ---------------------------------------------------------------
    def on_book_changed(self) -> None:
        self._images.clear()
        title = self.controller.title
        # Translators: the window title with a book open; {title} is the book's.
        self.setWindowTitle(_("{title} — Panelvox").format(title=title) if title else _("Panelvox"))

    def on_outline(self, outline: PageOutline) -> None:
        c = self.controller
        positions = [Position(outline.index)]
        for group in outline.panels:
            positions.append(Position(outline.index, group.first, Level.PANEL))
            positions.extend(
                Position(outline.index, i, Level.BALLOON) for i in range(group.first, group.last + 1)
            )
        # shown: the lettering itself; the accessible name: what the screen reader says
        texts = {pos: (c.position_shown(pos), c.position_text(pos)) for pos in positions}
        self.tree.show_outline(outline, texts)
        self._show_image(outline.index)

    def announce(self, text: str) -> bool:
        """Have the screen reader say ``text``; False where it cannot (then Panelvox speaks it)."""
        if not _ANNOUNCES_BY_ATSPI:
            return False
        if not self.isActiveWindow():
            # A screen reader takes a new window in when it is activated, and Qt's AT-SPI
            # bridge starts only then: the greeting waits for that, not for nobody; so does a
            # message while a dialog or another program is in front.
            self._unsaid.append(text)
            return True
        if not QAccessible.isActive():
            return False
        self.announcer.announce(text)
        return True

    def present(self, position: Position, text: str) -> bool:
        """Say all's stop through the screen reader: the focus goes to its item, which the
        screen reader says (queued after what it is saying); the item focused already, where
        say all starts, is announced. False where no screen reader listens to this window."""
        if not _ANNOUNCES_BY_ATSPI or not self.isActiveWindow() or not QAccessible.isActive():
            return False
        if self.tree.hasFocus() and self.tree.position_of(self.tree.currentItem()) == position:
            return self.announce(text)
        self.on_position(position, focus=True)
        self.tree.setFocus()
        return True

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow() and self._unsaid:
            text = " ".join(self._unsaid)
            self._unsaid.clear()
            # after the screen reader has read the window and its focus, not in the middle
            QTimer.singleShot(0, lambda: self._say_unsaid(text))

    def _say_unsaid(self, text: str) -> None:
        if not self.announce(text):  # no AT-SPI after all: Panelvox's own voice says it
            self.controller.say_message(text)

    def on_position(self, position: Position, *, focus: bool) -> None:
        outline = self.tree.outline
        if outline is None or outline.index != position.page:
            outline = self.controller.outline(position.page)
            self.on_outline(outline)
        if focus or not self.controller.moves_by_focus:
            self.tree.select(position)
        region = None
        if 0 <= position.step < len(outline.steps):  # a resumed position waits for its page's analysis
            if position.level is Level.PANEL:
                region = outline.panels[outline.group_of(position.step)].bbox
            elif position.level is Level.BALLOON:
                region = outline.steps[position.step].bbox
        self.page_view.set_region(region, (outline.width, outline.height))

    def _tree_moved(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        pos = self.tree.position_of(current)
        if pos is not None:
            self.controller.go_to(pos)

    # -- pictures ----------------------------------------------------------------------
    def _show_image(self, page: int) -> None:
        key = (self.controller_token(), page)
        cached = self._images.get(key)
        if cached is not None:
            self._images.move_to_end(key)
            self.page_view.set_image(cached.image, cached.error or "")
            return
        # Translators: shown in place of the page picture while it loads.
        self.page_view.set_image(None, _("Loading page {n}…").format(n=page_number(page)))
        if callable(self._request_image):
            self._request_image(page)

    def controller_token(self) -> int:
        return id(self.controller.book)

    def on_image(self, result: PageImage) -> None:
        """A page picture arrived from the image thread."""
        key = (result.token, result.page)
        self._images[key] = result
        while len(self._images) > _IMAGE_CACHE:
            self._images.popitem(last=False)
        if result.token == self.controller_token() and result.page == self.controller.position.page:
            self.page_view.set_image(result.image, result.error or "")

    # -- appearance --------------------------------------------------------------------
    def apply_appearance(self, settings: ReaderSettings) -> None:
        theme = theme_for(settings.high_contrast)
        self.setStyleSheet(
            stylesheet(theme, large_text=settings.large_text, base_point_size=self._base_point_size)
        )
        self.page_view.set_theme(theme)
        self.page_view.set_zoom(settings.zoom)
        # The structure pane keeps room for a line of words at the text's size: with large
        # text it grows with the font instead of wrapping every balloon to a few words.
        font = QFont(self.tree.font())
        font.setPointSizeF(point_size(large_text=settings.large_text, base_point_size=self._base_point_size))
        self.tree.setMinimumWidth(QFontMetrics(font).averageCharWidth() * _STRUCTURE_CHARS)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.controller.interrupt()
        self.stop_describe_thread()
        super().closeEvent(event)
