#!/usr/bin/env python3
"""Test bot: answers the start, then sleeps 2 s before its first turn answer."""
import sys

from _cg import read_start, read_turn
import time


def main():
    print(read_start(), flush=True)
    first = True
    while read_turn():
        if first:
            time.sleep(2.0)  # far beyond any turn timeout
            first = False
        print("SURFACE", flush=True)


if __name__ == "__main__":
    main()
