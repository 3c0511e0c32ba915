"""Holding a CPU machine-wide (flock per CPU) and pinning a game's processes to it, with real
processes: two holders never share a CPU, a killed holder frees its CPU, a program runs on the
CPU it was given from its first line on."""
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ocean._process import BotProcess
from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
from ocean.cpus import ENV_LOCKS, hold_cpu, pinned, usable_cpus
from ocean.match import play_pairs
from ocean.timecontrol import TimeControl

BUSY = Path(__file__).parent / "programs" / "busy.py"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


@pytest.fixture(autouse=True)
def locks(tmp_path, monkeypatch):
    """A lock folder of this test's own: a benchmark running beside the tests holds its own CPUs."""
    monkeypatch.setenv(ENV_LOCKS, str(tmp_path / "locks"))
    return tmp_path / "locks"


def _hold_and_report(queue, release):
    with hold_cpu() as cpu:
        queue.put((cpu, sorted(os.sched_getaffinity(0))))
        release.wait(30)


def test_concurrent_holders_get_different_cpus_and_the_next_one_waits_for_a_free_one():
    cpus = usable_cpus()
    ctx = multiprocessing.get_context("spawn")
    queue, release = ctx.Queue(), ctx.Event()
    holders = [ctx.Process(target=_hold_and_report, args=(queue, release)) for _ in cpus]
    for p in holders:
        p.start()
    got = [queue.get(timeout=60) for _ in cpus]
    assert sorted(cpu for cpu, _ in got) == cpus  # every CPU held once
    assert all(mask == [cpu] for cpu, mask in got)  # each holder's thread runs on its CPU only
    late = ctx.Process(target=_hold_and_report, args=(queue, release))
    late.start()
    time.sleep(0.5)
    assert queue.empty()  # every CPU is held: it waits
    with hold_cpu(wait=False) as none:
        assert none is None
    release.set()
    cpu, mask = queue.get(timeout=60)
    assert cpu in cpus and mask == [cpu]
    for p in holders + [late]:
        p.join(30)


def test_a_killed_holder_frees_its_cpu(locks):
    code = ("import os, sys, time\nfrom ocean.cpus import hold_cpu\n"
            "with hold_cpu() as cpu:\n    print(cpu, flush=True)\n    time.sleep(60)\n")
    holders = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                env={**os.environ, ENV_LOCKS: str(locks)}) for _ in usable_cpus()]
    try:
        held = sorted(int(p.stdout.readline()) for p in holders)
        assert held == usable_cpus()
        with hold_cpu(wait=False) as none:
            assert none is None
        holders[0].send_signal(signal.SIGKILL)
        holders[0].wait()
        with hold_cpu() as cpu:  # the lock died with its process
            assert cpu in held
    finally:
        for p in holders:
            p.kill()
            p.wait()


def test_a_thread_is_pinned_for_the_duration_and_gets_its_cpus_back():
    before = os.sched_getaffinity(0)
    with hold_cpu() as cpu:
        assert os.sched_getaffinity(0) == {cpu}
        with hold_cpu() as again:  # nested: the same CPU, no deadlock on our own lock
            assert again == cpu
    assert os.sched_getaffinity(0) == before
    with pinned(None) as nothing:
        assert nothing is None and os.sched_getaffinity(0) == before


def test_a_program_runs_on_the_cpu_it_was_given_from_its_start(tmp_path, unsandboxed):
    cpu = usable_cpus()[-1]
    with BotProcess(["sleep", "5"], cpu=cpu) as proc:
        status = Path(f"/proc/{proc._pid}/status").read_text()
        assert f"Cpus_allowed_list:\t{cpu}\n" in status
    # a whole game: the program reports the CPUs it may run on before it reads its first input
    log = tmp_path / "told.log"
    bot = BotSpec("busy", PROGRAM, {}, ProgramSpec(f"{sys.executable} {BUSY} --share 0 --log {log}"))
    with hold_cpu() as held:
        before = os.sched_getaffinity(0)
        result = play_pairs(bot, resolve_bot("random"), [6], time=TimeControl(scale=10), cpu=held)
        assert os.sched_getaffinity(0) == before
    assert result.errors == [(None, None)] * 2
    assert [json.loads(line)["cpus"] for line in log.read_text().splitlines()] == [[held], [held]]


def test_a_slot_is_held_without_pinning():
    import threading

    before = os.sched_getaffinity(0)
    got, ready, release = [], threading.Barrier(len(usable_cpus()) + 1), threading.Event()

    def other():
        with hold_cpu(wait=False) as cpu:
            got.append(cpu)
            ready.wait(30)
            release.wait(30)

    with hold_cpu(pin=False) as slot:
        assert slot is None and os.sched_getaffinity(0) == before  # its games run anywhere...
        threads = [threading.Thread(target=other) for _ in usable_cpus()]
        for t in threads:
            t.start()
        ready.wait(30)
        assert sorted(c is None for c in got) == [False] * (len(threads) - 1) + [True]  # ...but it holds one
        release.set()
        for t in threads:
            t.join(30)
