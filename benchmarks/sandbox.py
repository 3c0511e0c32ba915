"""The cost of the sandbox per program start (issue 45): a program started, given a line, its
answer read and the program closed, as a game starts and ends one, with and without bwrap.

    python -m benchmarks.sandbox --starts 200

Each mode runs in its own process (whether the sandbox starts is decided once per process):
``sandbox`` (bwrap + prlimit, what every game gets here) and ``none`` (``OCEAN_NO_SANDBOX=1``:
prlimit only). It prints, per mode, starts per second (wall clock) and the CPU time a start
costs (this process and its children, user + system), then the ratio of the two. The program is
``/bin/sh`` reading a line and answering it: a start with nothing of a real bot's own start-up in
it, so the figure is the lab's cost alone. Wall-clock figures move with the machine's load; the
CPU time a start costs moves much less: compare those, taken in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

__all__ = ["measure"]

_PROGRAM = ["/bin/sh", "-c", "read line; echo \"$line\""]


def measure(starts: int) -> dict:
    """Start the program ``starts`` times in this process (after 5 unmeasured starts)."""
    from ocean._process import BotProcess
    from ocean.sandbox import unavailable_reason

    def one() -> None:
        with BotProcess(_PROGRAM, env={"PATH": "/usr/bin:/bin"}) as proc:
            proc.send(["ping"])
            if proc.read_line(60_000) != "ping":
                raise RuntimeError("the program did not answer")

    for _ in range(5):
        one()
    t0, c0 = time.monotonic(), os.times()
    for _ in range(starts):
        one()
    wall, c1 = time.monotonic() - t0, os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) \
        + (c1.children_system - c0.children_system)
    return {"sandboxed": unavailable_reason() is None, "starts": starts, "starts_per_s": round(starts / wall, 1),
            "wall_ms_per_start": round(1000 * wall / starts, 2), "cpu_ms_per_start": round(1000 * cpu / starts, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=200)
    parser.add_argument("--mode", choices=("sandbox", "none"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode is not None:
        print(json.dumps(measure(args.starts)))
        return
    results = {}
    for mode in ("sandbox", "none"):
        env = {**os.environ}
        env.pop("OCEAN_NO_SANDBOX", None)
        if mode == "none":
            env["OCEAN_NO_SANDBOX"] = "1"
        out = subprocess.run([sys.executable, "-m", "benchmarks.sandbox", "--mode", mode, "--starts", str(args.starts)],
                             capture_output=True, text=True, env=env, check=True)
        results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
        r = results[mode]
        print(f"{mode:8} sandboxed={r['sandboxed']}: {r['starts_per_s']} starts/s, {r['wall_ms_per_start']} ms a start "
              f"(wall), {r['cpu_ms_per_start']} ms of CPU a start")
    s, n = results["sandbox"], results["none"]
    print(f"the sandbox costs {s['cpu_ms_per_start'] - n['cpu_ms_per_start']:+.2f} ms of CPU a start "
          f"(x{s['cpu_ms_per_start'] / n['cpu_ms_per_start']:.2f}), {s['wall_ms_per_start'] - n['wall_ms_per_start']:+.2f} "
          "ms of wall clock")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
