"""Draw the PNG icon from the SVG (run by scripts/build; no PNG is kept in git).

python packaging/render_icon.py packaging/icons/panelvox.svg OUT.png 256
"""

from __future__ import annotations

import sys
from pathlib import Path


def render(svg: Path, png: Path, size: int) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"not a valid SVG: {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    png.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(png), "PNG"):
        raise SystemExit(f"cannot write {png}")
    del app


if __name__ == "__main__":
    render(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 256)
