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


def test_one_sentence_about_saving_and_the_log_only_alone(tmp_path: Path) -> None:
    """What the user keeps is named before the log; one such sentence a session (issue 32)."""
    from panelvox.jsonfile import note_unsaved, take_notices

    note_unsaved("the log", OSError("full"), minor=True)
    note_unsaved("the analysed pages", OSError("full"))
    assert take_notices() == ["Could not save the analysed pages; the disk may be full or read-only."]
    note_unsaved("the reading position", OSError("full"))
    assert take_notices() == []


def test_the_log_alone_is_said(tmp_path: Path) -> None:
    from panelvox.jsonfile import note_unsaved, take_notices

    note_unsaved("the log", OSError("read-only"), minor=True)
    assert take_notices() == ["Could not save the log; the disk may be full or read-only."]
    note_unsaved("the reading position", OSError("full"))  # a second sentence would be noise
    assert take_notices() == []
