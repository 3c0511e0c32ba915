"""Slow, string-level reference implementation of Ocean of Code (test oracle).

This module re-implements the whole game exactly as the official CodinGame Java
referee (CodinGameCommunity/ocean-of-code, highest league) plays it, using
nothing but plain Python strings, lists and ints.  It is deliberately naive:
every bot output line is re-parsed the way the Java code parses it
(``String.trim``, ``String.split(" ")``, ``Integer.parseInt``), and the game
loop mirrors the referee's frame loop (one action per frame, the start being
frame 1, at most 1000 frames).  It exists so that the fast engine in
``ocean/`` can be compared against an independent implementation; it must not
import anything from ``ocean/``.

Public API
----------
``java_random_ints(seed, bounds)``
    successive ``java.util.Random(seed).nextInt(b)`` values.
``reference_map(seed)``
    the 15 map rows (``'x'`` island, ``'.'`` water) for a 64-bit seed.
``ReferenceGame(seed)``
    a game; drive it with ``init_lines`` / ``start`` / ``turn_input`` / ``play``.

Typical driving loop::

    game = ReferenceGame(seed)
    game.start(bot0.init(game.init_lines(0)), bot1.init(game.init_lines(1)))
    while not game.over:
        lines = game.turn_input()
        game.play(bots[game.active].answer(lines))
    game.winner, game.scores, game.reason
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------
# java.util.Random
# ---------------------------------------------------------------------------

_MULTIPLIER = 0x5DEECE66D
_ADDEND = 0xB
_MASK48 = (1 << 48) - 1
_INT_MIN = -(1 << 31)
_INT_MAX = (1 << 31) - 1


class JavaRandom:
    """A bit-exact port of ``java.util.Random`` (only what the referee uses)."""

    def __init__(self, seed: int):
        # Java's seed is a long; only its low 48 bits matter after scrambling.
        self._state = (seed ^ _MULTIPLIER) & _MASK48

    def next_bits(self, bits: int) -> int:
        """``Random.next(bits)``: advance the LCG, return the top ``bits`` as a signed int."""
        self._state = (self._state * _MULTIPLIER + _ADDEND) & _MASK48
        value = self._state >> (48 - bits)
        if value > _INT_MAX:  # (int) cast of a 32-bit result
            value -= 1 << 32
        return value

    def next_int(self, bound: int) -> int:
        """``Random.nextInt(bound)`` for ``0 < bound <= Integer.MAX_VALUE``."""
        if not 0 < bound <= _INT_MAX:
            raise ValueError("bound must be positive and fit in a Java int")
        r = self.next_bits(31)
        m = bound - 1
        if bound & m == 0:  # power of two
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            # Java: ``u - r + m < 0`` in 32-bit arithmetic, i.e. the sum overflowed.
            if u - r + m <= _INT_MAX:
                return r
            u = self.next_bits(31)


def java_random_ints(seed: int, bounds: list[int]) -> list[int]:
    """Successive ``new java.util.Random(seed).nextInt(b)`` values, one per bound."""
    rnd = JavaRandom(seed)
    return [rnd.next_int(b) for b in bounds]


# ---------------------------------------------------------------------------
# Java string helpers
# ---------------------------------------------------------------------------

# Zero code point of every run of ten Unicode Nd digits in the BMP; exactly the
# characters for which Java 17's ``Character.digit(c, 10)`` is non-negative
# (checked against the JDK: 37 runs, 370 characters).  Hard-coded so that the
# result does not depend on the Unicode version of the running Python.
_JAVA_DIGIT_ZEROS = (
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6,
    0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0,
    0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620,
    0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
)


def java_digit(ch: str) -> int:
    """``Character.digit(ch, 10)``: the decimal value of a (BMP) digit, else -1."""
    code = ord(ch)
    for zero in _JAVA_DIGIT_ZEROS:
        if zero <= code < zero + 10:
            return code - zero
    return -1


def java_trim(s: str) -> str:
    """``String.trim()``: strip every char <= U+0020 at both ends (nothing else)."""
    start, end = 0, len(s)
    while start < end and ord(s[start]) <= 0x20:
        start += 1
    while end > start and ord(s[end - 1]) <= 0x20:
        end -= 1
    return s[start:end]


def java_split_space(s: str) -> list[str]:
    """``s.split(" ")``: split on each plain space, keep inner and leading empty
    strings, drop trailing empty strings; a string without a space is returned whole."""
    if " " not in s:
        return [s]
    parts = s.split(" ")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def java_parse_int(s: str) -> int:
    """``Integer.parseInt(s)``; raises ``ValueError`` where Java throws
    ``NumberFormatException``.  Optional leading ``+``/``-``, then one or more
    decimal digits (any BMP Nd digit, like Java), result within 32 bits."""
    if not s:
        raise ValueError("empty")
    negative = False
    i = 0
    if s[0] < "0":  # Java compares the first char against '0'
        if s[0] == "-":
            negative = True
        elif s[0] != "+":
            raise ValueError(s)
        if len(s) == 1:
            raise ValueError(s)
        i = 1
    value = 0
    for ch in s[i:]:
        digit = java_digit(ch)
        if digit < 0:
            raise ValueError(s)
        value = value * 10 + digit
        if value > 1 << 31:  # already out of range either way; stop early
            raise ValueError(s)
    if negative:
        value = -value
    if not _INT_MIN <= value <= _INT_MAX:
        raise ValueError(s)
    return value


# ---------------------------------------------------------------------------
# Map generation
# ---------------------------------------------------------------------------

SIZE = 15

# Neighbour patterns NW,N,NE,E,SE,S,SW,W accepted by the repair pass ('.' = any).
TILE_PATTERNS = (
    "11.0.111", ".11111.0", ".0.0.111", "11.0.0.1", ".111.0.0", ".0.111.0",
    "1111.0.1", ".0.11111", "11111111", "11111101", "11110111", "11011111", "01111111",
)


def _tile_matches(pattern: str, neighbours: str) -> bool:
    """Java ``neighbours.matches(pattern)`` for these 8-char patterns."""
    return len(pattern) == len(neighbours) and all(
        p == "." or p == c for p, c in zip(pattern, neighbours)
    )


def _repair_pass(grid: list[list[bool]]) -> bool:
    """One scan of the referee's ``checkError``; ``grid[x][y]``.

    Returns True if every island cell matched a pattern.  Otherwise marks the
    3x3 block (clamped into the map) around the first bad cell and returns False.
    """

    def solid(x: int, y: int) -> str:
        outside = not (0 <= x < SIZE and 0 <= y < SIZE)
        return "1" if outside or grid[x][y] else "0"

    for y in range(SIZE):
        for x in range(SIZE):
            if not grid[x][y]:
                continue
            neighbours = "".join((
                solid(x - 1, y - 1), solid(x, y - 1), solid(x + 1, y - 1), solid(x + 1, y),
                solid(x + 1, y + 1), solid(x, y + 1), solid(x - 1, y + 1), solid(x - 1, y),
            ))
            if any(_tile_matches(p, neighbours) for p in TILE_PATTERNS):
                continue
            for yy in (max(y - 1, 0), y, min(y + 1, SIZE - 1)):
                for xx in (max(x - 1, 0), x, min(x + 1, SIZE - 1)):
                    grid[xx][yy] = True
            return False
    return True


def reference_map(seed: int) -> list[str]:
    """The referee's map for ``seed``: 15 strings (rows y=0..14, chars x=0..14)."""
    rnd = JavaRandom(seed)
    seeded = [[False] * SIZE for _ in range(SIZE)]  # [x][y]
    i = 0
    # ``for (i = 0; i < nextInt(26) + 5; i++)``: the bound is redrawn at every test.
    while i < rnd.next_int(26) + 5:
        x = rnd.next_int(15)
        y = rnd.next_int(15)
        seeded[x][y] = True
        i += 1

    grid = [column[:] for column in seeded]
    for x in range(SIZE):
        for y in range(SIZE):
            if seeded[x][y]:  # grow from the seeded cells only
                if y - 1 >= 0:
                    grid[x][y - 1] = True
                if x + 1 < SIZE:
                    grid[x + 1][y] = True
                    if y - 1 >= 0:
                        grid[x + 1][y - 1] = True

    while not _repair_pass(grid):
        pass

    return ["".join("x" if grid[x][y] else "." for x in range(SIZE)) for y in range(SIZE)]


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------

POWERS = ("TORPEDO", "SONAR", "SILENCE", "MINE")  # also the cooldown order of the input
POWER_MAX = {"TORPEDO": 3, "SONAR": 4, "SILENCE": 6, "MINE": 3}
DIRECTIONS = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}
KNOWN_COMMANDS = ("MOVE", "SURFACE", "TORPEDO", "SONAR", "SILENCE", "MINE", "TRIGGER")
MAX_TURNS = 598        # the referee's ``turn > 598`` ends the game
MAX_ACTIONS = 999      # frames 2..1000 each run one action; frame 1 is the start
START_LIVES = 6
TORPEDO_RANGE = 4
_START_RE = re.compile(r"[0-9]{1,2} [0-9]{1,2}")


class Disqualified(Exception):
    """Raised where the referee throws a ``GameException`` (the message is kept)."""


class Action:
    """One cleaned piece of an output line: its activator and full (trimmed) text."""

    __slots__ = ("activator", "command")

    def __init__(self, activator: str, command: str):
        self.activator = activator
        self.command = command

    def __repr__(self) -> str:
        return f"Action({self.command!r})"


class Mine:
    """A mine of one player: ``active`` once its owner's next turn has begun."""

    __slots__ = ("pos", "active", "blown")

    def __init__(self, pos: tuple[int, int]):
        self.pos = pos
        self.active = False
        self.blown = False

    def __repr__(self) -> str:
        return f"Mine({self.pos}, active={self.active}, blown={self.blown})"


def sector_of(pos: tuple[int, int]) -> int:
    """``ceil((x+1)/5) + floor(y/5)*3`` (1..9 inside the map)."""
    x, y = pos
    return -(-(x + 1) // 5) + (y // 5) * 3


def clean_actions(line: str) -> list[Action]:
    """``PlayerAction.cleanActions``: split on '|', trim, skip empty pieces,
    disqualify on a repeated activator (MSG excepted)."""
    seen: set[str] = set()
    actions = []
    for piece in line.split("|"):
        command = java_trim(piece)
        if command == "":
            continue
        space = command.find(" ")
        activator = command if space < 0 else command[:space]
        if activator in seen and activator != "MSG":
            raise Disqualified("Two equal commands executed.")
        seen.add(activator)
        actions.append(Action(activator, command))
    return actions


class ReferenceGame:
    """One game of Ocean of Code, played exactly like the Java referee.

    State attributes (per player index 0/1 where a list):
    ``rows``, ``lives``, ``positions`` ((x, y) or None before the start),
    ``charges`` (dicts TORPEDO/SONAR/SILENCE/MINE), ``visited`` (sets of (x, y)),
    ``mines`` (lists of :class:`Mine`), ``summaries`` (executed actions of the
    player's last turn), ``sonar_results``, ``queues`` (pending actions),
    ``active``, ``turns`` (player-turns started, 0..598), ``actions_executed``,
    ``over``, ``winner``, ``scores``, ``reason``, ``disqualified``,
    ``referee_scores`` (see :meth:`_end`).
    """

    def __init__(self, seed: int):
        self.seed = seed
        self.rows: list[str] = reference_map(seed)
        self.lives = [START_LIVES, START_LIVES]
        self.positions: list[tuple[int, int] | None] = [None, None]
        self.charges = [{p: 0 for p in POWERS} for _ in range(2)]
        self.visited: list[set[tuple[int, int]]] = [set(), set()]
        self.mines: list[list[Mine]] = [[], []]
        self.summaries: list[list[str]] = [[], []]
        self.sonar_results = ["NA", "NA"]
        self.queues: list[list[Action]] = [[], []]
        self.active = 0
        self.turns = 0
        self.actions_executed = 0
        self.started = False
        self.over = False
        self.winner = -1
        self.scores = [START_LIVES, START_LIVES]
        self.reason = ""
        self.disqualified: list[str | None] = [None, None]
        # What the referee's score board holds (updated after every good frame).
        self._board = [START_LIVES, START_LIVES]
        self.referee_scores = list(self._board)

    # -- map helpers ------------------------------------------------------

    def is_water(self, x: int, y: int) -> bool:
        """``GridModel.isEmpty``: inside the map and not an island."""
        return 0 <= x < SIZE and 0 <= y < SIZE and self.rows[y][x] == "."

    def torpedo_distance(self, src: tuple[int, int], dst: tuple[int, int]) -> int | None:
        """Length of the shortest 4-neighbour water path (islands block, visited
        cells do not), or None if ``dst`` is not water or unreachable."""
        if not self.is_water(*dst):
            return None
        dist = {src: 0}
        frontier = [src]
        while frontier:
            nxt = []
            for cell in frontier:
                if cell == dst:
                    return dist[cell]
                x, y = cell
                for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if (nx, ny) not in dist and self.is_water(nx, ny):
                        dist[(nx, ny)] = dist[cell] + 1
                        nxt.append((nx, ny))
            frontier = nxt
        return None

    # -- protocol ---------------------------------------------------------

    def init_lines(self, player: int) -> list[str]:
        """The initial input of ``player``: ``15 15 <id>`` then the map rows."""
        return [f"{SIZE} {SIZE} {player}"] + list(self.rows)

    def start(self, answer0: str, answer1: str) -> None:
        """Frame 1: read both start answers (player 1 is asked even if 0 failed)."""
        if self.started:
            raise RuntimeError("start() called twice")
        self.started = True
        for player, answer in ((0, answer0), (1, answer1)):
            try:
                self._place(player, answer)
            except Disqualified as exc:
                self.lives[player] = -1
                self._board[player] = -1
                self.disqualified[player] = str(exc)
        if any(d is not None for d in self.disqualified):
            self._end("disqualified")
            return
        self._next_turn()

    def turn_input(self) -> list[str]:
        """The three input lines of the active player for the turn about to be played."""
        self._require_running()
        me, opp = self.active, 1 - self.active
        x, y = self.positions[me]
        cooldowns = " ".join(str(POWER_MAX[p] - self.charges[me][p]) for p in POWERS)
        return [
            f"{x} {y} {self.lives[me]} {self.lives[opp]} {cooldowns}",
            self.sonar_results[me],
            "|".join(self.summaries[opp]) if self.summaries[opp] else "NA",
        ]

    def play(self, line: str) -> None:
        """Run the active player's whole turn for its output ``line`` (no newline),
        then advance to the next turn (or end the game)."""
        self._require_running()
        me = self.active
        # PlayerModel.handleRoundInput
        self.mines[me] = [m for m in self.mines[me] if not m.blown]
        for mine in self.mines[me]:
            mine.active = True
        self.sonar_results[me] = "NA"
        self.summaries[me] = []
        try:
            self.queues[me] = clean_actions(line)
            if not self._drop_leading(me):
                self.queues[me].append(Action("SURFACE", "SURFACE"))
            self._perform(me)  # the turn-start frame runs the first action
            self._frame_done()
            while self.queues[me]:
                if not self._take_frame(turn_boundary=False):
                    return
                if self._someone_dead():
                    self._end("life")
                    return
                self._perform(me)
                self._frame_done()
        except Disqualified as exc:
            self._disqualify(me, str(exc))
            return
        self._next_turn()

    # -- game loop --------------------------------------------------------

    def _require_running(self) -> None:
        if not self.started:
            raise RuntimeError("the game has not started")
        if self.over:
            raise RuntimeError("the game is over")

    def _someone_dead(self) -> bool:
        return self.lives[0] <= 0 or self.lives[1] <= 0

    def _take_frame(self, turn_boundary: bool) -> bool:
        """Check that the referee has a frame left for the next ``onRound``.

        Every frame that does not end the game executes exactly one action, so
        frames used == ``actions_executed``.  With none left the game ends (frame
        cap); the reason then names what would have ended it in that frame anyway
        (lives first, then the turn limit, else ``maxframes``).
        """
        if self.actions_executed >= MAX_ACTIONS:
            if self._someone_dead():
                self._end("life")
            elif turn_boundary and self.turns >= MAX_TURNS:
                self._end("maxturns")
            else:
                self._end("maxframes")
            return False
        return True

    def _frame_done(self) -> None:
        """``updateScore()`` at the end of a frame that did not disqualify."""
        self._board = list(self.lives)

    def _next_turn(self) -> None:
        """The ``Game.onRound`` frame that begins the next player-turn."""
        if not self._take_frame(turn_boundary=True):
            return
        if self._someone_dead():
            self._end("life")
            return
        if self.turns == 0:
            self.turns = 1
            self.active = 0
            return
        if self.turns >= MAX_TURNS:
            self._end("maxturns")
            return
        self.turns += 1
        self.active = 1 - self.active

    def _disqualify(self, player: int, message: str) -> None:
        self.lives[player] = -1
        self._board[player] = -1
        self.disqualified[player] = message
        self._end("disqualified")

    def _end(self, reason: str) -> None:
        """End the game.  ``scores`` are the final lives (-1 when disqualified).

        ``referee_scores`` is what the Java referee's score board holds: the same,
        except that when a player is disqualified in a frame that also changed
        lives (e.g. ``TORPEDO 3 5|FOO``), the opponent keeps its life as of the
        end of the previous frame (the referee skips ``updateScore`` then).
        """
        self.over = True
        self.reason = reason
        self.scores = list(self.lives)
        self.referee_scores = list(self._board) if reason == "disqualified" else list(self.lives)
        if self.scores[0] > self.scores[1]:
            self.winner = 0
        elif self.scores[1] > self.scores[0]:
            self.winner = 1
        else:
            self.winner = -1

    # -- start ------------------------------------------------------------

    def _place(self, player: int, answer: str) -> None:
        """``PlayerModel.initialize``: parse and check the start cell."""
        if not _START_RE.fullmatch(answer):
            raise Disqualified("Cannot read initial coordinates. Expected format: 'X Y'")
        x_text, y_text = answer.split(" ")
        pos = (int(x_text), int(y_text))
        if not self.is_water(*pos):
            raise Disqualified("Invalid coordinates!")
        self.positions[player] = pos
        self.visited[player] = {pos}

    # -- action queue -----------------------------------------------------

    def _drop_leading(self, player: int) -> bool:
        """``hasValidCommandAndRemoveInvalid``: drop leading actions that cannot
        execute and MSGs; disqualify on an unknown activator.  True if an
        executable action is now first."""
        queue = self.queues[player]
        while queue:
            action = queue[0]
            if action.activator in KNOWN_COMMANDS:
                if self._can_execute(player, action):
                    return True
                queue.pop(0)
            elif action.activator == "MSG":
                queue.pop(0)
            else:
                raise Disqualified("Unknown command: " + action.command)
        return False

    def _perform(self, player: int) -> None:
        """``performRoundAction``: execute the first action, then drop invalid ones."""
        action = self.queues[player].pop(0)
        self._execute(player, action)
        self.actions_executed += 1
        self._drop_leading(player)

    # -- commands ---------------------------------------------------------

    @staticmethod
    def _direction(words: list[str], command: str, what: str = "move") -> str:
        """``Direction.getDir(words[1])`` (missing word -> disqualified too)."""
        if len(words) < 2:
            raise Disqualified(f"Invalid {what} command: " + command)
        if words[1] not in DIRECTIONS:
            raise Disqualified(f"Invalid direction: {words[1]}. Legal values are: N, S, E or W.")
        return words[1]

    @staticmethod
    def _move_power(words: list[str]) -> str | None:
        """MOVE's optional power: only looked at with exactly 3 words (and trimmed)."""
        if len(words) != 3:
            return None
        power = java_trim(words[2])
        if power not in POWERS:
            raise Disqualified("Invalid power to charge: " + power)
        return power

    @staticmethod
    def _two_ints(words: list[str], name: str) -> tuple[int, int]:
        """``Integer.parseInt`` of words[1] and words[2] (missing -> disqualified)."""
        try:
            return java_parse_int(words[1]), java_parse_int(words[2])
        except (ValueError, IndexError):
            raise Disqualified(f"Invalid params to {name}. Should be {name} x y") from None

    def _can_execute(self, player: int, action: Action) -> bool:
        """``ICommand.canExecute``: True / False (dropped) / raises Disqualified."""
        name, command = action.activator, action.command
        words = java_split_space(command)
        charges = self.charges[player]
        if name == "MOVE":
            if len(words) > 3:
                raise Disqualified("Invalid amount of parameters to MOVE. Should be MOVE direction power")
            self._direction(words, command)
            self._move_power(words)
            return True
        if name == "SURFACE":
            return True
        if name == "TORPEDO":
            if charges["TORPEDO"] < POWER_MAX["TORPEDO"]:
                return False
            if len(words) != 3:
                raise Disqualified("Invalid amount of params for TORPEDO, should be TORPEDO x y")
            target = self._two_ints(words, name)
            dist = self.torpedo_distance(self.positions[player], target)
            return dist is not None and dist <= TORPEDO_RANGE
        if name == "SONAR":
            if charges["SONAR"] < POWER_MAX["SONAR"]:
                return False
            if len(words) != 2:
                raise Disqualified("Invalid amount of params for SONAR, should be: SONAR sectorId")
            self._sonar_sector(words, command)
            return True
        if name == "SILENCE":
            if charges["SILENCE"] < POWER_MAX["SILENCE"]:
                return False
            if len(words) != 3:
                raise Disqualified("Invalid amount of params for Silence, should be: SILENCE direction steps")
            self._direction(words, command)
            self._silence_distance(words, command)
            return True
        if name == "MINE":
            if charges["MINE"] < POWER_MAX["MINE"]:
                return False
            if len(words) > 2:
                raise Disqualified("Invalid amount of params for MINE, should be MINE direction")
            target = self._mine_target(player, words, command)
            if not self.is_water(*target):
                return False
            return not any(not m.blown and m.pos == target for m in self.mines[player])
        if name == "TRIGGER":
            if len(words) > 3:
                raise Disqualified("Invalid amount of params for TRIGGER, should be TRIGGER x y")
            target = self._two_ints(words, name)
            return self._triggerable(player, target) is not None
        raise AssertionError(name)

    @staticmethod
    def _sonar_sector(words: list[str], command: str) -> int:
        try:
            sector = java_parse_int(words[1])
        except ValueError:
            raise Disqualified("Invalid sector on SONAR: " + command) from None
        if not 1 <= sector <= 9:
            raise Disqualified("Invalid sector on SONAR: " + command)
        return sector

    @staticmethod
    def _silence_distance(words: list[str], command: str) -> int:
        try:
            distance = java_parse_int(words[2])
        except ValueError:
            raise Disqualified("Invalid distance on SILENCE: " + command) from None
        if not 0 <= distance <= 4:
            raise Disqualified("Invalid distance on SILENCE: " + command)
        return distance

    def _mine_target(self, player: int, words: list[str], command: str) -> tuple[int, int]:
        dx, dy = DIRECTIONS[self._direction(words, command, "mine")]
        x, y = self.positions[player]
        return (x + dx, y + dy)

    def _triggerable(self, player: int, target: tuple[int, int]) -> Mine | None:
        """The player's first unexploded, active mine at ``target``, if any."""
        for mine in self.mines[player]:
            if not mine.blown and mine.active and mine.pos == target:
                return mine
        return None

    def _step(self, player: int, direction: str) -> None:
        """``PlayerModel.move``: one step; off map, island or visited disqualifies."""
        dx, dy = DIRECTIONS[direction]
        x, y = self.positions[player]
        nxt = (x + dx, y + dy)
        if not self.is_water(*nxt):
            raise Disqualified("Invalid move. Tried to move outside map or onto island")
        if nxt in self.visited[player]:
            raise Disqualified("Can't visit same location twice. Use surface.")
        self.positions[player] = nxt
        self.visited[player].add(nxt)

    def _lose(self, player: int, amount: int) -> None:
        self.lives[player] = max(0, self.lives[player] - amount)

    def _explode(self, target: tuple[int, int]) -> None:
        """Both submarines: -2 on the target cell, -1 on one of its 8 neighbours."""
        tx, ty = target
        for player in (0, 1):
            x, y = self.positions[player]
            if (x, y) == target:
                self._lose(player, 2)
            elif abs(x - tx) <= 1 and abs(y - ty) <= 1:
                self._lose(player, 1)

    def _execute(self, player: int, action: Action) -> None:
        """``ICommand.execute`` for an action whose ``canExecute`` was True."""
        name, command = action.activator, action.command
        words = java_split_space(command)
        charges = self.charges[player]
        summaries = self.summaries[player]
        if name == "MOVE":
            direction = self._direction(words, command)
            power = self._move_power(words)
            self._step(player, direction)
            if power is not None:
                charges[power] = min(POWER_MAX[power], charges[power] + 1)
            summaries.append(f"MOVE {direction}")
        elif name == "SURFACE":
            pos = self.positions[player]
            self.visited[player] = {pos}
            self._lose(player, 1)
            summaries.append(f"SURFACE {sector_of(pos)}")
        elif name == "TORPEDO":
            target = self._two_ints(words, name)
            self._explode(target)
            summaries.append(f"TORPEDO {target[0]} {target[1]}")
            charges["TORPEDO"] = 0
        elif name == "SONAR":
            sector = self._sonar_sector(words, command)
            hit = sector_of(self.positions[1 - player]) == sector
            self.sonar_results[player] = "Y" if hit else "N"
            summaries.append(f"SONAR {sector}")
            charges["SONAR"] = 0
        elif name == "SILENCE":
            direction = self._direction(words, command)
            for _ in range(self._silence_distance(words, command)):
                self._step(player, direction)
            summaries.append("SILENCE")
            charges["SILENCE"] = 0
        elif name == "MINE":
            self.mines[player].append(Mine(self._mine_target(player, words, command)))
            summaries.append("MINE")
            charges["MINE"] = 0
        elif name == "TRIGGER":
            target = self._two_ints(words, name)
            mine = self._triggerable(player, target)
            if mine is not None:
                mine.blown = True
                self._explode(target)
                summaries.append(f"TRIGGER {target[0]} {target[1]}")
        else:
            raise AssertionError(name)
