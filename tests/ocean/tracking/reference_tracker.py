"""An exact tracker written the plain way, for comparison: every history of the tracked
submarine as (cell, visited cells, mine origins as a multiset, damage since the last
life reading), updated from the text lines a program receives. No cap, no merging, no
bitboards: slow and obviously right."""
from __future__ import annotations

from collections import deque

_DIRS = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}


class ReferenceTracker:
    def __init__(self, rows: list[str]):
        self.water = {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "."}
        self.states = {((x, y), frozenset([(x, y)]), (), 0) for x, y in self.water}
        self.life = 6

    def cells(self) -> set[tuple[int, int]]:
        return {s[0] for s in self.states}

    def _reach(self, cell, target) -> bool:
        seen = {cell: 0}
        queue = deque([cell])
        while queue:
            c = queue.popleft()
            if c == target:
                return True
            if seen[c] == 4:
                continue
            for dx, dy in _DIRS.values():
                n = (c[0] + dx, c[1] + dy)
                if n in self.water and n not in seen:
                    seen[n] = seen[c] + 1
                    queue.append(n)
        return False

    @staticmethod
    def _blast(cell, x, y) -> int:
        dx, dy = abs(cell[0] - x), abs(cell[1] - y)
        return 2 if dx == dy == 0 else 1 if dx <= 1 and dy <= 1 else 0

    @staticmethod
    def _sector(cell) -> int:
        return cell[1] // 5 * 3 + cell[0] // 5 + 1

    def update(self, own_summary: str, sonar: str, opp_summary: str, opp_life: int) -> None:
        """own_summary / opp_summary: summary texts ('NA' or 'A|B|...'), as the referee
        writes them; sonar: 'Y', 'N' or 'NA'."""
        states = self.states
        for action in ([] if own_summary == "NA" else own_summary.split("|")):
            words = action.split(" ")
            if words[0] in ("TORPEDO", "TRIGGER"):
                x, y = int(words[1]), int(words[2])
                states = {(c, v, o, p + self._blast(c, x, y)) for c, v, o, p in states}
            elif words[0] == "SONAR" and sonar != "NA":
                sector = int(words[1])
                states = {s for s in states if (self._sector(s[0]) == sector) == (sonar == "Y")}
        for action in ([] if opp_summary == "NA" else opp_summary.split("|")):
            words = action.split(" ")
            if words[0] == "MOVE":
                dx, dy = _DIRS[words[1]]
                nxt = set()
                for c, v, o, p in states:
                    n = (c[0] + dx, c[1] + dy)
                    if n in self.water and n not in v:
                        nxt.add((n, v | {n}, o, p))
                states = nxt
            elif words[0] == "SILENCE":
                nxt = set(states)
                for c, v, o, p in states:
                    for dx, dy in _DIRS.values():
                        cell, seen = c, v
                        for _ in range(4):
                            cell = (cell[0] + dx, cell[1] + dy)
                            if cell not in self.water or cell in v:
                                break
                            seen = seen | {cell}
                            nxt.add((cell, seen, o, p))
                states = nxt
            elif words[0] == "SURFACE":
                sector = int(words[1])
                states = {(c, frozenset([c]), o, p + 1) for c, v, o, p in states if self._sector(c) == sector}
            elif words[0] == "TORPEDO":
                x, y = int(words[1]), int(words[2])
                states = {(c, v, o, p + self._blast(c, x, y)) for c, v, o, p in states if self._reach(c, (x, y))}
            elif words[0] == "TRIGGER":
                x, y = int(words[1]), int(words[2])
                nxt = set()
                for c, v, o, p in states:
                    for i, origin in enumerate(o):
                        if abs(origin[0] - x) + abs(origin[1] - y) == 1:
                            nxt.add((c, v, o[:i] + o[i + 1:], p + self._blast(c, x, y)))
                states = nxt
            elif words[0] == "MINE":
                states = {(c, v, tuple(sorted(o + (c,))), p) for c, v, o, p in states}
        lost = self.life - opp_life
        states = {(c, v, o, 0) for c, v, o, p in states if (p == lost if opp_life > 0 else p >= self.life)}
        self.states = states
        self.life = opp_life
