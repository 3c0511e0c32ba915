"""Ctrl-C that is never lost.

Python raises KeyboardInterrupt wherever the main thread happens to be when SIGINT arrives,
and where that is a finalizer or a weakref callback (SQLAlchemy cleans up its objects in
them), the exception is printed as "Exception ignored in ..." and dropped: the driver would
play its study to the end. ``CtrlC`` also remembers the press, and the driver loop asks
``check()`` on every turn, so a swallowed interrupt still stops it within one wait; and the
"Exception ignored" report of an interrupt swallowed so (a traceback a user would take for a
crash) is not printed while entered.
"""
from __future__ import annotations

import signal
import sys
import threading

__all__ = ["CtrlC"]


class CtrlC:
    """While entered (in the main thread, SIGINT not ignored): SIGINT raises KeyboardInterrupt
    as usual and sets ``pressed``; ``check()`` raises it again if it was pressed."""

    def __init__(self) -> None:
        self.pressed = False
        self._previous = None
        self._previous_hook = None

    def _on_sigint(self, signum, frame) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def __enter__(self) -> "CtrlC":
        # A driver started in the background by a script ignores SIGINT: so does this one.
        if threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            self._previous_hook = sys.unraisablehook
            sys.unraisablehook = self._on_unraisable
        return self

    def _on_unraisable(self, unraisable) -> None:
        # An interrupt raised in a finalizer is remembered (``pressed``); any other report is shown.
        if not (self.pressed and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            (self._previous_hook or sys.__unraisablehook__)(unraisable)

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
            sys.unraisablehook = self._previous_hook or sys.__unraisablehook__
            self._previous_hook = None

    def check(self) -> None:
        """Raise KeyboardInterrupt if Ctrl-C was pressed since entering."""
        if self.pressed:
            raise KeyboardInterrupt
