"""Settings, state and caches go to each platform's standard folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelvox import paths
from panelvox.paths import Kind, Platform, folder

HOME = Path("/home/ada")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (Kind.CONFIG, HOME / ".config/panelvox"),
        (Kind.STATE, HOME / ".local/state/panelvox"),
        (Kind.CACHE, HOME / ".cache/panelvox"),
        (Kind.DATA, HOME / ".local/share/panelvox"),
    ],
)
def test_linux_defaults_are_the_xdg_ones(kind: Kind, expected: Path) -> None:
    assert folder(kind, Platform("linux", {}, HOME)) == expected


def test_linux_honours_xdg_variables_but_not_relative_ones() -> None:
    env = {"XDG_STATE_HOME": "/var/tmp/s", "XDG_CACHE_HOME": "relative/cache"}
    p = Platform("linux", env, HOME)
    assert paths.state_dir(p) == Path("/var/tmp/s/panelvox")
    assert paths.cache_dir(p) == HOME / ".cache/panelvox"


def test_windows_roams_settings_and_keeps_state_and_cache_local() -> None:
    env = {"APPDATA": r"C:\Users\Ada\AppData\Roaming", "LOCALAPPDATA": r"C:\Users\Ada\AppData\Local"}
    p = Platform("win32", env, Path("C:/Users/Ada"))
    assert paths.config_dir(p) == Path(env["APPDATA"]) / "Panelvox"
    assert paths.data_dir(p) == Path(env["APPDATA"]) / "Panelvox"
    assert paths.state_dir(p) == Path(env["LOCALAPPDATA"]) / "Panelvox"
    assert paths.cache_dir(p) == Path(env["LOCALAPPDATA"]) / "Panelvox" / "Cache"


def test_macos_uses_the_library_folders() -> None:
    p = Platform("darwin", {"XDG_CONFIG_HOME": "/ignored"}, Path("/Users/ada"))
    assert paths.config_dir(p) == Path("/Users/ada/Library/Application Support/Panelvox")
    assert paths.cache_dir(p) == Path("/Users/ada/Library/Caches/Panelvox")
    assert paths.state_dir(p) == Path("/Users/ada/Library/Application Support/Panelvox/State")


def test_the_four_kinds_never_share_a_folder_on_any_platform() -> None:
    for system in ("linux", "win32", "darwin"):
        p = Platform(system, {}, HOME)
        got = {folder(k, p) for k in (Kind.STATE, Kind.CACHE, Kind.CONFIG)}
        assert len(got) == 3, system


def test_the_cli_logs_into_the_state_folder_once_per_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import logging

    from panelvox.cli import main

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    for _ in range(2):
        assert main(["info", str(tmp_path / "missing.cbz")]) == 1
    log = tmp_path / "panelvox" / "panelvox.log"
    assert log.is_file() and "missing.cbz" in log.read_text(encoding="utf-8")
    ours = [h for h in logging.getLogger().handlers if h.get_name() == "panelvox-cli"]
    assert len(ours) == 2  # one console, one log file: a second run replaced, not stacked


def test_sample_book_is_found_from_the_source_tree() -> None:
    book = paths.sample_book()
    assert book is not None and book.name == "sample.cbz" and book.is_file()
    assert paths.bundle_dir() is None  # not frozen under pytest
