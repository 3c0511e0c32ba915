#!/usr/bin/env python3
"""Test bot: starts a child "sleep 1000", then answers like echo_start.

The child stays in the bot's own process group (no new session).

The child is left running on purpose, so tests can check that closing the bot
kills its whole process group, grandchildren included.
"""
import subprocess
import sys

from _cg import read_start, read_turn


def main():
    # Same process group as this bot (no start_new_session); stdout is not
    # inherited so the child cannot mix into our answers.
    child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    print(f"forker child pid {child.pid}", file=sys.stderr, flush=True)
    print(read_start(), flush=True)
    while read_turn():
        print("SURFACE", flush=True)


if __name__ == "__main__":
    main()
