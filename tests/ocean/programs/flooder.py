#!/usr/bin/env python3
"""Test bot that floods. ``--stderr MB``: writes MB megabytes to stderr before each of its first
two answers (a walker's lines otherwise), then on its first turn writes "last words" to stderr
and exits with code 4. ``--line BYTES``: its start answer is BYTES bytes with no newline, and it
keeps writing them (``--newline``: the long line ends with one)."""
import argparse
import sys

from _cg import read_start, read_turn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stderr", type=float, default=0.0)
    parser.add_argument("--line", type=int, default=0)
    parser.add_argument("--newline", action="store_true")
    args = parser.parse_args()
    start = read_start()
    err = sys.stderr.buffer
    block = (b"flood " * 10922 + b"\n")  # 64 KiB a block
    if args.line:
        out = sys.stdout.buffer
        out.write(b"x" * args.line + (b"\n" if args.newline else b""))
        out.flush()
        while True:
            out.write(b"x" * 65536)
            out.flush()
    for _ in range(int(args.stderr * 16)):
        err.write(block)
    err.flush()
    print(start, flush=True)
    if read_turn():
        err.write(b"last words\n")
        err.flush()
        sys.exit(4)


if __name__ == "__main__":
    main()
