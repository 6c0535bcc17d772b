"""Page analyses cached on disk, keyed by book content + page + code version.

The key includes a fingerprint of the analysis code itself (the source of the analysis and
models packages and the page model) and of the OCR package, so a new pipeline version never
serves stale results — calibre's rule. Entries are JSON (``PageAnalysis.to_json``), written
atomically; a damaged or foreign entry is ignored and recomputed, never fatal.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

from panelvox import __version__, paths
from panelvox.analysis.pipeline import Stage, analyze_page
from panelvox.errors import SchemaError
from panelvox.jsonfile import write_json_atomic
from panelvox.model import Image, PageAnalysis, ReadingDirection

log = logging.getLogger(__name__)

_PKG = Path(__file__).resolve().parent.parent  # app/panelvox
_CODE_DIRS = ("analysis", "models")
_RUNTIME_PACKAGES = ("rapidocr", "onnxruntime", "onnxruntime-gpu", "opencv-python-headless")


def default_cache_dir() -> Path:
    return paths.cache_dir() / "analysis"


def pipeline_fingerprint(stages: Sequence[Stage]) -> str:
    """A short hash of everything that decides what the stages output."""
    h = hashlib.sha256(__version__.encode())
    h.update(repr([type(s).__qualname__ for s in stages]).encode())
    files = [_PKG / "model.py"]
    for d in _CODE_DIRS:
        files.extend(sorted((_PKG / d).rglob("*")))
    for f in files:
        if f.is_file() and f.suffix in {".py", ".json", ".txt", ".onnx"}:
            h.update(f.relative_to(_PKG).as_posix().encode())
            h.update(f.read_bytes())
    for name in _RUNTIME_PACKAGES:
        try:
            h.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            continue
    return h.hexdigest()[:16]


class AnalysisCache:
    """A folder of page analyses for one pipeline fingerprint."""

    def __init__(self, root: Path, fingerprint: str) -> None:
        self.root = root
        self.fingerprint = fingerprint

    def _path(self, book_hash: str, page: int, direction: ReadingDirection) -> Path:
        return self.root / book_hash[:32] / self.fingerprint / f"{page:05d}-{direction.value}.json"

    def get(self, book_hash: str, page: int, direction: ReadingDirection) -> PageAnalysis | None:
        path = self._path(book_hash, page, direction)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return PageAnalysis.from_json(data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, SchemaError) as exc:
            log.warning("ignoring damaged cache entry %s: %s", path, exc)
            return None

    def put(self, book_hash: str, analysis: PageAnalysis) -> None:
        path = self._path(book_hash, analysis.page, analysis.direction)
        try:
            # A cache entry lost in a power cut is recomputed: no fsync on this hot path.
            write_json_atomic(path, analysis.to_json(), indent=None, durable=False)
        except OSError as exc:  # a full or read-only disk costs speed, never the page
            log.warning("could not cache page %d: %s", analysis.page, exc)


class PageAnalyzer:
    """Analyses pages through ``stages``, reusing cached results when the code is unchanged."""

    def __init__(self, stages: Sequence[Stage], cache: AnalysisCache | None) -> None:
        self.stages = tuple(stages)
        self.cache = cache

    @classmethod
    def with_default_cache(cls, stages: Sequence[Stage]) -> PageAnalyzer:
        return cls(stages, AnalysisCache(default_cache_dir(), pipeline_fingerprint(stages)))

    def analyze(
        self,
        book_hash: str,
        page: int,
        direction: ReadingDirection,
        load_image: Callable[[], Image],
    ) -> PageAnalysis:
        """The analysis of ``page`` (1-based); ``load_image`` runs only on a cache miss."""
        if self.cache is not None:
            hit = self.cache.get(book_hash, page, direction)
            if hit is not None:
                return hit
        analysis = analyze_page(load_image(), page=page, direction=direction, stages=self.stages)
        # A page whose stages failed is not cached: the failure may be transient.
        if self.cache is not None and not analysis.notices:
            self.cache.put(book_hash, analysis)
        return analysis
