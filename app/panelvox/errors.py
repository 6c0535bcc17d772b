"""Domain exceptions, all in one place.

Each carries ``message``: one short plain sentence a blind user will hear (it is spoken),
and ``detail``: what went wrong for the log. A stage raises; the controller or CLI catches
:class:`PanelvoxError`, speaks/prints ``message`` and logs ``detail``. No traceback ever
reaches the user.
"""

from __future__ import annotations


class PanelvoxError(Exception):
    """Base of every error Panelvox reports to the user."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def __str__(self) -> str:
        return self.message


class BookError(PanelvoxError):
    """A book cannot be opened or read."""


class BookNotFound(BookError):
    pass


class UnsupportedFormat(BookError):
    """The file is not a comic book format Panelvox reads."""


class PasswordProtected(BookError):
    pass


class EmptyBook(BookError):
    """The book opened but holds no readable pages."""


class ResourceLimitExceeded(BookError):
    """Refused before reading: a zip bomb, a pixel bomb, an entry too large."""


class UnreadablePage(BookError):
    """One page cannot be decoded. The rest of the book still reads."""


class SchemaError(PanelvoxError):
    """Saved JSON of an unknown version, or damaged."""


class ModelUnavailable(PanelvoxError):
    """A model a stage needs is not installed or fails its check."""


class ModelNotSaved(ModelUnavailable):
    """A model made on first use could be made but not kept where it belongs (a read-only
    or full home, a cache folder that is a file): it can still be made somewhere else."""


class BackendUnavailable(PanelvoxError):
    """A speech backend cannot run here."""


class DatasetError(PanelvoxError):
    """An evaluation dataset cannot be found or read."""


class AnalysisError(PanelvoxError):
    """A stage failed on a page."""
