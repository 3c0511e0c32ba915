"""Running ``tune`` as a user does: a real subprocess in a working folder; and the drills' part
that starts one, waits until it is well into its work, then stops it (a signal, or its database
taken away) and waits for its end."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

GUARD = 300  # seconds: a process still running after this is hung (a guard, never a measurement)


def run_tune(*args, cwd, check=True, timeout=300) -> subprocess.CompletedProcess:
    """``python -m tuning ARGS`` in ``cwd``; with ``check``, a failure shows its stderr."""
    result = subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"tune {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result


# How launch, resume, validate and learn say the wait for Ray (issue 49): lines before any error.
RAY_LINES = ("starting Ray", "joining the Ray cluster", "Ray ready: ")


def said(result: subprocess.CompletedProcess) -> list[str]:
    """A command's stderr lines, without the lines that say the wait for Ray."""
    return [line for line in result.stderr.strip().splitlines() if not line.startswith(RAY_LINES)]


def last_json(result: subprocess.CompletedProcess) -> dict:
    """The JSON object on the last line of a command's stdout, read strictly: Python's
    ``Infinity`` and ``NaN`` are not JSON, and other readers refuse them."""
    return json.loads(result.stdout.strip().splitlines()[-1], parse_constant=_not_json)


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")


def wait_for(condition: Callable[[], bool], what: str, proc, output: Callable[[], str], *, within: float = GUARD,
             every: float = 0.05) -> None:
    """Wait until ``condition()``; fail if ``proc`` (anything with ``poll()``) exits first (showing
    the tail of ``output()``) or ``within`` seconds pass."""
    deadline = time.monotonic() + within
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"the process exited ({proc.poll()}) before {what}:\n{output()[-2000:]}")
        assert time.monotonic() < deadline, f"hung waiting for {what}"
        time.sleep(every)


def finish(proc) -> int:
    """The exit code of ``proc`` (a ``benchmarks.chaos.DriverProcess``) once it ends; killed, and a
    failure showing its stderr, if it outlasts ``GUARD``."""
    try:
        return proc.proc.wait(timeout=GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"the process hung:\n{proc.stderr()[-2000:]}")


def database_outage(proc, server, *, ready: Callable[[], bool], what: str, ride_out: bool,
                    then: Callable[[], Any] = lambda: None) -> tuple[int, Any]:
    """Once ``ready()`` (``what`` names it in a failure), call ``then()`` and stop ``server`` (a
    ``tests.tuning.private_pg.PrivatePostgres``) under the running driver ``proc`` (a
    ``benchmarks.chaos.DriverProcess``); with ``ride_out``, start it again as soon as the driver
    says the database is unreachable. Returns the driver's exit code and what ``then`` returned;
    afterwards the server runs and the driver is gone, whatever failed."""
    try:
        wait_for(ready, what, proc, proc.stderr)
        seen = then()
        server.stop()
        if ride_out:
            wait_for(lambda: "unreachable" in proc.stderr(), "the driver noticed the outage", proc, proc.stderr)
            server.start()
        return finish(proc), seen
    finally:
        server.start()
        if proc.poll() is None:
            proc.kill()


@dataclass
class Stopped:
    """How a signalled ``tune`` ended, and what the test read just after the signal (``seen``)."""

    returncode: int
    stdout: str
    stderr: str
    seen: Any = None


def signal_tune(args: list[str], *, cwd, ready: Callable[[], bool], what: str, sig: int = signal.SIGINT,
                within: float = 240, every: float = 0.2, then: Callable[[], Any] = lambda: None) -> Stopped:
    """Start ``python -m tuning ARGS`` in ``cwd`` (unbuffered; SIGINT at its default, so that the
    signal reaches it even from a run started with SIGINT ignored), wait until ``ready()`` (``what``
    names it in a failure), send ``sig``, call ``then()`` at once, and wait for the process to end
    (killed if anything fails on the way)."""
    proc = subprocess.Popen([sys.executable, "-m", "tuning", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(ready, what, proc, lambda: proc.communicate()[1], within=within, every=every)
        proc.send_signal(sig)
        seen = then()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return Stopped(proc.returncode, out, err, seen)
