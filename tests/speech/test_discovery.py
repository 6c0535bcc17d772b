"""Backends are discovered by module name and chained with silence last."""

from __future__ import annotations

import pytest

from panelvox.errors import BackendUnavailable
from panelvox.speech.backend import SpeechBackend
from panelvox.speech.discovery import build_chain, default_order, discover_backends, list_backends


def test_every_backend_module_is_found() -> None:
    found = discover_backends()
    assert {"silence", "spy", "pyttsx3", "piper", "screenreader", "file"} <= set(found)
    assert all(issubclass(cls, SpeechBackend) for cls in found.values())
    infos = {i.name: i for i in list_backends()}
    assert infos["silence"].check.available


def test_chain_ends_in_silence_and_skips_unavailable() -> None:
    chain = build_chain(order=("spy", "nonexistent", "silence"), factory=lambda cls: cls())
    # spy is for tests only: never chosen unless asked for by name.
    assert [b.name for b in chain] == ["silence"]
    chain = build_chain("spy", order=("silence",))
    assert [b.name for b in chain] == ["spy", "silence"]


def test_unknown_backend_is_a_plain_error() -> None:
    with pytest.raises(BackendUnavailable, match="no speech output called"):
        build_chain("nonesuch")


def test_screen_reader_comes_first_when_running() -> None:
    assert default_order(lambda: True)[0] == "screenreader"
    order = default_order(lambda: False)
    assert order[-1] == "silence" and order[0] != "screenreader"
