"""``ocean bench --first-answer``: how long ``ocean bot`` takes to answer its first turn (its
start cell; CodinGame allows 1000 ms) and its second (its first move; 50 ms), from the moment
the program is started with its whole input waiting, over N fresh starts.

Each start of the bot (its ahead-of-time module, ``ocean._aot``) is paired with a start of the
path of before (``ocean bot --no-aot``: the command line, Numba and its cached kernels), the two
interleaved, so that both meet the same load on a shared machine: the ratio of their medians
is the figure to read there, the milliseconds the one to read on an idle machine.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

__all__ = ["run_first_answer_bench", "time_start"]


def _init_text(seed: int, me: int) -> str:
    from ocean.maps import generate_map, map_rows

    return f"15 15 {me}\n" + "".join(row + "\n" for row in map_rows(generate_map(seed)))


def time_start(args: list[str], init: str) -> tuple[float, float, str, float]:
    """Start ``python -m ocean bot ARGS``, its init lines written at once: (ms to its first
    answer, ms to its second answer after its first turn's input, the first answer, the CPU ms
    the process used in all: the figure least moved by other work on the machine)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "ocean", "bot", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        proc.stdin.write(init)
        proc.stdin.flush()
        first = proc.stdout.readline()
        first_ms = (time.perf_counter() - start) * 1000.0
        if not first:
            raise ValueError(f"ocean bot {' '.join(args)} closed its output without answering")
        x, y = first.split()
        sent = time.perf_counter()
        proc.stdin.write(f"{x} {y} 6 6 3 4 6 3\nNA\nNA\n")
        proc.stdin.flush()
        second = proc.stdout.readline()
        second_ms = (time.perf_counter() - sent) * 1000.0
        if not second:
            raise ValueError(f"ocean bot {' '.join(args)} closed its output after its first answer")
    finally:
        proc.kill()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return first_ms, second_ms, first.strip(), (usage.ru_utime + usage.ru_stime) * 1000.0


def _figures(times: list[float]) -> dict:
    values = np.array(times)
    return {"median_ms": round(float(np.median(values)), 1), "p99_ms": round(float(np.percentile(values, 99)), 1),
            "min_ms": round(float(values.min()), 1), "max_ms": round(float(values.max()), 1)}


def run_first_answer_bench(*, starts: int = 20, args: tuple[str, ...] = (), progress: bool = True) -> dict:
    """``starts`` fresh starts of ``ocean bot ARGS`` and as many of the path of before (``--no-aot``),
    interleaved, on maps 1.. (player 0 and 1 in turn): median, p99, min and max of the first and
    second answers' times and of each process's CPU time, the ratio of the first answers' medians,
    the load average, and whether both paths answered the same start cells."""
    from ocean import _aot
    from ocean.bots import resolve_bot

    options = list(args)
    name = options[options.index("--name") + 1] if "--name" in options else "tunable"
    aot = _aot.load(resolve_bot(name).kind) is not None if "--params" not in options else None
    time_start(options, _init_text(1, 0))  # one start unmeasured: the files in the page cache
    time_start(options + ["--no-aot"], _init_text(1, 0))
    load_before = os.getloadavg()[0]
    fast, fast2, old, old2, cpu, old_cpu, same = [], [], [], [], [], [], True
    for i in range(starts):
        init = _init_text(1 + i, i % 2)
        a, a2, cell, a_cpu = time_start(options, init)
        b, b2, old_cell, b_cpu = time_start(options + ["--no-aot"], init)
        fast.append(a)
        fast2.append(a2)
        old.append(b)
        old2.append(b2)
        cpu.append(a_cpu)
        old_cpu.append(b_cpu)
        same = same and cell == old_cell
        if progress:
            print(f"start {i + 1}/{starts}: first answer {a:.0f} ms (before: {b:.0f} ms), "
                  f"second {a2:.1f} ms", file=sys.stderr)
    return {"starts": starts, "bot": " ".join(["ocean bot", *options]), "ahead_of_time_module": aot,
            "first_answer": _figures(fast), "second_answer": _figures(fast2),
            "before_first_answer": _figures(old), "before_second_answer": _figures(old2),
            "median_ratio_to_before": round(float(np.median(fast) / np.median(old)), 3),
            "cpu_ms": _figures(cpu), "before_cpu_ms": _figures(old_cpu),
            "same_start_cells": same,
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
