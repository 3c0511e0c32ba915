#!/usr/bin/env python3
"""Test bot that spends a share of its turn budget, as a program on its own timer does.

Each turn it keeps the CPU busy until ``--share`` (default 0.8) of ``--turn-ms`` has passed
since it had read the turn's input, then answers a legal line: the free neighbour with the
fewest onward exits (so it lasts), SURFACE when boxed in. ``--turn-ms`` may also come from
``--params-file FILE`` (``turn_ms = N`` lines, or a JSON object) or the environment variable
``BUSY_TURN_MS``. ``--log FILE`` appends one JSON line at the start: the budget it was told
(``turn_ms``, ``first_turn_ms``, from where) and the CPUs it may run on. Seeded by ``--seed``.
"""
import json
import os
import random
import sys
import time


DIRS = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}


def options(argv):
    given = dict(zip(argv[::2], argv[1::2]))
    told = {"turn_ms": None, "first_turn_ms": None, "from": None}
    if "--params-file" in given:
        text = open(given["--params-file"]).read()
        values = json.loads(text) if text.lstrip().startswith("{") else {
            k.strip(): v.strip() for k, v in (line.split("=", 1) for line in text.splitlines() if "=" in line)}
        told.update(turn_ms=int(values["turn_ms"]), first_turn_ms=int(values["first_turn_ms"]), **{"from": "file"})
    if os.environ.get("BUSY_TURN_MS"):
        told.update(turn_ms=int(os.environ["BUSY_TURN_MS"]), **{"from": "env"})
    if "--turn-ms" in given:
        told.update(turn_ms=int(given["--turn-ms"]), **{"from": "argv"})
    if "--first-turn-ms" in given:
        told["first_turn_ms"] = int(given["--first-turn-ms"])
    return given, told


def main():
    given, told = options(sys.argv[1:])
    share = float(given.get("--share", 0.8))
    rng = random.Random(int(given.get("--seed", 0)))
    if "--log" in given:
        with open(given["--log"], "a") as fh:
            fh.write(json.dumps({**told, "cpus": sorted(os.sched_getaffinity(0))}) + "\n")
    budget_s = (told["turn_ms"] or 50) * share / 1000.0
    _, height, _ = (int(v) for v in sys.stdin.readline().split())
    rows = [sys.stdin.readline().strip() for _ in range(height)]
    water = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."}
    start = rng.choice(sorted(water))
    print(f"{start[0]} {start[1]}", flush=True)
    visited = {start}
    while True:
        first = sys.stdin.readline()
        if not first:
            return
        sys.stdin.readline()
        sys.stdin.readline()
        deadline = time.perf_counter() + budget_s
        x, y = (int(v) for v in first.split()[:2])
        if (x, y) not in visited:
            visited = {(x, y)}
        options_ = []
        for d, (dx, dy) in DIRS.items():
            t = (x + dx, y + dy)
            if t in water and t not in visited:
                exits = sum((t[0] + ex, t[1] + ey) in water and (t[0] + ex, t[1] + ey) not in visited
                            for ex, ey in DIRS.values())
                options_.append((exits, rng.random(), d, t))
        while time.perf_counter() < deadline:  # think (burn the CPU) until the share of the budget is spent
            pass
        if options_:
            _, _, d, t = min(options_)
            visited.add(t)
            print(f"MOVE {d} TORPEDO", flush=True)
        else:
            visited = {(x, y)}
            print("SURFACE", flush=True)


if __name__ == "__main__":
    main()
