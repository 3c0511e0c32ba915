"""The CodinGame side of the protocol, shared by the tiny test programs here."""
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


def read_turn():
    """Read the 3 turn lines; False once the referee closed our stdin."""
    lines = [sys.stdin.readline() for _ in range(3)]
    return all(lines)
