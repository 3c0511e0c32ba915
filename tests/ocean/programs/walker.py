#!/usr/bin/env python3
"""Test bot: a walker that plays legal lines. It moves towards the free cell with the
fewest onward exits (so it lasts), surfaces when boxed in, fires its torpedo at a cell
three steps ahead, lays and triggers mines far from itself. Seeded by argv[1]."""
import random
import sys

DIRS = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    _, height, _ = (int(v) for v in sys.stdin.readline().split())
    rows = [sys.stdin.readline().strip() for _ in range(height)]
    water = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."}
    start = rng.choice(sorted(water))
    print(f"{start[0]} {start[1]}", flush=True)
    visited = {start}
    mines = []
    turn = 0
    while True:
        first = sys.stdin.readline()
        if not first:
            return
        sys.stdin.readline()
        sys.stdin.readline()
        turn += 1
        x, y, _, _, torpedo_cd, _, _, mine_cd = (int(v) for v in first.split())
        if (x, y) not in visited:
            visited = {(x, y)}
        pieces = []
        options = []
        for d, (dx, dy) in DIRS.items():
            t = (x + dx, y + dy)
            if t in water and t not in visited:
                exits = sum((t[0] + ex, t[1] + ey) in water and (t[0] + ex, t[1] + ey) not in visited
                            for ex, ey in DIRS.values())
                options.append((exits, rng.random(), d, t))
        if not options:
            pieces.append("SURFACE")
            visited = {(x, y)}
            options = [(0, 0, d, (x + dx, y + dy)) for d, (dx, dy) in DIRS.items() if (x + dx, y + dy) in water]
        if options:
            _, _, d, t = min(options)
            pieces.append(f"MOVE {d} {rng.choice(['TORPEDO', 'MINE', 'SONAR', 'SILENCE'])}")
            visited.add(t)
            x, y = t
        if mine_cd == 0:
            pieces.append("MINE " + rng.choice("NSEW"))
            mines.append(turn)
        if torpedo_cd == 0 and rng.random() < 0.5:
            pieces.append(f"TORPEDO {x + rng.choice([-3, 3])} {y}")
        if rng.random() < 0.2:
            pieces.append(f"TRIGGER {rng.randrange(15)} {rng.randrange(15)}")
        if rng.random() < 0.1:
            pieces.append(f"MSG turn {turn}")
        print("|".join(pieces), flush=True)


if __name__ == "__main__":
    main()
