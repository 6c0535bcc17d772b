from __future__ import annotations

from pathlib import Path

import pytest

from panelvox.jsonfile import read_json_object, update_json_section, write_json_atomic


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "store.json"
    write_json_atomic(target, {"page": 5})
    with pytest.raises(TypeError):
        write_json_atomic(target, {"page": object()})  # not serialisable: fails mid-write
    assert read_json_object(target) == {"page": 5}
    assert [p.name for p in tmp_path.iterdir()] == ["store.json"]


def test_damaged_missing_or_non_object_files_read_as_empty(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{half", encoding="utf-8")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    assert read_json_object(damaged) == {}
    assert read_json_object(listed) == {}
    assert read_json_object(tmp_path / "missing.json") == {}


def test_update_section_keeps_the_other_sections(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "settings.json"
    update_json_section(target, "narration", {"rate": 1.2})
    update_json_section(target, "reader", {"zoom": True})
    update_json_section(target, "narration", {"rate": 1.5})
    assert read_json_object(target) == {"narration": {"rate": 1.5}, "reader": {"zoom": True}}
