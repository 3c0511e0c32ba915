"""Ctrl-C is remembered even where Python drops the KeyboardInterrupt (a finalizer's)."""
import os
import signal

import pytest

from tuning.driver.ctrlc import CtrlC


def _swallowed_sigint() -> None:
    """A real SIGINT whose KeyboardInterrupt is dropped, as in a finalizer."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # the handler runs at a bytecode boundary, in this block
            pass
    except KeyboardInterrupt:
        pass


def test_a_swallowed_ctrl_c_is_raised_again_by_check():
    with CtrlC() as ctrl_c:
        ctrl_c.check()  # not pressed: nothing
        _swallowed_sigint()
        assert ctrl_c.pressed
        with pytest.raises(KeyboardInterrupt):
            ctrl_c.check()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


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
