"""Page analyses cached on disk, keyed by book content + page + code version.

The key includes a fingerprint of the stages' code and parameters (:func:`pipeline_fingerprint`)
and of the packages that run their models, so a new pipeline version never serves stale
results — calibre's rule. Entries are JSON (``PageAnalysis.to_json``), written
atomically; a damaged or foreign entry (any error reading it, a number too large, nesting
too deep, another page's analysis) is a miss: recomputed and written again, never fatal.
Only a regular file of at most :data:`MAX_ENTRY_BYTES` is read (never a FIFO or a device).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Protocol

from panelvox import __version__, paths
from panelvox.analysis.pipeline import Stage, analyze_page
from panelvox.errors import SchemaError
from panelvox.jsonfile import read_regular, write_json_atomic
from panelvox.model import Image, PageAnalysis, ReadingDirection
from panelvox.models.ocr_head import LATIN_UNDETERMINED, head_for, latin_lettered

log = logging.getLogger(__name__)

_PKG = Path(__file__).resolve().parent.parent  # app/panelvox
_RUNTIME_PACKAGES = ("rapidocr", "onnxruntime", "onnxruntime-gpu", "opencv-python-headless")
#: Largest cache entry read: a page of thousands of words is well under a megabyte.
MAX_ENTRY_BYTES = 16 * 1024 * 1024
#: What reading a damaged entry can raise, from the file system to the page model.
_DAMAGE: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    SchemaError,
    RecursionError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    OverflowError,
)


def default_cache_dir() -> Path:
    return paths.cache_dir() / "analysis"


def pipeline_fingerprint(stages: Sequence[Stage], ignore: Sequence[Path] = ()) -> str:
    """A short hash of everything that decides what the stages output.

    The stages' own code (the modules of the stage classes and of the objects they hold,
    with every Panelvox module those import, followed statically), the data files next to
    that code, the stages' parameters and the versions of the runtime packages that run the
    models. Code that only reads or shows the cached result (the names pass, the commands,
    the reader) is not in it, so changing it keeps every user's cache. ``ignore`` leaves out
    data files the caller knows these stages never read (a training script's own models).
    """
    ignored = {p.resolve() for p in ignore}
    h = hashlib.sha256(__version__.encode())
    h.update(repr([type(s).__qualname__ for s in stages]).encode())
    for stage in stages:
        h.update(repr(getattr(stage, "params", None)).encode())
    for path in _stage_sources(stages):
        if path.resolve() in ignored:
            continue
        h.update(path.relative_to(_PKG).as_posix().encode())
        h.update(path.read_bytes())
    for name in _RUNTIME_PACKAGES:
        try:
            h.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            continue
    return h.hexdigest()[:16]


def _stage_sources(stages: Sequence[Stage]) -> list[Path]:
    """The Panelvox files the stages' code comes from: modules and the data beside them."""
    roots = set()
    for stage in stages:
        roots.add(type(stage).__module__)
        roots.update(type(v).__module__ for v in vars(stage).values() if hasattr(v, "__dict__"))
    seen: set[Path] = set()
    todo = [p for p in (_module_file(m) for m in roots) if p is not None]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(p for p in map(_module_file, _panelvox_imports(path)) if p is not None and p not in seen)
    data = {f for d in {p.parent for p in seen} for f in (d / "data").rglob("*") if f.is_file()}
    return sorted(seen | data)


def _module_file(module: str | None) -> Path | None:
    if not module or module.split(".")[0] != "panelvox":
        return None
    base = _PKG.joinpath(*module.split(".")[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


#: an import statement at the start of a line: ``import a.b, c`` or ``from a.b import (x, y)``
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<module>[\w.]+)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n]*)"
    r"|import[ \t]+(?P<modules>[^\n]*))",
    re.MULTILINE,
)


def _panelvox_imports(path: Path) -> set[str]:
    """The modules ``path`` imports (absolute imports), and ``module.name`` for each name it
    imports from one (a submodule imported by name).

    Read from the text, not parsed: parsing every stage module cost a tenth of a second of
    each start. A line in a string that reads like an import is counted too, which can only
    add a file to the fingerprint (test_analysis_cache checks every module gives at least
    what ``ast`` finds).
    """
    out: set[str] = set()
    for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
        if match["module"] is not None:
            out.add(match["module"])
            out.update(f"{match['module']}.{n}" for n in _names(match["names"]))
        else:
            out.update(_names(match["modules"]))
    return out


def _names(text: str) -> list[str]:
    """``a, b as c, (d,)`` -> ``["a", "b", "d"]``, comments dropped."""
    text = re.sub(r"#[^\n]*", "", text).strip("() \t\n")
    return [part.split()[0] for part in text.split(",") if part.strip()]


class AnalysisCache:
    """A folder of page analyses for one pipeline fingerprint."""

    def __init__(self, root: Path, fingerprint: str) -> None:
        self.root = root
        self.fingerprint = fingerprint

    def _path(self, book_hash: str, page: int, direction: ReadingDirection, language: str | None) -> Path:
        # the recognition head is in the key: a page read with one is never served for the other
        name = f"{page:05d}-{direction.value}-{head_for(language)}.json"
        return self.root / book_hash[:32] / self.fingerprint / name

    def get(
        self, book_hash: str, page: int, direction: ReadingDirection, language: str | None = None
    ) -> PageAnalysis | None:
        path = self._path(book_hash, page, direction, language)
        try:
            analysis = PageAnalysis.from_json(json.loads(read_regular(path, MAX_ENTRY_BYTES).decode("utf-8")))
        except FileNotFoundError:
            return None
        except _DAMAGE as exc:
            log.warning("ignoring damaged cache entry %s: %r", path, exc)
            return None
        if (
            analysis.page != page
            or analysis.direction is not direction
            or head_for(analysis.language) != head_for(language)
        ):
            log.warning("ignoring cache entry %s: it holds page %d", path, analysis.page)
            return None
        return analysis

    def put(self, book_hash: str, analysis: PageAnalysis) -> None:
        path = self._path(book_hash, analysis.page, analysis.direction, analysis.language)
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
        language: str | None = None,
    ) -> PageAnalysis:
        """The analysis of ``page`` (1-based) of a book in ``language`` (ISO 639-1, None when
        unknown); ``load_image`` runs only on a cache miss."""
        if self.cache is not None:
            hit = self.cache.get(book_hash, page, direction, language)
            if hit is not None:
                return hit
        analysis = analyze_page(
            load_image(), page=page, direction=direction, stages=self.stages, language=language
        )
        # A page whose stages failed is not cached: the failure may be transient.
        if self.cache is not None and not analysis.notices:
            self.cache.put(book_hash, analysis)
        return analysis

    def analyze_page(self, book: PageImages, page: int, direction: ReadingDirection) -> PageAnalysis:
        """The analysis of ``book``'s page ``page`` (1-based): what the page service asks for
        (the reader's worker, the commands, the exports and the eval all come here), in the
        book's language. A book that names none is read with the full recognition model
        until a page of it shows Latin lettering, then as Latin-script ("und-Latn") for the
        rest of this process: the Latin head is faster and reads no other script."""
        language = book.language or _LEARNED.get(book.content_hash)
        analysis = self.analyze(
            book.content_hash,
            page,
            direction,
            functools.partial(book.load_page_array, page - 1),
            language,
        )
        if language is None and latin_lettered([b.text for b in analysis.blocks]):
            _LEARNED[book.content_hash] = LATIN_UNDETERMINED
        return analysis


#: books (by content hash) that name no language and showed Latin lettering in this process;
#: shared by every analyzer of the process (the reader's and T's, an export's)
_LEARNED: dict[str, str] = {}


class PageImages(Protocol):
    """What analysing a book's pages needs of the book (:class:`panelvox.books.Book` has it)."""

    @property
    def path(self) -> Path: ...  # where it is: a worker process opens it again

    @property
    def content_hash(self) -> str: ...

    @property
    def language(self) -> str | None: ...  # ISO 639-1 ("en"), None when unknown

    def load_page_array(self, index: int) -> Image: ...
