from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from panelvox.analysis import cache
from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint
from panelvox.errors import AnalysisError
from panelvox.model import BBox, Image, PageAnalysis, Panel, ReadingDirection

LTR = ReadingDirection.LTR


@dataclass
class CountingStage:
    name: str = "panels"
    calls: int = 0
    fail: bool = False

    def __call__(self, image: Image, analysis: PageAnalysis) -> PageAnalysis:
        self.calls += 1
        if self.fail:
            raise AnalysisError("Part of this page could not be analysed.", detail="test")
        panel = Panel("p1", BBox(0, 0, 10, 10), 0.9, "panels:test", order=1)
        return replace(analysis, panels=(panel,), stages=(*analysis.stages, "panels:test"))


def _image() -> Image:
    return np.zeros((20, 30, 3), dtype=np.uint8)


def test_second_analysis_comes_from_the_cache(tmp_path: Path) -> None:
    stage = CountingStage()
    analyzer = PageAnalyzer([stage], AnalysisCache(tmp_path, "v1"))
    loads: list[int] = []

    def load() -> Image:
        loads.append(1)
        return _image()

    first = analyzer.analyze("bookhash", 1, LTR, load)
    second = analyzer.analyze("bookhash", 1, LTR, load)
    assert first == second
    assert first.panels[0].id == "p1"
    assert stage.calls == 1
    assert len(loads) == 1  # a hit never decodes the page


def test_other_code_version_direction_or_book_misses(tmp_path: Path) -> None:
    stage = CountingStage()
    PageAnalyzer([stage], AnalysisCache(tmp_path, "v1")).analyze("book", 1, LTR, _image)
    PageAnalyzer([stage], AnalysisCache(tmp_path, "v2")).analyze("book", 1, LTR, _image)
    PageAnalyzer([stage], AnalysisCache(tmp_path, "v2")).analyze("book", 1, ReadingDirection.RTL, _image)
    PageAnalyzer([stage], AnalysisCache(tmp_path, "v2")).analyze("other", 1, LTR, _image)
    assert stage.calls == 4


def test_damaged_entry_is_recomputed(tmp_path: Path) -> None:
    stage = CountingStage()
    cache = AnalysisCache(tmp_path, "v1")
    PageAnalyzer([stage], cache).analyze("book", 2, LTR, _image)
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text("{not json", encoding="utf-8")
    again = PageAnalyzer([stage], cache).analyze("book", 2, LTR, _image)
    assert stage.calls == 2
    assert again.panels


def test_failed_stage_result_is_not_cached(tmp_path: Path) -> None:
    stage = CountingStage(fail=True)
    analyzer = PageAnalyzer([stage], AnalysisCache(tmp_path, "v1"))
    assert analyzer.analyze("book", 1, LTR, _image).notices
    assert analyzer.analyze("book", 1, LTR, _image).notices
    assert stage.calls == 2


def test_unwritable_cache_costs_speed_not_the_page(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    analyzer = PageAnalyzer([CountingStage()], AnalysisCache(blocker / "cache", "v1"))
    assert analyzer.analyze("book", 1, LTR, _image).panels


def test_fingerprint_depends_on_the_stages() -> None:
    @dataclass
    class OtherStage(CountingStage):
        pass

    assert pipeline_fingerprint([CountingStage()]) == pipeline_fingerprint([CountingStage()])
    assert pipeline_fingerprint([CountingStage()]) != pipeline_fingerprint([OtherStage()])


def _damage_cases(good: str) -> dict[str, str]:
    import json

    data = json.loads(good)
    return {
        "page 1e999": good.replace('"page": 2', '"page": 1e999'),
        "deep nesting": "[" * 100_000 + "]" * 100_000,
        "a list": "[1, 2]",
        "another page": json.dumps(dict(data, page=7)),
        "panels of the wrong type": json.dumps(dict(data, panels={"a": 1})),
        "a panel without a box": json.dumps(dict(data, panels=[{"id": "p1"}])),
        "not utf-8": "\udcff",
        "empty": "",
        "nulls": json.dumps({k: None for k in data}),
    }


def test_any_damaged_entry_is_a_miss_and_is_written_again(tmp_path: Path) -> None:
    """Each of these once failed every run until the file was deleted (issue 20)."""
    stage = CountingStage()
    cache = AnalysisCache(tmp_path, "v1")
    PageAnalyzer([stage], cache).analyze("book", 2, LTR, _image)
    (entry,) = tmp_path.rglob("*.json")
    good = entry.read_text(encoding="utf-8")
    assert '"page": 2' in good
    for name, text in _damage_cases(good).items():
        entry.write_bytes(text.encode("utf-8", "surrogateescape"))
        calls = stage.calls
        again = PageAnalyzer([stage], cache).analyze("book", 2, LTR, _image)
        assert stage.calls == calls + 1, name
        assert again.page == 2 and again.panels, name
        assert PageAnalysis.from_json(__import__("json").loads(entry.read_text())) == again, name


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    """A FIFO would block the reader forever; /dev/zero would eat memory. Both are misses
    (and replaced by the real entry)."""
    import os

    stage = CountingStage()
    cache = AnalysisCache(tmp_path, "v1")
    PageAnalyzer([stage], cache).analyze("book", 1, LTR, _image)
    (entry,) = tmp_path.rglob("*.json")
    entry.unlink()
    os.mkfifo(entry)
    assert cache.get("book", 1, LTR) is None
    PageAnalyzer([stage], cache).analyze("book", 1, LTR, _image)
    assert entry.is_file() and cache.get("book", 1, LTR) is not None
    entry.unlink()
    entry.symlink_to("/dev/zero")
    assert cache.get("book", 1, LTR) is None


def test_an_oversized_entry_is_not_read(tmp_path: Path) -> None:
    from panelvox.analysis import cache as cache_module

    stage = CountingStage()
    cache = AnalysisCache(tmp_path, "v1")
    PageAnalyzer([stage], cache).analyze("book", 1, LTR, _image)
    (entry,) = tmp_path.rglob("*.json")
    with entry.open("r+b") as fh:
        fh.truncate(cache_module.MAX_ENTRY_BYTES + 1)
    assert cache.get("book", 1, LTR) is None


def _parsed_imports(path: Path) -> set[str]:
    """What a parser says ``path`` imports (the absolute imports, and ``module.name``)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_import_scan_finds_every_import_a_parser_finds() -> None:
    """The fingerprint follows imports by reading the text: it must never miss one (a stage
    module left out of it would serve stale analyses after that module changed)."""
    package = Path(cache.__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        assert _parsed_imports(path) <= cache._panelvox_imports(path), path


def test_the_import_scan_reads_every_form(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import panelvox.a, panelvox.b as bee  # two\n"
        "from panelvox.c import (\n    d,  # why\n    e as f,\n)\n"
        "if True:\n    from panelvox.g import h\n"
        "from .relative import x\n",
        encoding="utf-8",
    )
    found = {m for m in cache._panelvox_imports(source) if m.startswith("panelvox")}
    assert found == {"panelvox.a", "panelvox.b", "panelvox.c", "panelvox.c.d", "panelvox.c.e"} | {
        "panelvox.g",
        "panelvox.g.h",
    }
