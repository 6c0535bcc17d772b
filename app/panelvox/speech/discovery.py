"""Find speech backends by convention and choose one with a fallback chain.

Every module ``panelvox/speech/backends/*_backend.py`` is scanned for :class:`SpeechBackend`
subclasses defined in it (NVDA's synthDrivers style): adding a backend is adding a file.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Callable, Sequence

from panelvox.errors import BackendUnavailable
from panelvox.i18n import _
from panelvox.speech.backend import BackendInfo, CheckResult, PcmBackend, SpeechBackend
from panelvox.speech.language_voices import LanguageVoices, MissingCallback

log = logging.getLogger(__name__)

#: Backends for tests or export only: never chosen to read aloud unless asked for by name.
NOT_FOR_READING = frozenset({"spy", "file"})
#: Reading-aloud preference when no screen reader is running. The screen reader comes
#: first when one is running (:func:`default_order`); ``silence`` always ends the chain.
FALLBACK_ORDER: tuple[str, ...] = ("piper", "pyttsx3", "screenreader", "silence")
#: Voices of one language for lettering in it, best first: never the main voice (Kokoro
#: would read "Panel 2" as Japanese), only the voice of the words of their language. Files
#: get the natural voice; reading aloud the one that starts in time (docs/benchmarks.md,
#: "Japanese voices": Open JTalk's first audio about 0.2 s, Kokoro's 4 to 5 s on a busy 2-core CPU).
LANGUAGE_VOICE_ORDER: tuple[str, ...] = ("kokoro-ja", "openjtalk")
LIVE_LANGUAGE_VOICE_ORDER: tuple[str, ...] = ("openjtalk", "kokoro-ja")


def discover_backends() -> dict[str, type[SpeechBackend]]:
    """Backend classes by name, from every ``*_backend`` module in speech/backends/."""
    from panelvox.speech import backends as package

    found: dict[str, type[SpeechBackend]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.endswith("_backend"):
            continue
        try:
            module = importlib.import_module(f"{package.__name__}.{info.name}")
        except ImportError as exc:  # an optional dependency of that backend is missing
            log.info("speech backend module %s not importable: %r", info.name, exc)
            continue
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, SpeechBackend)
                and obj.__module__ == module.__name__
                and not getattr(obj, "__abstractmethods__", None)
            ):
                found[obj.name] = obj
    return found


def list_backends() -> list[BackendInfo]:
    """Every discovered backend with its check result (for ``panelvox voices`` and doctor)."""
    return [
        BackendInfo(name, cls.description, _safe_check(cls), cls)
        for name, cls in sorted(discover_backends().items())
    ]


def default_order(screen_reader_running: Callable[[], bool] | None = None) -> tuple[str, ...]:
    """The fallback order here and now: the screen reader first when one is running."""
    if screen_reader_running is None:
        from panelvox.speech.backends.screenreader_backend import screen_reader_running as running

        screen_reader_running = running
    if screen_reader_running():
        return ("screenreader", *(n for n in FALLBACK_ORDER if n != "screenreader"))
    return FALLBACK_ORDER


def build_chain(
    preferred: str | None = None,
    *,
    order: Sequence[str] | None = None,
    factory: Callable[[type[SpeechBackend]], SpeechBackend] | None = None,
) -> list[SpeechBackend]:
    """Instances of every available backend in fallback order, ``preferred`` first.

    Always ends with ``silence``. Raises :class:`BackendUnavailable` only when a preferred
    backend is named that does not exist at all (a typo on the command line).
    """
    classes = discover_backends()
    if preferred is not None and preferred not in classes:
        raise BackendUnavailable(
            # Translators: spoken when the user names a speech output that does not exist; {names} lists the real ones.
            _("There is no speech output called {name}. Choose one of: {names}.").format(
                name=preferred, names=", ".join(sorted(classes))
            ),
            detail=f"unknown backend {preferred!r}",
        )
    names = list(order if order is not None else default_order())
    if preferred is not None:
        names = [preferred, *(n for n in names if n != preferred)]
    if "silence" not in names:
        names.append("silence")
    make = factory or (lambda cls: cls())
    chain: list[SpeechBackend] = []
    for name in names:
        cls = classes.get(name)
        if cls is None or (name in NOT_FOR_READING and name != preferred):
            continue
        result = _safe_check(cls)
        if not result:
            log.info("speech backend %s unavailable: %s", name, result.reason)
            continue
        try:
            chain.append(make(cls))
        except (BackendUnavailable, OSError, RuntimeError) as exc:
            log.warning("speech backend %s failed to start: %r", name, exc)
    return chain


def language_voices(
    *,
    interface: str | None = None,
    for_files: bool = False,
    on_missing: MissingCallback | None = None,
    order: Sequence[str] | None = None,
    factory: Callable[[type[SpeechBackend]], SpeechBackend] | None = None,
) -> LanguageVoices:
    """The installed voices of other languages than the interface's, best first.

    ``for_files``: only engines that render PCM (audio export), checked without a player,
    the natural voice first; else the quick one first. Instances are cheap: each loads its
    model when it first speaks.
    """
    if order is None:
        order = LANGUAGE_VOICE_ORDER if for_files else LIVE_LANGUAGE_VOICE_ORDER
    from panelvox.i18n import interface_language

    ui = interface or interface_language()
    classes = discover_backends()
    make = factory or (lambda cls: cls())
    voices: dict[str, list[SpeechBackend]] = {}
    for name in order:
        cls = classes.get(name)
        if cls is None or (for_files and not issubclass(cls, PcmBackend)):
            continue
        result = _safe_check_engine(cls) if for_files else _safe_check(cls)
        if not result:
            log.info("language voice %s unavailable: %s", name, result.reason)
            continue
        try:
            backend = make(cls)
        except (BackendUnavailable, OSError, RuntimeError) as exc:
            log.warning("language voice %s failed to start: %r", name, exc)
            continue
        for lang in backend.capabilities.languages:
            if lang not in ("*", ui):
                voices.setdefault(lang, []).append(backend)
    return LanguageVoices(voices, interface=ui, on_missing=on_missing)


def _safe_check_engine(cls: type[SpeechBackend]) -> CheckResult:
    assert issubclass(cls, PcmBackend)
    try:
        return cls.check_engine()
    except (OSError, RuntimeError, ImportError, BackendUnavailable) as exc:
        return CheckResult(False, str(exc))


def _safe_check(cls: type[SpeechBackend]) -> CheckResult:
    try:
        return cls.check()
    except (OSError, RuntimeError, ImportError, BackendUnavailable) as exc:
        return CheckResult(False, str(exc))
