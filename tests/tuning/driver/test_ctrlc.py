"""Ctrl-C is remembered even where Python drops the KeyboardInterrupt (a finalizer's)."""
import os
import signal

import pytest

from tests.tuning.fakes import swallowed_sigint
from tuning.driver.ctrlc import CtrlC


def test_a_swallowed_ctrl_c_is_raised_again_by_check(ctrl_c_reaches_python):
    with CtrlC() as ctrl_c:
        ctrl_c.check()  # not pressed: nothing
        swallowed_sigint()
        assert ctrl_c.pressed
        with pytest.raises(KeyboardInterrupt):
            ctrl_c.check()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_a_finalizer_swallows_prints_no_traceback_and_other_reports_still_show(ctrl_c_reaches_python):
    import sys
    import weakref

    class Thing:
        pass

    reported = []
    previous = sys.unraisablehook
    sys.unraisablehook = reported.append  # what Python would print as "Exception ignored in ..."
    try:
        with CtrlC() as ctrl_c:
            thing = Thing()
            ref = weakref.ref(thing, lambda _: swallowed_in_callback())  # noqa: F841
            del thing  # the press lands in the weakref callback, where Python drops it
            assert ctrl_c.pressed and reported == []

            def fails(_):
                raise ValueError("a finalizer's own bug")

            other = Thing()
            ref = weakref.ref(other, fails)  # noqa: F841
            del other
            assert [type(r.exc_value) for r in reported] == [ValueError]
        assert sys.unraisablehook == reported.append
    finally:
        sys.unraisablehook = previous


def swallowed_in_callback() -> None:
    """A real Ctrl-C whose KeyboardInterrupt is raised where Python cannot raise it (we are
    in a weakref callback): it goes to ``sys.unraisablehook``."""
    import threading
    import time

    signal.pthread_kill(threading.get_ident(), signal.SIGINT)
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:  # the handler runs at a bytecode boundary, in this loop
        pass


def test_an_ignored_sigint_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with CtrlC() as ctrl_c:
            os.kill(os.getpid(), signal.SIGINT)
            ctrl_c.check()
            assert not ctrl_c.pressed
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
