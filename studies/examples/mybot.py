#!/usr/bin/env python3
"""mybot.py - an example Ocean of Code bot to tune with the lab ("your own bot, in any language").

Python 3, standard library only. It is a complete CodinGame program: paste it into the
CodinGame IDE as it is (map and turns on stdin, one answer per line on stdout, debug on stderr).

Run it by hand against one of the lab's bots (from the repository's root):

    ocean referee --seed 3 --p0 "python3 studies/examples/mybot.py --seed 3" --p1 "ocean bot --name hunter"

and with other constants, e.g.

    ocean referee --seed 3 --p0 "python3 studies/examples/mybot.py --seed 3 --fire_probability 0.4" \
        --p1 "ocean bot --name stealth" --replay game.json

What it does, every turn:
  * keeps the set of cells the opponent can be on, from the opponent's orders (MOVE shifts it,
    SURFACE keeps its sector, TORPEDO keeps the cells within 4 steps of the target, SILENCE
    spreads each cell 0..4 cells in a straight line through water) and from what its own
    torpedoes and sonars learn. It ignores the opponent's visited cells, so the set may be too
    large but never loses the opponent's true cell (if it ever empties, it starts again from
    every water cell);
  * keeps the same set about itself, as the opponent can see it (how well it is hidden);
  * moves to the neighbour that keeps the most free water reachable (flood fill), so it rarely
    has to SURFACE, steering towards or away from the opponent's likely cells;
  * charges TORPEDO, then SILENCE, then SONAR; fires the torpedo (before or after moving) at the
    cell with the best expected damage when the chance it touches the opponent is high enough,
    never hurting itself except for a sure kill; silences when it is too well known; sonars the
    sector that best splits the opponent's cells.

The three tunable constants (command-line arguments --NAME VALUE; defaults deliberately mediocre):
  --fire_probability P   float in [0, 1], default 0.9. Fire a torpedo only when the chance that
                         its blast touches the opponent (the opponent is on the target cell or
                         one of its 8 neighbours, over the cells it can be on) is at least P.
                         Low: fires often on thin odds (and reveals itself); high: rarely fires.
  --approach A           float in [-2, 2], default 0.0. How much each cell of distance to the
                         opponent's likely cells costs when choosing a move (positive: close in,
                         negative: keep away). Free space reachable always weighs 1 per cell.
  --silence_below N      integer in [0, 100], default 0. SILENCE (when charged) as soon as the
                         opponent can place us on at most N cells; 0 never silences.
Also --seed S (integer, default 0): seed of the bot's random choices (random.Random(S)); a game
is deterministic given the seeds and the constants. --turn-ms T (integer, default 50): the time it
has per turn, as the lab tells it ({turn_ms}); this bot's search is a fixed amount of work, so it
only reports on stderr how much of T each turn took (a bot on a timer would stop thinking at a
share of T: see mybot.c's --think). --help prints this text.
"""
import random
import sys
import time

W = 15
N_CELLS = W * W
DIRS = (("N", 0, -1), ("E", 1, 0), ("S", 0, 1), ("W", -1, 0))
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
SPACE_CAP = 40          # free cells beyond this many are all "enough room"
CONSTANTS = (           # name, type, default, low, high
    ("fire_probability", float, 0.9, 0.0, 1.0),
    ("approach", float, 0.0, -2.0, 2.0),
    ("silence_below", int, 0, 0, 100),
)


def parse_args(argv):
    values = {name: default for name, _, default, _, _ in CONSTANTS}
    values["seed"] = 0
    values["turn_ms"] = 50
    kinds = {name: kind for name, kind, _, _, _ in CONSTANTS}
    kinds["seed"] = int
    kinds["turn_ms"] = int
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            sys.stdout.write(__doc__)
            sys.exit(0)
        name = arg[2:].replace("-", "_") if arg.startswith("--") else None
        if name not in kinds or i + 1 >= len(argv):
            sys.stderr.write("mybot.py: bad argument %r (see --help)\n" % arg)
            sys.exit(2)
        try:
            values[name] = kinds[name](float(argv[i + 1])) if kinds[name] is int else float(argv[i + 1])
        except ValueError:
            sys.stderr.write("mybot.py: bad value %r for %s\n" % (argv[i + 1], arg))
            sys.exit(2)
        i += 2
    for name, _, _, low, high in CONSTANTS:
        values[name] = min(max(values[name], low), high)
    return values


class Board:
    """The map and everything precomputed on it (cells are y * 15 + x)."""

    def __init__(self, rows):
        self.water = [rows[c // W][c % W] == "." for c in range(N_CELLS)]
        self.cells = [c for c in range(N_CELLS) if self.water[c]]
        # step[d][c]: the cell one step in direction d from c, or -1 (off the map or island).
        self.step = {}
        for d, dx, dy in DIRS:
            table = [-1] * N_CELLS
            for c in self.cells:
                x, y = c % W + dx, c // W + dy
                if 0 <= x < W and 0 <= y < W and self.water[y * W + x]:
                    table[c] = y * W + x
            self.step[d] = table
        self.nbrs = [[self.step[d][c] for d, _, _ in DIRS if self.step[d][c] >= 0] for c in range(N_CELLS)]
        # blast[c]: the cells a blast at c touches (c and its 8 neighbours, water or not).
        self.blast = []
        for c in range(N_CELLS):
            x, y = c % W, c // W
            self.blast.append([yy * W + xx for yy in range(y - 1, y + 2) for xx in range(x - 1, x + 2)
                               if 0 <= xx < W and 0 <= yy < W])
        # reach[c]: water cells within 4 steps of c through water (torpedo range).
        self.reach = [self._within(c, 4) if self.water[c] else [] for c in range(N_CELLS)]
        self.reach_mask = [sum(1 << n for n in r) for r in self.reach]
        self.blast_mask = [sum(1 << n for n in bl) for bl in self.blast]
        self.sector = [(c % W) // 5 + (c // W) // 5 * 3 + 1 for c in range(N_CELLS)]

    def _within(self, start, radius):
        seen = {start: 0}
        frontier = [start]
        for r in range(radius):
            nxt = []
            for c in frontier:
                for n in self.nbrs[c]:
                    if n not in seen:
                        seen[n] = r + 1
                        nxt.append(n)
            frontier = nxt
        return list(seen)

    def flood(self, start, blocked):
        """Number of free cells reachable from start (start included), cells in blocked excluded."""
        seen = set(blocked)
        seen.add(start)
        stack = [start]
        count = 0
        while stack:
            c = stack.pop()
            count += 1
            for n in self.nbrs[c]:
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        return count

    def largest_area(self):
        seen = set()
        best = []
        for c in self.cells:
            if c in seen:
                continue
            comp = [c]
            seen.add(c)
            i = 0
            while i < len(comp):
                for n in self.nbrs[comp[i]]:
                    if n not in seen:
                        seen.add(n)
                        comp.append(n)
                i += 1
            if len(comp) > len(best):
                best = comp
        return best


class Tracker:
    """Where a submarine can be, as seen from its orders: a set of (cell, visited) states, the
    visited cells a bit mask. When the states get too many, those on the same cell are merged
    (keeping only the visited cells all of them share), so the set stays a sound superset."""

    CAP = 800

    def __init__(self, board):
        self.board = board
        self.states = {(c, 1 << c) for c in board.cells}

    @property
    def cells(self):
        return {c for c, _ in self.states}

    def _keep(self, states):
        # Never empty: if the information contradicts itself, start again from every water cell.
        self.states = set(states) or {(c, 1 << c) for c in self.board.cells}
        if len(self.states) > self.CAP:
            self.merge()

    def merge(self):
        masks = {}
        for c, m in self.states:
            masks[c] = masks[c] & m if c in masks else m
        self.states = set(masks.items())

    def order(self, piece):
        """Apply one order of a summary line (MOVE N, SURFACE 3, TORPEDO 4 5, SILENCE, ...)."""
        words = piece.split()
        if not words:
            return
        b = self.board
        if words[0] == "MOVE" and len(words) >= 2 and words[1] in b.step:
            table = b.step[words[1]]
            self._keep((table[c], m | 1 << table[c]) for c, m in self.states
                       if table[c] >= 0 and not m >> table[c] & 1)
        elif words[0] == "SURFACE" and len(words) >= 2:
            s = int(words[1])
            self._keep((c, 1 << c) for c, _ in self.states if b.sector[c] == s)
        elif words[0] == "TORPEDO" and len(words) >= 3:
            t = int(words[2]) * W + int(words[1])
            if 0 <= t < N_CELLS and b.water[t]:
                near = b.reach_mask[t]
                self._keep(st for st in self.states if near >> st[0] & 1)
        elif words[0] == "SILENCE":
            if len(self.states) > 250:
                self.merge()
            out = set(self.states)
            for c, m in self.states:
                for d, _, _ in DIRS:
                    table = b.step[d]
                    n, mm = c, m
                    for _ in range(4):
                        n = table[n]
                        if n < 0 or mm >> n & 1:
                            break
                        mm |= 1 << n
                        out.add((n, mm))
            self._keep(out)

    def blast(self, target, damage):
        """A blast at target took `damage` lives from this submarine."""
        near = self.board.blast_mask[target]
        if damage >= 2:
            self._keep(st for st in self.states if st[0] == target)
        elif damage == 1:
            self._keep(st for st in self.states if st[0] != target and near >> st[0] & 1)
        else:
            self._keep(st for st in self.states if not near >> st[0] & 1)

    def sonar(self, sector, yes):
        s = self.board.sector
        self._keep(st for st in self.states if (s[st[0]] == sector) == yes)


class Bot:
    def __init__(self, rows, params):
        self.p = params
        self.rng = random.Random(params["seed"])
        self.board = Board(rows)
        self.opp = Tracker(self.board)   # where the opponent can be
        self.me = Tracker(self.board)    # where the opponent can think we are
        self.visited = set()
        self.opp_life = 6
        self.my_fire = []                # our blasts last turn (cells), to learn from
        self.my_sonar = None             # sector of our sonar last turn
        self.life_after = 6              # our life at the end of our last turn
        self.mines = set()               # cells of our unexploded mines
        self.turn = 0

    def start(self):
        area = self.board.largest_area()
        c = self.rng.choice(sorted(area))
        self.visited = {c}
        return "%d %d" % (c % W, c // W)

    # ---- reading the turn -------------------------------------------------------------
    def read(self, first, sonar_line, opp_line):
        x, y, life, opp_life, torpedo_cd, sonar_cd, silence_cd, mine_cd = (int(v) for v in first.split())
        self.pos = y * W + x
        self.life = life
        self.cds = {"TORPEDO": torpedo_cd, "SONAR": sonar_cd, "SILENCE": silence_cd, "MINE": mine_cd}
        orders = [p.strip() for p in opp_line.split("|")] if opp_line.strip() != "NA" else []
        words = [p.split()[0] for p in orders if p.split()]
        # What our last turn learned: the opponent's position then is before its orders.
        if self.my_sonar is not None and sonar_line.strip() in ("Y", "N"):
            self.opp.sonar(self.my_sonar, sonar_line.strip() == "Y")
        if len(self.my_fire) == 1 and "TORPEDO" not in words and "TRIGGER" not in words:
            lost = self.opp_life - opp_life - (1 if "SURFACE" in words else 0)
            if 0 <= lost <= 2:
                self.opp.blast(self.my_fire[0], lost)
        # What the opponent's torpedo taught it about us (it sees our life as we do).
        shots = [p.split() for p in orders if p.startswith("TORPEDO")]
        if len(shots) == 1 and len(shots[0]) == 3 and "TRIGGER" not in words:
            lost = self.life_after - life
            if 0 <= lost <= 2:
                self.me.blast(int(shots[0][2]) * W + int(shots[0][1]), lost)
        self.my_fire = []
        self.my_sonar = None
        self.opp_life = opp_life
        for piece in orders:
            self.opp.order(piece)

    # ---- deciding -----------------------------------------------------------------------
    def best_shot(self, origin):
        """(touch chance, expected damage, target) of the best torpedo from origin, or None."""
        cand = self.cand
        n = len(cand)
        b = self.board
        best = None
        for t in b.reach[origin]:
            hit = 0
            direct = 1 if t in cand else 0
            for c in b.blast[t]:
                if c in cand:
                    hit += 1
            if hit == 0:
                continue
            touch = hit / n
            expected = (hit + direct) / n
            self_damage = self.self_damage(origin, t)
            if self_damage:
                # Only a sure kill is worth hurting ourselves, and only if we survive it.
                sure_kill = (n == 1 and direct and self.opp_life <= 2) or (touch == 1.0 and self.opp_life <= 1)
                if not (sure_kill and self.life > self_damage):
                    continue
            if touch + 1e-9 < self.p["fire_probability"]:
                continue
            key = (expected, touch, -self_damage)
            if best is None or key > best[0]:
                best = (key, touch, expected, t)
        return None if best is None else best[1:]

    def best_trigger(self, pos):
        """The mine worth exploding now (touch chance high enough, never near us), or None."""
        cand = self.cand
        n = len(cand)
        best = None
        for m in self.mines:
            if pos in self.board.blast[m]:
                continue
            hit = sum(1 for c in self.board.blast[m] if c in cand)
            if hit and hit / n + 1e-9 >= self.p["fire_probability"]:
                expected = (hit + (1 if m in cand else 0)) / n
                if best is None or expected > best[0]:
                    best = (expected, m)
        return None if best is None else best[1]

    def opp_centre(self):
        cells = self.cand
        n = len(cells)
        return sum(c % W for c in cells) / n, sum(c // W for c in cells) / n

    def charge(self):
        for power in ("TORPEDO", "SILENCE", "MINE", "SONAR"):
            if self.cds[power] > 0:
                return power
        return "TORPEDO"

    def decide(self):
        b = self.board
        self.cand = self.opp.cells
        self.new_mine = None
        pieces = []
        trigger = self.best_trigger(self.pos)
        if trigger is not None:
            pieces.append("TRIGGER %d %d" % (trigger % W, trigger // W))
            self.mines.discard(trigger)
            self.my_fire.append(trigger)
        surfaced = None
        hurt = 0
        pos = self.pos
        torpedo_ready = self.cds["TORPEDO"] == 0
        moves = [(d, b.step[d][pos]) for d, _, _ in DIRS if b.step[d][pos] >= 0 and b.step[d][pos] not in self.visited]
        if not moves:
            pieces.append("SURFACE")
            surfaced = "SURFACE %d" % b.sector[pos]
            self.visited = {pos}
            moves = [(d, b.step[d][pos]) for d, _, _ in DIRS if b.step[d][pos] >= 0]
        fired = None
        if torpedo_ready:
            shot = self.best_shot(pos)
            if shot is not None:
                fired = shot
        cx, cy = self.opp_centre()
        known = len(self.cand) < 60
        best = None
        for d, n in moves:
            space = min(b.flood(n, self.visited), SPACE_CAP)
            dist = abs(n % W - cx) + abs(n // W - cy)
            score = space - (self.p["approach"] * dist if known else 0.0)
            if torpedo_ready and fired is None:
                shot = self.best_shot(n)
                if shot is not None:
                    score += 10 * shot[1]
            score += self.rng.random() * 0.01
            if best is None or score > best[0]:
                best = (score, d, n)
        if fired is not None:
            pieces.append("TORPEDO %d %d" % (fired[2] % W, fired[2] // W))
            hurt += self.self_damage(pos, fired[2])
            self.my_fire.append(fired[2])
            self.cds["TORPEDO"] = 3
        if best is not None:
            _, d, n = best
            power = self.charge()
            pieces.append("MOVE %s %s" % (d, power))
            self.cds[power] = max(0, self.cds[power] - 1)
            self.visited.add(n)
            pos = n
            if torpedo_ready and fired is None:
                shot = self.best_shot(pos)
                if shot is not None:
                    pieces.append("TORPEDO %d %d" % (shot[2] % W, shot[2] // W))
                    hurt += self.self_damage(pos, shot[2])
                    self.my_fire.append(shot[2])
        # SILENCE when the opponent knows too well where we are (judged after this turn's orders).
        if self.cds["SILENCE"] == 0 and self.p["silence_below"] > 0:
            probe = Tracker(b)
            probe.states = set(self.me.states)
            for piece in pieces:
                probe.order(surfaced if piece == "SURFACE" else piece)
            if len(probe.cells) <= self.p["silence_below"]:
                jump = self.silence_jump(pos)
                if jump is not None:
                    d, k, pos = jump
                    pieces.append("SILENCE %s %d" % (d, k))
        if self.cds["MINE"] == 0:
            spots = [n for n in b.nbrs[pos] if n not in self.mines]
            if spots:
                n = self.rng.choice(spots)
                d = [d for d, _, _ in DIRS if b.step[d][pos] == n][0]
                pieces.append("MINE %s" % d)
                self.new_mine = n
        if self.cds["SONAR"] == 0 and len(self.cand) > 1:
            sector = self.sonar_sector()
            if sector is not None:
                pieces.append("SONAR %d" % sector)
                self.my_sonar = sector
        for piece in pieces:
            self.me.order(surfaced if piece == "SURFACE" else piece)
        if self.new_mine is not None:
            self.mines.add(self.new_mine)
        self.life_after = self.life - hurt - (1 if surfaced else 0)
        return "|".join(pieces)

    def self_damage(self, origin, target):
        return 2 if target == origin else (1 if origin in self.board.blast[target] else 0)

    def silence_jump(self, pos):
        """(direction, steps, cell) of the SILENCE that keeps the most room, preferring long jumps."""
        b = self.board
        best = None
        for d, _, _ in DIRS:
            table = b.step[d]
            cell = pos
            path = []
            for k in range(1, 5):
                cell = table[cell]
                if cell < 0 or cell in self.visited:
                    break
                path.append(cell)
                blocked = self.visited.union(path)
                space = min(b.flood(cell, blocked), SPACE_CAP)
                score = space + k + self.rng.random() * 0.01
                if best is None or score > best[0]:
                    best = (score, d, k, cell, list(path))
        if best is None:
            return None
        _, d, k, cell, path = best
        self.visited.update(path)
        return d, k, cell

    def sonar_sector(self):
        counts = [0] * 10
        for c in self.cand:
            counts[self.board.sector[c]] += 1
        n = len(self.cand)
        best = min(range(1, 10), key=lambda s: abs(counts[s] - n / 2))
        return best if 0 < counts[best] < n else None


def main():
    params = parse_args(sys.argv[1:])
    _, height, _ = (int(v) for v in sys.stdin.readline().split())
    rows = [sys.stdin.readline().rstrip("\n") for _ in range(height)]
    bot = Bot(rows, params)
    print(bot.start(), flush=True)
    while True:
        first = sys.stdin.readline()
        if not first:
            return
        sonar_line = sys.stdin.readline()
        opp_line = sys.stdin.readline()
        t0 = time.perf_counter()
        bot.read(first, sonar_line, opp_line)
        line = bot.decide()
        print(line, flush=True)
        bot.turn += 1
        sys.stderr.write("turn %d: %s | opp cells %d | %.1f ms of %d\n"
                         % (bot.turn, line, len(bot.opp.cells), (time.perf_counter() - t0) * 1000, params["turn_ms"]))


if __name__ == "__main__":
    main()
