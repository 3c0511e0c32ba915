#!/usr/bin/env python3
"""knob: a test bot with one tunable parameter, ``skill`` in [0, 1] (default 0.5).

Same bot as knob.c and Knob.java (given the same arguments the three print the same lines).
Parameter sources, each overriding the previous: the environment variable KNOB_SKILL, a
parameters file (``--params-file PATH``: ``name = value`` lines, or a flat JSON object when
the file starts with ``{``), then ``--skill X``. ``--seed S`` (signed 64-bit) seeds its
splitmix64 generator. Values outside [0, 1] are clamped; a value that is not a number, an
unreadable file or an unknown argument prints one line to stderr and exits with code 2.

Each turn, with probability 1 - skill it surfaces (if it moved since its last surface);
otherwise it may fire its charged torpedo (probability skill) at a random water cell within
4 water steps but not next to itself, then moves to the free neighbour with the largest
free area, charging TORPEDO (it surfaces when boxed in).

Test-only extras: ``--flaw none|crash|garbage|timeout`` with ``--flaw-above T`` (default
2.0): when skill > T, on its 3rd turn it exits with code 3 without answering (crash),
prints ``HELLO WORLD`` (garbage) or sleeps 3 s before answering (timeout).
``--start-delay-ms N`` sleeps before the start answer.
"""
import json
import math
import os
import re
import sys
import time

MASK = (1 << 64) - 1
DIRS = (("N", 0, -1), ("S", 0, 1), ("E", 1, 0), ("W", -1, 0))
DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
INTEGER = re.compile(r"[+-]?[0-9]+")
OPTIONS = ("--skill", "--seed", "--params-file", "--flaw", "--flaw-above", "--start-delay-ms")
FLAWS = ("none", "crash", "garbage", "timeout")
WS = " \t\r\n\f\v"


def fail(message):
    print(f"knob: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def random(self):
        """Uniform in [0, 1): the top 53 bits."""
        return (self.next() >> 11) / 9007199254740992.0

    def below(self, n):
        return self.next() % n


def number(text, what):
    """A finite decimal number (the same grammar in all three languages)."""
    text = text.strip(WS)
    if not DECIMAL.fullmatch(text):
        fail(f"{what}: not a number: {text!r}")
    value = float(text)
    if not math.isfinite(value):
        fail(f"{what}: not a finite number: {text!r}")
    return value


def skill_value(text, what):
    return min(1.0, max(0.0, number(text, what)))


def unquote(text):
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def read_params_file(path):
    """The skill a parameters file sets, or None."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        fail(f"cannot read parameters file {path!r}: {exc.strerror or exc}")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = raw.decode("utf-8", errors="replace")
    if text.lstrip(WS).startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError as exc:
            fail(f"bad JSON in {path!r}: {exc}")
        if not isinstance(obj, dict):
            fail(f"{path!r}: not a JSON object")
        if "skill" not in obj:
            return None
        value = obj["skill"]
        if isinstance(value, str):
            return skill_value(value, f"skill in {path}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            fail(f"skill in {path!r}: not a number")
        return min(1.0, max(0.0, float(value)))
    skill = None
    for line in text.split("\n"):
        line = line.split("#", 1)[0].strip(WS)
        if not line or line.startswith("[") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        if unquote(key.strip(WS)) == "skill":
            skill = skill_value(unquote(value.strip(WS)), f"skill in {path}")
    return skill


def parse_args(argv):
    given = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
            if name not in OPTIONS:
                fail(f"unknown argument {arg!r}")
        else:
            name = arg
            if name not in OPTIONS:
                fail(f"unknown argument {arg!r}")
            if i + 1 >= len(argv):
                fail(f"{name} needs a value")
            i += 1
            value = argv[i]
        given[name] = value
        i += 1

    skill = 0.5
    env = os.environ.get("KNOB_SKILL", "")
    if env.strip(WS):
        skill = skill_value(env, "KNOB_SKILL")
    if "--params-file" in given:
        from_file = read_params_file(given["--params-file"])
        if from_file is not None:
            skill = from_file
    if "--skill" in given:
        skill = skill_value(given["--skill"], "--skill")

    seed = 0
    if "--seed" in given:
        text = given["--seed"].strip(WS)
        if not INTEGER.fullmatch(text) or not -(1 << 63) <= int(text) < (1 << 63):
            fail(f"--seed: not a signed 64-bit integer: {given['--seed']!r}")
        seed = int(text)

    flaw = given.get("--flaw", "none")
    if flaw not in FLAWS:
        fail(f"--flaw: one of {', '.join(FLAWS)}, not {flaw!r}")
    flaw_above = number(given.get("--flaw-above", "2.0"), "--flaw-above")
    delay_text = given.get("--start-delay-ms", "0").strip(WS)
    if not INTEGER.fullmatch(delay_text) or int(delay_text) < 0:
        fail(f"--start-delay-ms: not a non-negative integer: {delay_text!r}")
    return skill, seed, flaw, flaw_above, int(delay_text)


def write(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    skill, seed, flaw, flaw_above, start_delay_ms = parse_args(sys.argv[1:])
    rng = SplitMix64(seed)

    first = sys.stdin.readline()
    if not first:
        return 0
    width, height, _my_id = (int(v) for v in first.split()[:3])
    rows = []
    for _ in range(height):
        row = sys.stdin.readline()
        if not row:
            return 0
        rows.append(row.rstrip("\r\n"))
    water = [y < len(rows) and x < len(rows[y]) and rows[y][x] == "." for y in range(height) for x in range(width)]
    neighbours = []
    for c in range(width * height):
        x, y = c % width, c // width
        around = []
        for _d, dx, dy in DIRS:
            nx, ny = x + dx, y + dy
            n = ny * width + nx
            around.append(n if 0 <= nx < width and 0 <= ny < height and water[n] else -1)
        neighbours.append(around)

    def region(start, blocked):
        """Cells reachable from start through water outside blocked, in reading order."""
        seen = {start}
        stack = [start]
        while stack:
            c = stack.pop()
            for n in neighbours[c]:
                if n >= 0 and n not in seen and n not in blocked:
                    seen.add(n)
                    stack.append(n)
        return sorted(seen)

    # Start: a seeded random cell of the largest body of water (the first such body on ties).
    body = []
    done = set()
    for c in range(width * height):
        if water[c] and c not in done:
            cells = region(c, ())
            done.update(cells)
            if len(cells) > len(body):
                body = cells
    start = body[rng.below(len(body))] if body else 0
    if start_delay_ms:
        time.sleep(start_delay_ms / 1000.0)
    write(f"{start % width} {start // width}")

    visited = {start}
    turn = 0
    while True:
        status = sys.stdin.readline()
        if not status or not sys.stdin.readline() or not sys.stdin.readline():
            return 0
        x, y, _my_life, _opp_life, torpedo_cd = (int(v) for v in status.split()[:5])
        turn += 1
        pos = y * width + x
        if pos not in visited:
            visited = {pos}
        if turn == 3 and skill > flaw_above and flaw != "none":
            if flaw == "crash":
                return 3
            if flaw == "garbage":
                write("HELLO WORLD")
                continue
            time.sleep(3.0)

        if rng.random() < 1.0 - skill and len(visited) > 1:
            visited = {pos}
            write("SURFACE")
            continue
        pieces = []
        if torpedo_cd == 0 and rng.random() < skill:
            dist = {pos: 0}
            frontier = [pos]
            for step in range(1, 5):
                nxt = []
                for c in frontier:
                    for n in neighbours[c]:
                        if n >= 0 and n not in dist:
                            dist[n] = step
                            nxt.append(n)
                frontier = nxt
            targets = sorted(c for c in dist if max(abs(c % width - x), abs(c // width - y)) >= 2)
            if targets:
                t = targets[rng.below(len(targets))]
                pieces.append(f"TORPEDO {t % width} {t // width}")
        best, best_area = None, 0
        for k, n in enumerate(neighbours[pos]):
            if n >= 0 and n not in visited:
                area = len(region(n, visited))
                if area > best_area:
                    best, best_area = k, area
        if best is None:
            visited = {pos}
            pieces.append("SURFACE")
        else:
            visited.add(neighbours[pos][best])
            pieces.append(f"MOVE {DIRS[best][0]} TORPEDO")
        write("|".join(pieces))


if __name__ == "__main__":
    try:
        code = main()
    except BrokenPipeError:
        # The referee closed our output: leave quietly (no traceback at exit either).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except (ValueError, IndexError) as exc:
        print(f"knob: bad input from the referee: {exc}", file=sys.stderr, flush=True)
        code = 1
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)
