#!/usr/bin/env python3
"""Test bot: answers the start, then prints two lines per turn.

Turn n prints "SURFACE|MSG first n" then "SURFACE|MSG second n", so a referee
that buffers output gets the second line as the next turn's answer.
"""
import sys

from _cg import read_start, read_turn


def main():
    print(read_start(), flush=True)
    turn = 0
    while read_turn():
        turn += 1
        print(f"SURFACE|MSG first {turn}", flush=True)
        print(f"SURFACE|MSG second {turn}", flush=True)


if __name__ == "__main__":
    main()
