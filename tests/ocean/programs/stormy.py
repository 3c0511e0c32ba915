#!/usr/bin/env python3
"""Test bot: a CodinGame program that spends every charge as soon as it can — SILENCE of
0..4 steps, TORPEDO anywhere in range (itself included), MINE, TRIGGER of its own mines,
SONAR — in random orders, surfacing now and then. Knows its visited cells and mines from
its own moves. Seeded by argv[1]."""
import random
import sys
from collections import deque

DIRS = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}


def reachable(water, start, limit=4):
    seen = {start: 0}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        if seen[c] == limit:
            continue
        for dx, dy in DIRS.values():
            n = (c[0] + dx, c[1] + dy)
            if n in water and n not in seen:
                seen[n] = seen[c] + 1
                queue.append(n)
    return sorted(seen)


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    _, height, _ = (int(v) for v in sys.stdin.readline().split())
    rows = [sys.stdin.readline().strip() for _ in range(height)]
    water = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."}
    pos = rng.choice(sorted(water))
    print(f"{pos[0]} {pos[1]}", flush=True)
    visited = {pos}
    mines = set()
    while True:
        first = sys.stdin.readline()
        if not first or not sys.stdin.readline() or not sys.stdin.readline():
            return
        x, y, _, _, torpedo_cd, sonar_cd, silence_cd, mine_cd = (int(v) for v in first.split())
        pos = (x, y)

        def free(c):
            return [d for d, (dx, dy) in DIRS.items() if (c[0] + dx, c[1] + dy) in water and (c[0] + dx, c[1] + dy) not in visited]

        pieces = []
        if silence_cd == 0 and rng.random() < 0.7:
            d = rng.choice("NSEW")
            dx, dy = DIRS[d]
            steps = 0
            for _ in range(rng.choice([0, 0, 1, 2, 3, 4])):
                n = (pos[0] + dx, pos[1] + dy)
                if n not in water or n in visited:
                    break
                pos = n
                visited.add(n)
                steps += 1
            pieces.append(f"SILENCE {d} {steps}")
        if not free(pos) or rng.random() < 0.04:
            pieces.append("SURFACE")
            visited = {pos}
        options = free(pos)
        if options:
            d = rng.choice(options)
            pos = (pos[0] + DIRS[d][0], pos[1] + DIRS[d][1])
            visited.add(pos)
            pieces.append(f"MOVE {d} {rng.choice(['TORPEDO', 'SONAR', 'SILENCE', 'MINE'])}")
        extras = []
        if torpedo_cd == 0 and rng.random() < 0.6:
            tx, ty = rng.choice(reachable(water, pos))
            extras.append(f"TORPEDO {tx} {ty}")
        if mine_cd == 0:
            d = rng.choice("NSEW")
            spot = (pos[0] + DIRS[d][0], pos[1] + DIRS[d][1])
            if spot in water and spot not in mines:
                mines.add(spot)
                extras.append(f"MINE {d}")
        if mines and rng.random() < 0.3:
            mx, my = rng.choice(sorted(mines))
            mines.discard((mx, my))
            extras.append(f"TRIGGER {mx} {my}")
        if sonar_cd == 0 and rng.random() < 0.7:
            extras.append(f"SONAR {rng.randint(1, 9)}")
        for piece in extras:
            # After the move, except now and then before it (it changes what the blast means).
            pieces.insert(rng.randrange(len(pieces) + 1) if rng.random() < 0.3 else len(pieces), piece)
        print("|".join(pieces) or "SURFACE", flush=True)


if __name__ == "__main__":
    main()
