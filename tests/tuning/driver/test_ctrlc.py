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
