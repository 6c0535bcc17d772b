"""The page picture with the current panel or balloon outlined, or zoomed to fill the view."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from panelvox.i18n import _
from panelvox.model import BBox
from panelvox.ui.theme import NORMAL, Theme

_ZOOM_MARGIN = 0.08  # of the region's size, so the zoomed panel keeps some context


class PageView(QWidget):
    """Paints one page image; not focusable (the structure tree holds the keyboard focus)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(200, 200)
        # Translators: accessible name of the page picture.
        self.setAccessibleName(_("Page picture"))
        self.image: QImage | None = None
        self.page_size: tuple[int, int] = (0, 0)  # analysis coordinates (width, height)
        self.region: BBox | None = None
        self.zoom = False
        self.theme: Theme = NORMAL
        self.placeholder = ""

    def set_image(self, image: QImage | None, placeholder: str = "") -> None:
        self.image = image
        self.placeholder = placeholder
        self.setAccessibleDescription(placeholder)
        self.update()

    def set_region(self, region: BBox | None, page_size: tuple[int, int]) -> None:
        self.region = region
        self.page_size = page_size
        self.update()

    def set_zoom(self, on: bool) -> None:
        self.zoom = on
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def _scale(self) -> tuple[float, float]:
        """Image pixels per analysis pixel (the same unless the page was rescaled)."""
        if self.image is None:
            return 1.0, 1.0
        w, h = self.page_size
        return (self.image.width() / w if w else 1.0, self.image.height() / h if h else 1.0)

    def source_rect(self) -> QRectF:
        """The part of the image shown: the whole page, or the zoomed region."""
        assert self.image is not None
        full = QRectF(0, 0, self.image.width(), self.image.height())
        if not self.zoom or self.region is None:
            return full
        sx, sy = self._scale()
        r = self.region
        mx, my = r.width * _ZOOM_MARGIN, r.height * _ZOOM_MARGIN
        rect = QRectF((r.x0 - mx) * sx, (r.y0 - my) * sy, (r.width + 2 * mx) * sx, (r.height + 2 * my) * sy)
        return rect.intersected(full) if rect.intersects(full) else full

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(self.theme.page_bg))
        if self.image is None:
            painter.setPen(QColor(self.theme.outline_light))
            painter.drawText(
                self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.placeholder
            )
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        src = self.source_rect()
        scale = min(self.width() / src.width(), self.height() / src.height())
        w, h = src.width() * scale, src.height() * scale
        target = QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)
        painter.drawImage(target, self.image, src)
        if self.region is not None:
            sx, sy = self._scale()
            r = self.region
            x0 = target.x() + (r.x0 * sx - src.x()) * scale
            y0 = target.y() + (r.y0 * sy - src.y()) * scale
            box = QRectF(x0, y0, r.width * sx * scale, r.height * sy * scale)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(QColor(self.theme.outline_light), 7))
            painter.drawRect(box)
            painter.setPen(QPen(QColor(self.theme.outline_dark), 3))
            painter.drawRect(box)
        painter.end()
