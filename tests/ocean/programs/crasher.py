#!/usr/bin/env python3
"""Test bot: answers the start, then exits with code 3 on its first turn."""
import sys


def read_start():
    """Read "15 15 id" and the 15 map rows; return the first water cell as "x y"."""
    width, height, _my_id = (int(v) for v in sys.stdin.readline().split())
    rows = [sys.stdin.readline().rstrip("\r\n") for _ in range(height)]
    for y, row in enumerate(rows):
        for x, cell in enumerate(row[:width]):
            if cell == ".":
                return f"{x} {y}"
    return "0 0"


def main():
    print(read_start(), flush=True)
    for _ in range(3):
        sys.stdin.readline()
    sys.exit(3)


if __name__ == "__main__":
    main()
