"""CPUs for games that must not steal each other's time (Linux).

A program on its own timer thinks until its clock says stop: if another game's process runs
on the same CPU meanwhile, it loses time it was promised, plays worse or times out. So a worker
*holds* one CPU for the duration of a batch (``hold_cpu``): the first free one among the CPUs
this process may run on, held machine-wide by an exclusive ``flock`` on one lock file per CPU
(under the temp folder, or ``$OCEAN_CPU_LOCKS``), so concurrent arena workers and Ray tasks on
one node never share a CPU. The holder's thread is pinned to it (the referee, and an in-process
bot it plays through the text door), and each program a game starts is pinned to it right after
it starts (``pin_process``), before it reads its first input. A lock dies with its process, so a
killed worker never leaves a CPU held.

Pinning keeps concurrent games apart, but a pinned program cannot move away from another
user's process on its CPU: on a machine busy with other work, holding a *slot* (the lock, no
pinning: never more games than CPUs, the kernel places them) may time out less. The arena takes
either (``AFFINITY``); docs/benchmarks.md measures both.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
import threading
import time
from typing import Iterator

__all__ = ["hold_cpu", "pinned", "pin_process", "usable_cpus", "lock_folder", "ENV_LOCKS", "AFFINITY", "PIN", "SLOT",
           "NONE"]

ENV_LOCKS = "OCEAN_CPU_LOCKS"  # the folder of the per-CPU lock files (default: under the temp folder)
PIN, SLOT, NONE = "pin", "slot", "none"  # hold a CPU and run on it; hold one, run anywhere; hold none
AFFINITY = (PIN, SLOT, NONE)
_WAIT_S = 0.02  # how often a worker that found every CPU held looks again
_held = threading.local()  # the CPU this thread holds, for nested holds


def lock_folder() -> str:
    """Where the per-CPU lock files live: ``$OCEAN_CPU_LOCKS``, else ``<tmp>/ocean-cpus-<uid>``."""
    return os.environ.get(ENV_LOCKS) or os.path.join(tempfile.gettempdir(), f"ocean-cpus-{os.getuid()}")


def usable_cpus() -> list[int]:
    """The CPUs this process may run on, in order."""
    return sorted(os.sched_getaffinity(0))


def _try_lock(folder: str, cpu: int) -> int | None:
    """An open descriptor holding ``cpu``'s lock, or None if another holder has it."""
    fd = os.open(os.path.join(folder, f"cpu{cpu}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        raise
    return fd


@contextlib.contextmanager
def pinned(cpu: int | None) -> Iterator[int | None]:
    """Run the calling thread on ``cpu`` only for the duration (nothing if None); its former
    CPUs are given back after."""
    if cpu is None:
        yield None
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, before)


@contextlib.contextmanager
def hold_cpu(*, wait: bool = True, pin: bool = True) -> Iterator[int | None]:
    """Hold one CPU machine-wide for the duration and pin the calling thread to it; yields its
    number (the CPU to pin a game's programs to). Waits while every usable CPU is held by another
    worker (``wait=False``: yields None at once instead, and nothing is pinned). ``pin=False``
    holds the CPU as a slot only: the thread is not pinned and None is yielded (run anywhere).
    Nested holds in one thread yield what the outer one did."""
    if getattr(_held, "cpu", None) is not None:
        yield _held.yielded
        return
    folder = lock_folder()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    cpus = usable_cpus()
    while True:
        for cpu in cpus:
            fd = _try_lock(folder, cpu)
            if fd is not None:
                break
        else:
            if not wait:
                yield None
                return
            time.sleep(_WAIT_S)
            continue
        break
    _held.cpu, _held.yielded = cpu, (cpu if pin else None)
    try:
        with pinned(_held.yielded):
            yield _held.yielded
    finally:
        _held.cpu = _held.yielded = None
        os.close(fd)  # releases the lock


def pin_process(pid: int, cpu: int) -> None:
    """Run every thread of process ``pid`` on ``cpu`` only (threads it starts later inherit it).
    A process that already exited is left alone."""
    try:
        tasks = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        tasks = [pid]
    for tid in tasks:
        try:
            os.sched_setaffinity(tid, {cpu})
        except ProcessLookupError:
            pass
