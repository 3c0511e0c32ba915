#!/usr/bin/env python3
"""Test bot: answers the start, then exits with code 3 on its first turn."""
import sys

from _cg import read_start


def main():
    print(read_start(), flush=True)
    for _ in range(3):
        sys.stdin.readline()
    sys.exit(3)


if __name__ == "__main__":
    main()
