#!/usr/bin/env python3
"""Test bot: answers the start cell, then "SURFACE" every turn."""
import sys

from _cg import read_start, read_turn


def main():
    print(read_start(), flush=True)
    while read_turn():
        print("SURFACE", flush=True)


if __name__ == "__main__":
    main()
