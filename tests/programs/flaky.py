#!/usr/bin/env python3
"""flaky: a test opponent that plays legal, deterministic lines but loses some games to its
clock or a crash, as a program does on a busy machine.

It walks to the free neighbour with the most onward exits (ties by a generator seeded by
``--seed``), surfacing when boxed in. On its 3rd turn it fails, sleeping 3 s (``--fail
timeout``) or exiting with code 3 (``--fail crash``), in a share of its games:

- ``--share P``: games whose (seed, player id) hash falls below P percent fail every time;
- with ``--random``: instead each game fails with probability P percent, drawn afresh every time
  it is played (the machine, not the map);
- with ``--once DIR``: the hashed games fail only the first time they are played (a marker file
  per game in DIR), so a replay plays them through;
- with ``--switch FILE``: the hashed games fail only while FILE exists (a machine that is busy
  for a while: the lines it plays stay the same).
"""
import argparse
import hashlib
import os
import random
import sys
import time

DIRS = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--share", type=float, default=0.0)
    parser.add_argument("--fail", choices=("timeout", "crash"), default="timeout")
    parser.add_argument("--random", action="store_true")
    parser.add_argument("--once")
    parser.add_argument("--switch")
    args = parser.parse_args()
    _, height, my_id = (int(v) for v in sys.stdin.readline().split())
    rows = [sys.stdin.readline().strip() for _ in range(height)]
    water = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."}
    if args.random:
        fails = random.SystemRandom().random() * 100 < args.share
    else:
        digest = hashlib.sha256(f"{args.seed}:{my_id}".encode()).digest()
        fails = int.from_bytes(digest[:4], "big") / 2**32 * 100 < args.share
        if fails and args.switch:
            fails = os.path.exists(args.switch)
        if fails and args.once:
            marker = os.path.join(args.once, f"{args.seed}-{my_id}")
            fails = not os.path.exists(marker)
            open(marker, "w").close()
    rng = random.Random(args.seed * 2 + my_id)
    start = rng.choice(sorted(water))
    print(f"{start[0]} {start[1]}", flush=True)
    visited = {start}
    turn = 0
    while True:
        lines = [sys.stdin.readline() for _ in range(3)]
        if not all(lines):
            return
        turn += 1
        if turn == 3 and fails:
            if args.fail == "crash":
                sys.exit(3)
            time.sleep(3.0)
        x, y = (int(v) for v in lines[0].split()[:2])
        if (x, y) not in visited:
            visited = {(x, y)}
        options = []
        for d, (dx, dy) in DIRS.items():
            t = (x + dx, y + dy)
            if t in water and t not in visited:
                exits = sum((t[0] + ex, t[1] + ey) in water and (t[0] + ex, t[1] + ey) not in visited
                            for ex, ey in DIRS.values())
                options.append((-exits, rng.random(), d, t))
        if not options:
            visited = {(x, y)}
            print("SURFACE", flush=True)
            continue
        _, _, d, t = min(options)
        visited.add(t)
        print(f"MOVE {d} TORPEDO", flush=True)


if __name__ == "__main__":
    main()
