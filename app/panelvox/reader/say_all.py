"""Say all (Space): read on from the reader's position to the end of the book.

:class:`SayAll` owns the state of continuous reading: whether it runs, a generation that
makes the "done" callback of a stopped run stale (it may still be on its way from the
speech thread), and whether it waits for the current page's analysis. Speaking the current
stop and moving to the next are the controller's, handed in as callables, so moves, the
view and the saved position stay in one place.
"""

from __future__ import annotations

from collections.abc import Callable

#: speak the current stop, then call back with whether it was heard to the end;
#: False (nothing said) while the current page is still being analysed
ReadHere = Callable[[Callable[[bool], None]], bool]


class SayAll:
    """Continuous reading: started by the controller, stopped only by its interrupt."""

    def __init__(self, read_here: ReadHere, read_on: Callable[[], bool], at_end: Callable[[], None]) -> None:
        self._read_here = read_here
        self._read_on = read_on  # move to the next stop; False past the end of the book
        self._at_end = at_end
        self.active = False
        self._gen = 0
        self._waiting = False  # for the current page's analysis

    def start(self) -> None:
        self.active = True
        self._read(self._gen)

    def stop(self) -> None:
        """Stop reading; the callback of the stopped run is ignored when it comes."""
        self.active = False
        self._gen += 1
        self._waiting = False

    def page_arrived(self) -> bool:
        """The current page's analysis arrived: True when say-all waited for it (and reads on)."""
        if not (self._waiting and self.active):
            return False
        self._waiting = False
        self._read(self._gen)
        return True

    def _read(self, gen: int) -> None:
        if not self._read_here(lambda completed: self._done(gen, completed)):
            self._waiting = True

    def _done(self, gen: int, completed: bool) -> None:
        if gen != self._gen or not self.active:
            return
        if not completed:  # cut off (a key, a failing voice): reading stops where it is
            self.active = False
            return
        if not self._read_on():
            self.active = False
            self._at_end()
            return
        self._read(gen)
