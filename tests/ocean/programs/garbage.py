#!/usr/bin/env python3
"""Test bot: answers the start, then prints "HELLO WORLD" every turn."""
import sys

from _cg import read_start, read_turn


def main():
    print(read_start(), flush=True)
    while read_turn():
        print("HELLO WORLD", flush=True)


if __name__ == "__main__":
    main()
