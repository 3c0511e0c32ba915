"""What a ``tune test`` is: its two bots, a gauntlet's opponents, the hypotheses, the maps, the
batches and the time control. Checked with one-line errors, stored as JSON with the test, and
compared with the options of a later ``tune test NAME`` (a resume must not change what is tested).

Batch ``k`` covers the maps ``seed + k * batch_pairs`` to ``seed + (k + 1) * batch_pairs - 1``: head
to head, the new bot plays the base bot on each map twice (sides swapped); in a gauntlet, each
bot plays each opponent on each map twice. The batches are the test's looks: the verdict is a
function of this definition and the games alone (``tuning.driver.bottest.judge``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ocean.bots import BotSpec, resolve_bot
from ocean.constants import FIRST_TURN_MS, MAX_TIME_SCALE, TURN_MS
from ocean.sandbox import CODINGAME_MEMORY_MB, MAX_MEMORY_MB, SandboxPolicy
from ocean.timecontrol import TimeControl
from tuning.errors import SpecError
from tuning.study.opponents import panel_from_json, panel_to_json, resolve_panel
from tuning.study.spec import INT64_MAX, INT64_MIN
from tuning.study.names import NAME_RULE, name_problem  # tests and studies share one namespace, and one rule for names
from tuning.stats.sprt import GAUNTLET, PENTANOMIAL, Settings, normalized_limit

__all__ = ["TestSpec", "TestOptions", "build_spec", "mismatches", "DEFAULT_SEED", "DEFAULT_MAX_GAMES",
           "IN_PROCESS_BATCH_PAIRS", "PROGRAM_BATCH_PAIRS", "NEW", "BASE", "TEST_PHASE"]

# The first map of a test. Study seed banks start at 1,000, held-out maps at 900,000 (the ready-made
# studies) and 1,000,000,000 (the default): a test's maps start far above all of them.
DEFAULT_SEED = 5_000_000_000
DEFAULT_MAX_GAMES = 100_000  # a bound, not a target: at the default bounds a test of equal bots ends near 21,000
# Maps per batch: in-process games cost about 4 ms each, so 50 maps are a few tenths of a second of a
# worker; a program's game costs seconds, so its batches are small (the test looks more often).
IN_PROCESS_BATCH_PAIRS = 50
PROGRAM_BATCH_PAIRS = 4
TEST_PHASE = "test"  # the phase of a test's rows in ocean_games
NEW, BASE = 0, 1  # the ``trial`` of a test's rows: the new bot's games, the base bot's (gauntlet only)
_VERSION = 1


@dataclass(frozen=True)
class TestSpec:
    """A test's definition (see the module doc)."""

    __test__ = False  # not a pytest class, whatever its name

    name: str
    new: BotSpec
    base: BotSpec
    panel: str | None  # the gauntlet's panel as given (a panel name or bot names); None: head to head
    opponents: tuple[BotSpec, ...] | None  # the gauntlet's opponents, resolved when the test was created
    settings: Settings
    max_games: int
    seed: int
    batch_pairs: int
    turn_ms: int  # what programs are told (``{turn_ms}``); the referee enforces it x time_scale x machine_scale
    first_turn_ms: int
    time_scale: float
    # A slow or busy machine: every program's limits, frozen ones too, x this (a study's ``[time]
    # machine_scale``); what programs are told does not change.
    machine_scale: float = 1.0
    memory_mb: int = CODINGAME_MEMORY_MB  # each program's memory limit (ocean.sandbox)
    require_sandbox: bool = False  # refuse to run a program where the sandbox cannot start

    @property
    def time_control(self) -> TimeControl:
        """What the test's programs are told and what the referee enforces (and how they are run:
        ``ocean.sandbox``)."""
        return TimeControl(self.turn_ms, self.first_turn_ms, self.time_scale, self.machine_scale,
                           sandbox=SandboxPolicy(self.memory_mb, self.require_sandbox))

    @property
    def gauntlet(self) -> bool:
        return self.opponents is not None

    @property
    def support(self):
        """The outcomes of a unit of the statistic (``tuning.stats.sprt``)."""
        return GAUNTLET if self.gauntlet else PENTANOMIAL

    @property
    def units_per_batch(self) -> int:
        """Units of the statistic per batch: maps head to head, (opponent, map)s in a gauntlet."""
        return self.batch_pairs * (len(self.opponents) if self.gauntlet else 1)

    @property
    def games_per_batch(self) -> int:
        return 2 * self.units_per_batch * (2 if self.gauntlet else 1)

    @property
    def games_per_unit(self) -> int:
        return 4 if self.gauntlet else 2

    @property
    def max_batches(self) -> int:
        """Batches before "max games reached": ``max_games`` rounded down to whole batches."""
        return max(1, self.max_games // self.games_per_batch)

    def seeds(self, batch: int) -> list[int]:
        start = self.seed + batch * self.batch_pairs
        return list(range(start, start + self.batch_pairs))

    def batch_of(self, seed: int) -> int:
        return (seed - self.seed) // self.batch_pairs

    def matches(self) -> list[tuple[int, BotSpec, BotSpec]]:
        """(trial, bot, opponent) of every match a batch plays: the new bot against the base bot,
        or each bot against each opponent."""
        if not self.gauntlet:
            return [(NEW, self.new, self.base)]
        return [(trial, bot, opponent) for opponent in self.opponents
                for trial, bot in ((NEW, self.new), (BASE, self.base))]

    @property
    def programs(self) -> list[BotSpec]:
        """What is checked on every node before the test plays (``tuning.driver.programs``): the
        external programs it plays and its frozen in-process bots (new, base or opponents), each
        once."""
        out, seen = [], set()
        for bot in (self.new, self.base, *(self.opponents or ())):
            key = (bot.name, bot.program)
            if (bot.is_program or bot.frozen is not None) and key not in seen:
                seen.add(key)
                out.append(bot)
        return out

    def to_json(self) -> dict:
        return {"version": _VERSION, "new": panel_to_json([self.new])[0], "base": panel_to_json([self.base])[0],
                "panel": self.panel, "opponents": None if self.opponents is None else panel_to_json(self.opponents),
                **self.settings.as_dict(), "max_games": self.max_games, "seed": self.seed,
                "batch_pairs": self.batch_pairs, "turn_ms": self.turn_ms, "first_turn_ms": self.first_turn_ms,
                "time_scale": self.time_scale,
                # a test on a machine like CodinGame's keeps the form stored before the option
                **({} if self.machine_scale == 1.0 else {"machine_scale": self.machine_scale}),
                **({} if self.memory_mb == CODINGAME_MEMORY_MB else {"memory_mb": self.memory_mb}),
                **({"require_sandbox": True} if self.require_sandbox else {})}

    @classmethod
    def from_json(cls, name: str, data: dict) -> TestSpec:
        opponents = data.get("opponents")
        return cls(name, panel_from_json([data["new"]])[0], panel_from_json([data["base"]])[0], data.get("panel"),
                   None if opponents is None else tuple(panel_from_json(opponents)),
                   Settings(data["elo0"], data["elo1"], data["alpha"], data["beta"], data["normalized"]),
                   int(data["max_games"]), int(data["seed"]), int(data["batch_pairs"]), int(data["turn_ms"]),
                   int(data["first_turn_ms"]), float(data["time_scale"]),
                   machine_scale=float(data.get("machine_scale", 1.0)),
                   memory_mb=int(data.get("memory_mb", CODINGAME_MEMORY_MB)),
                   require_sandbox=bool(data.get("require_sandbox", False)))


@dataclass(frozen=True)
class TestOptions:
    """What the user gave on the command line; None: not given (a new test takes the default,
    a resumed one keeps what it has)."""

    __test__ = False

    new: str | None = None
    base: str | None = None
    panel: str | None = None
    elo0: float | None = None
    elo1: float | None = None
    alpha: float | None = None
    beta: float | None = None
    normalized: bool | None = None
    max_games: int | None = None
    seed: int | None = None
    batch_pairs: int | None = None
    turn_ms: int | None = None
    first_turn_ms: int | None = None
    time_scale: float | None = None
    machine_scale: float | None = None
    memory_mb: int | None = None
    require_sandbox: bool | None = None
    cwd: str | None = None  # where cmd: bots start; a stored test keeps its bots' folders

    def given(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def _bot(option: str, name: str, cwd: str | None = None) -> BotSpec:
    try:
        return resolve_bot(name, cwd=cwd)
    except ValueError as exc:  # a bad params file is a ValueError too
        raise SpecError(f"{option}: {exc}") from None


def _opponents(panel: str) -> tuple[BotSpec, ...]:
    """A gauntlet's opponents: a panel's name, or bot names separated by commas."""
    from ocean.bots.panel import panel_names

    names = [n.strip() for n in panel.split(",") if n.strip()]
    if not names:
        raise SpecError("--panel: give a panel name or bot names separated by commas")
    try:
        known = panel_names()
    except ValueError as exc:  # the user's panel file is broken
        raise SpecError(f"--panel: {exc}") from None
    try:
        bots = resolve_panel(names[0] if len(names) == 1 and names[0] in known else names)
    except SpecError as exc:  # "panel: ..."
        if len(names) == 1:
            raise SpecError(f"--panel: {names[0]!r} is neither a panel ({', '.join(known)}) nor a bot; or list bots "
                            "separated by commas, e.g. --panel random,chaser") from None
        raise SpecError(f"--{exc}") from None
    if len({b.name for b in bots}) != len(bots):
        raise SpecError(f"--panel {panel!r} names a bot twice")
    return tuple(bots)


def build_spec(name: str, options: TestOptions) -> TestSpec:
    """A new test from the command line's options (defaults for those not given); one-line
    ``SpecError`` for anything wrong."""
    if name_problem(name) is not None:
        raise SpecError(f"test name {name!r}: {NAME_RULE}")
    if options.new is None or options.base is None:
        missing = " and ".join(f for f, v in (("--new", options.new), ("--base", options.base)) if v is None)
        raise SpecError(f"no test named {name!r} yet: a new test needs {missing} (e.g. tune test {name} "
                        "--new tunable-v3 --base tunable-v2)")
    new, base = _bot("--new", options.new, options.cwd), _bot("--base", options.base, options.cwd)
    opponents = None if options.panel is None else _opponents(options.panel)
    try:
        default = Settings()
        settings = Settings(*(given if given is not None else getattr(default, key) for key, given in (
            ("elo0", options.elo0), ("elo1", options.elo1), ("alpha", options.alpha), ("beta", options.beta))),
            normalized=bool(options.normalized))
    except ValueError as exc:
        raise SpecError(f"--elo0/--elo1/--alpha/--beta: {exc}") from None
    programs = any(b.is_program for b in (new, base, *(opponents or ())))
    spec = TestSpec(name, new, base, options.panel, opponents, settings,
                    options.max_games if options.max_games is not None else DEFAULT_MAX_GAMES,
                    options.seed if options.seed is not None else DEFAULT_SEED,
                    options.batch_pairs if options.batch_pairs is not None else
                    (PROGRAM_BATCH_PAIRS if programs else IN_PROCESS_BATCH_PAIRS),
                    options.turn_ms if options.turn_ms is not None else TURN_MS,
                    options.first_turn_ms if options.first_turn_ms is not None else FIRST_TURN_MS,
                    options.time_scale if options.time_scale is not None else 1.0,
                    machine_scale=options.machine_scale if options.machine_scale is not None else 1.0,
                    memory_mb=options.memory_mb if options.memory_mb is not None else CODINGAME_MEMORY_MB,
                    require_sandbox=bool(options.require_sandbox))
    _check(spec)
    return spec


def _check(spec: TestSpec) -> None:
    if spec.batch_pairs < 1:
        raise SpecError(f"--batch-pairs must be at least 1, got {spec.batch_pairs}")
    if spec.max_games < spec.games_per_batch:
        raise SpecError(f"--max-games {spec.max_games} is less than one batch ({spec.games_per_batch} games: "
                        f"{spec.batch_pairs} maps x {spec.games_per_unit} games"
                        f"{f' x {len(spec.opponents)} opponents' if spec.gauntlet else ''}); raise it or lower "
                        "--batch-pairs")
    last = spec.seed + spec.max_batches * spec.batch_pairs - 1
    if spec.seed < INT64_MIN or last > INT64_MAX:
        raise SpecError(f"--seed {spec.seed}: the test's maps run to {last}, past the signed 64-bit range")
    if spec.settings.normalized:
        limit = normalized_limit(spec.support)
        worst = max(abs(spec.settings.elo0), abs(spec.settings.elo1))
        if worst >= limit:
            raise SpecError(f"--normalized bounds H0 {spec.settings.elo0:g}, H1 {spec.settings.elo1:g}: the test's "
                            f"ratio cannot be computed past {limit:.0f} normalized Elo either way "
                            f"({'gauntlet units' if spec.gauntlet else 'pairs'}); choose bounds inside it")
    if spec.turn_ms < 1 or spec.first_turn_ms < 1:
        raise SpecError(f"--turn-ms and --first-turn-ms must be at least 1 ms (got {spec.turn_ms} and "
                        f"{spec.first_turn_ms})")
    # Each scale within a study's bounds (timeout_scale, [time] machine_scale): together they give
    # any limits a study enforces, so a test can play at a study's time control.
    for flag, scale in (("--time-scale", spec.time_scale), ("--machine-scale", spec.machine_scale)):
        if not math.isfinite(scale) or not 0.0 < scale <= MAX_TIME_SCALE:
            raise SpecError(f"{flag} must be above 0 and at most {MAX_TIME_SCALE:g}, got {scale:g}")
    if not 16 <= spec.memory_mb <= MAX_MEMORY_MB:
        raise SpecError(f"--memory-mb must be from 16 to {MAX_MEMORY_MB} (CodinGame's: {CODINGAME_MEMORY_MB}), "
                        f"got {spec.memory_mb}")


def _same_bot(a: BotSpec, b: BotSpec) -> bool:
    return panel_to_json([a]) == panel_to_json([b])


def mismatches(stored: TestSpec, options: TestOptions) -> list[str]:
    """The given options that differ from the stored test, as "--flag GIVEN (the test has STORED)"."""
    out = []
    for key, value in options.given().items():
        if key == "cwd":
            continue  # it only says where the cmd: bots given beside it start
        if key in ("new", "base"):
            bot = _bot(_flag(key), value, options.cwd)
            have = getattr(stored, key)
            if not _same_bot(bot, have):
                what = "other coefficients" if bot.name == have.name else have.name
                out.append(f"{_flag(key)} {value} (the test has {what})")
            continue
        if key == "panel":
            opponents = _opponents(value)
            if stored.opponents is None or len(opponents) != len(stored.opponents) or not all(
                    _same_bot(a, b) for a, b in zip(opponents, stored.opponents)):
                have = "no panel: head to head" if stored.panel is None else f"panel {stored.panel}"
                out.append(f"--panel {value} (the test has {have})")
            continue
        have = getattr(stored.settings, key) if key in ("elo0", "elo1", "alpha", "beta", "normalized") \
            else getattr(stored, key)
        if key == "normalized":
            if bool(value) != have:
                out.append(f"{'--normalized' if value else '--logistic'} (the test's bounds are "
                           f"{'normalized' if have else 'logistic'} Elo)")
        elif key == "require_sandbox":
            if bool(value) != have:
                out.append(f"{'--require-sandbox' if value else '--sandbox-optional'} (the test "
                           f"{'requires' if have else 'does not require'} the sandbox)")
        elif value != have:
            out.append(f"{_flag(key)} {value:g} (the test has {have:g})")
    return out

