"""Study files: the TOML a user writes, validated strictly into a ``StudySpec``.

Every mistake becomes one ``SpecError`` line naming the key and what is allowed there; no
study file is half-accepted. The checks that need the coefficient registry (names, bounds,
log scales) live here too, so a study that loads can always be built.
"""
from __future__ import annotations

import importlib.util
import math
import os
import re
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from ocean.bots import coefficients as registry
from ocean.bots.external import ProgramSpec, absolute_cwd
from ocean.bots.registry import STUDY_POLICIES
from ocean.constants import FIRST_TURN_MS, TURN_MS
from ocean.sandbox import CODINGAME_MEMORY_MB, MAX_MEMORY_MB, SandboxPolicy
from ocean.timecontrol import TimeControl
from tuning.errors import SpecError
from tuning.study.names import NAME_RULE, name_problem
from tuning.study.searchchecks import (coefficients_of, check_fixed, check_program_entry, check_program_range,
                                       check_program_reach, check_range)
from tuning.study.specerrors import first_error

__all__ = ["SeedRange", "SamplerSpec", "SearchRange", "PruningSpec", "ValidationSpec", "ProgramBot", "TimeSpec", "SandboxSpec",
           "StudySpec",
           "load_spec", "parse_spec"]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class _Strict(BaseModel):
    # strict: a string is never silently read as a number, nor a number as a bool.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _check_games(key: str, games: int, seeds_key: str, seeds: "SeedRange") -> None:
    if games % 2:
        raise ValueError(f"{key} = {games} must be even: each map is played twice, sides swapped")
    if games > 2 * seeds.count:
        raise ValueError(f"{key} = {games} needs {games // 2} maps but {seeds_key} has {seeds.count}")


class SeedRange(_Strict):
    """Map seeds ``start .. start+count-1`` (each played twice, sides swapped)."""

    start: int
    count: int = Field(ge=1)

    @model_validator(mode="after")
    def _fits_int64(self) -> SeedRange:
        if self.start < INT64_MIN or self.start + self.count - 1 > INT64_MAX:
            raise ValueError("seeds must be signed 64-bit integers (start + count - 1 <= 2**63 - 1)")
        return self

    def seeds(self, pairs: int | None = None) -> list[int]:
        """The first ``pairs`` seeds of the range (all of them by default)."""
        return list(range(self.start, self.start + (self.count if pairs is None else pairs)))

    def overlaps(self, other: SeedRange) -> bool:
        return self.start < other.start + other.count and other.start < self.start + self.count

    def describe(self) -> str:
        return f"{self.start}..{self.start + self.count - 1}"


class SamplerSpec(_Strict):
    """Which Optuna sampler proposes coefficients, and its seed."""

    kind: Literal["tpe", "cmaes", "gp", "random", "spsa"] = "tpe"
    seed: int | None = None
    startup_trials: int = Field(10, ge=0)  # random trials before the model takes over (tpe, gp, cmaes)
    # SPSA only, in shares of each coefficient's range: how far a trial pair steps to each side
    # (Spall's c) and the step size of the update (Spall's a).
    perturbation: float | None = Field(None, gt=0.0, le=0.5)
    step: float | None = Field(None, gt=0.0, le=5.0)
    # SPSA only: what a perturbation pair is scored on. "panel": each of theta+ and theta- plays the
    # panel (two trials an iteration); "head-to-head": theta+ plays theta- (one trial an
    # iteration, as Fishtest tunes), a signal that does not saturate when the bot outgrows its panel.
    scoring: Literal["panel", "head-to-head"] | None = None

    @model_validator(mode="after")
    def _spsa_settings(self):
        for key in ("perturbation", "step", "scoring"):
            if getattr(self, key) is not None and self.kind != "spsa":
                raise ValueError(f"{key} is a setting of kind = \"spsa\" only (this sampler is {self.kind!r})")
        return self

    @property
    def head_to_head(self) -> bool:
        """SPSA scored by theta+ against theta- (``scoring = "head-to-head"``)."""
        return self.kind == "spsa" and self.scoring == "head-to-head"

    @property
    def has_theta(self) -> bool:
        """SPSA: the point its iterations reached (theta) is what the study found, and validation
        plays it (beside the top trials; head to head, alone)."""
        return self.kind == "spsa"


class SearchRange(_Strict):
    """One tuned coefficient: bounds default to the registry's, optionally on a log scale. A
    program's parameter (no registry) gives its bounds, and may say ``integer`` and the
    ``default`` its program uses (the reference trial; the middle of the range if absent)."""

    low: float | None = None
    high: float | None = None
    log: bool = False
    integer: bool = False
    default: float | None = None

    def reference(self) -> float:
        """A program parameter's reference value: its default, else the middle of its range."""
        if self.default is not None:
            return self.default
        mid = math.sqrt(self.low * self.high) if self.log else (self.low + self.high) / 2
        return float(round(mid)) if self.integer else mid


class ProgramBot(_Strict):
    """The ``[bot]`` table: the study tunes this external program instead of the in-process bot."""

    command: str
    cwd: str | None = None  # relative paths start at the study file's folder (its default)
    env: dict[str, str] = Field(default_factory=dict)
    params_file: Literal["toml", "json"] | None = None

    @model_validator(mode="after")
    def _runnable(self) -> ProgramBot:
        self.program()  # a ValueError here is the one-line error
        return self

    def program(self) -> ProgramSpec:
        return ProgramSpec(self.command, cwd=self.cwd, env=tuple(self.env.items()), params_file=self.params_file)


class PruningSpec(_Strict):
    """Sequential test against the incumbent after each batch (see ``tuning.stats.pruning``)."""

    enabled: bool = True
    alpha: float = Field(0.05, gt=0.0, lt=0.5)  # one-sided error rate, spread over the looks
    min_pairs: int = Field(20, ge=2)  # never judge a trial on fewer shared pairs than this
    margin: float = Field(0.0, ge=0.0, lt=1.0)  # prune only if worse by more than this (score units)
    # Compare with the incumbent's score less its expected selection bias (tuning.stats.pruning.incumbent_bias)
    shrink_incumbent: bool = False


_FORMER_HELD_OUT_MARGIN = 0.02


class ValidationSpec(_Strict):
    """Held-out seeds on which ``tune validate`` re-plays the top trials and the defaults."""

    # Enough maps for the head to head's sequential test to reach a decision (tuning.results.validation)
    seeds: SeedRange = Field(default_factory=lambda: SeedRange(start=1_000_000_000, count=10_000))
    games: int = Field(400, ge=2)  # per opponent, both sides of games/2 maps
    top_k: int = Field(3, ge=1)
    # Opponents held out of training (a panel name or bot names), validated beside the training
    # panel; default: the training panel only.
    panel: Union[str, list[str], None] = None
    # The chosen set against the reference (the defaults, or the start file), paired, on held-out
    # maps: the head-to-head part of the verdict, decided by an SPRT; at most this many games
    # (then "no decision"). Default: every held-out map the choice did not use, both sides.
    head_to_head_games: int | None = Field(None, ge=2)
    # The head to head's SPRT: H0 "at most elo0", H1 "at least elo1" (logistic Elo), alpha the
    # chance of a false gain at elo0, beta of a missed one at elo1 (docs/reproducibility.md).
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = Field(0.025, gt=0.0, lt=0.5)
    beta: float = Field(0.05, gt=0.0, lt=0.5)
    # The training-panel and held-out parts: not worse than the reference by this many Elo (a
    # non-inferiority test at 2.5%; its power at the study's size: tune plan).
    not_worse_elo: float = Field(30.0, gt=0.0, le=400.0)
    # Older study files' held-out margin in score units (kept working, with a warning naming
    # not_worse_elo): when given, the held-out part's margin.
    held_out_margin: float | None = Field(None, ge=0.0, lt=1.0)

    @model_validator(mode="before")
    @classmethod
    def _former_default(cls, value: Any) -> Any:
        # 0.02 was held_out_margin's default, stored with every study before the margin was in Elo:
        # such a study is judged like a new one (not_worse_elo), and resumes under the same file.
        if isinstance(value, dict) and value.get("held_out_margin") in (None, _FORMER_HELD_OUT_MARGIN):
            value = {k: v for k, v in value.items() if k != "held_out_margin"}
        return value

    @model_validator(mode="after")
    def _sprt_bounds(self) -> ValidationSpec:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 ({self.elo1:g}) must be above elo0 ({self.elo0:g}): "
                             "the head to head's SPRT tells 'at most elo0' from 'at least elo1', e.g. elo0 = 0, "
                             "elo1 = 10")
        return self

    @field_validator("panel", mode="before")
    @classmethod
    def _panel(cls, value: Any) -> Any:
        return value if value is None else _check_panel(value)

    @property
    def h2h_games(self) -> int:
        """The most head-to-head games of the chosen set against the reference, at ``games``
        (every held-out map the choice did not use when ``head_to_head_games`` is not given:
        ``map_counts``); the SPRT stops before when it decides."""
        return 2 * self.map_counts(self.games, head_to_head=False)[2]

    def map_counts(self, games: int, *, head_to_head: bool) -> tuple[int, int, int]:
        """(maps the best is chosen on, maps it is judged on against the panels, maps of its
        head-to-head games) of a validation of ``games`` games per opponent: a head-to-head study
        chooses nothing and is judged on every map; the head-to-head games go on maps the choice
        did not use, the judged ones, then those after the panels' (``tuning.results.validation``)."""
        maps = games // 2
        chosen_on = 0 if head_to_head else maps // 2
        available = self.seeds.count - chosen_on
        # at most: the sequential test stops once it decides (by default every map the choice left)
        wanted = self.head_to_head_games // 2 if self.head_to_head_games is not None else available
        return chosen_on, maps - chosen_on, wanted


class TimeSpec(_Strict):
    """The ``[time]`` table: the time control a study's programs are told (``{turn_ms}``,
    ``{first_turn_ms}``) and the referee enforces, x ``timeout_scale`` (a top-level key, kept
    there since studies had it before this table). CodinGame's by default. In-process bots
    ignore it: their budgets count work."""

    turn_ms: int = Field(TURN_MS, ge=1, le=60_000)
    first_turn_ms: int = Field(FIRST_TURN_MS, ge=1, le=60_000)
    # A slow or busy machine: the limits the referee enforces on every program, frozen ones too,
    # x this. What programs are told never changes (a frozen program keeps its time control).
    machine_scale: float = Field(1.0, gt=0.0, le=100.0)


class SandboxSpec(_Strict):
    """The ``[sandbox]`` table: how the study's programs are run (``ocean.sandbox``), on every
    node: ``memory_mb`` (CodinGame's 768 by default), ``required`` (refuse to run a program where
    the sandbox cannot start) and ``writable_folder`` (programs may write to their own folder)."""

    memory_mb: int = Field(CODINGAME_MEMORY_MB, ge=16, le=MAX_MEMORY_MB)
    required: bool = False
    writable_folder: bool = False

    @property
    def policy(self) -> SandboxPolicy:
        return SandboxPolicy(self.memory_mb, self.required, self.writable_folder)


class StudySpec(_Strict):
    """A whole study: what to tune, against whom, on which maps, and how to judge it."""

    name: str
    storage: str | None = None  # SQLAlchemy URL; ${VAR} is read from the environment
    ray_address: str | None = None  # Ray cluster to join; ${VAR} is read from the environment
    bot: ProgramBot | None = None  # an external program to tune; None: the in-process tunable bot
    # Which in-process tunable bot (ignored with a [bot] table). A stored study without it tunes
    # the v1 bot, as it always did.
    policy: str = "tunable"  # one of the bot registry's STUDY_POLICIES
    timeout_scale: float = Field(1.0, gt=0.0, le=100.0)  # the [time] limits x this, for programs
    time: TimeSpec = Field(default_factory=TimeSpec)
    sandbox: SandboxSpec = Field(default_factory=SandboxSpec)
    n_trials: int = Field(ge=1)
    trials_in_flight: int = Field(2, ge=1)
    sampler: SamplerSpec = Field(default_factory=SamplerSpec)
    search: dict[str, Union[SearchRange, int, float]]
    panel: Union[str, list[str]]
    seed_bank: SeedRange
    games_per_opponent: int | None = Field(None, ge=2)  # default: both sides of every seed in the bank
    # Maps per Ray task (each map = 2 games), or "auto": as many as take a worker about a second.
    batch_pairs: Union[int, str] = 10
    pruning: PruningSpec = Field(default_factory=PruningSpec)
    validation: ValidationSpec = Field(default_factory=ValidationSpec)
    # Warm start: the coefficients of ``[search] start = "FILE"`` (read by ``parse_spec``, stored
    # with the study so a resume needs no file): trial 0 and SPSA's/CMA-ES's first point.
    start: dict[str, float] | None = None

    @field_validator("time", mode="before")
    @classmethod
    def _time_table(cls, value: Any) -> Any:
        if isinstance(value, dict) and "scale" in value:  # a natural guess; the scale has its own key
            raise ValueError("the limits' scale is the top-level key timeout_scale (e.g. timeout_scale = 2.0), "
                             "not time.scale; [time] takes turn_ms and first_turn_ms")
        return value

    @field_validator("batch_pairs", mode="before")
    @classmethod
    def _batch_pairs(cls, value: Any) -> int | str:
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            return value
        raise ValueError('use a whole number of maps per batch (1 or more), or "auto" (a batch of about '
                         'a second of a worker\'s time, from the measured game speed)')

    @field_validator("policy")
    @classmethod
    def _policy(cls, value: str) -> str:
        if value not in STUDY_POLICIES:
            raise ValueError(f"input should be {', '.join(map(repr, STUDY_POLICIES[:-1]))} or {STUDY_POLICIES[-1]!r}")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if name_problem(value) is not None:
            raise ValueError(NAME_RULE)
        return value

    @field_validator("storage", "ray_address")
    @classmethod
    def _expand_env(cls, value: str | None) -> str | None:
        return None if value is None else expand_env(value)

    @field_validator("panel", mode="before")
    @classmethod
    def _panel(cls, value: Any) -> Any:
        return _check_panel(value)

    @field_validator("search", mode="before")
    @classmethod
    def _search_entries(cls, value: Any, info: ValidationInfo) -> Any:
        # Checked by hand before pydantic's union, whose errors name its internal branches.
        if not isinstance(value, dict):
            return value
        program = info.data.get("bot") is not None
        policy = info.data.get("policy", registry.V1)
        known = coefficients_of(policy)
        for name, entry in value.items():
            if program:
                check_program_entry(name, entry)
                continue
            if name not in known:
                raise ValueError(f"unknown coefficient {name!r}; known: {', '.join(known)} (the coefficients of "
                                 f"policy {policy}; a study with a [bot] table tunes a program's own parameters)")
            if isinstance(entry, bool) or not isinstance(entry, (dict, int, float)):
                raise ValueError(f"{name} = {entry!r}: give a number (a fixed value) or a table "
                                 "{low = .., high = .., log = ..} (a tuned range; {} keeps the registry's)")
            for key, unset in (("integer", False), ("default", None)):
                if isinstance(entry, dict) and entry.get(key, unset) is not unset:
                    raise ValueError(f"{name}.{key}: the in-process bot's coefficients take {key} from the "
                                     "registry; only a program's parameters ([bot] table) declare it")
        return value

    @model_validator(mode="after")
    def _coherent(self) -> StudySpec:
        tuned = 0
        for name, entry in self.search.items():
            if isinstance(entry, SearchRange):
                if self.bot is not None:
                    check_program_range(name, entry)
                else:
                    check_range(name, entry, self.policy)
                tuned += 1
            elif self.bot is None:
                check_fixed(name, entry, self.policy)
        if tuned == 0:
            raise ValueError("search: nothing to tune; give at least one "
                             + ("parameter a range, e.g. aggression = { low = 0.0, high = 1.0 }" if self.bot
                                else "coefficient a range, e.g. silence_cost = {}"))
        if self.bot is not None:
            check_program_reach(self.bot.program(), self.search)
        if self.games_per_opponent is not None:
            _check_games("games_per_opponent", self.games_per_opponent, "seed_bank", self.seed_bank)
        _check_games("validation.games", self.validation.games, "validation.seeds", self.validation.seeds)
        if self.validation.head_to_head_games is not None:
            _check_head_to_head(self.validation, self.sampler.head_to_head)
        if self.validation.seeds.overlaps(self.seed_bank):
            raise ValueError(f"validation.seeds ({self.validation.seeds.describe()}) overlap seed_bank "
                             f"({self.seed_bank.describe()}); held-out seeds must be unseen in training")
        if self.sampler.kind == "gp" and importlib.util.find_spec("torch") is None:
            raise ValueError("sampler.kind = 'gp' needs PyTorch: pip install 'ocean-tuning-lab[gp]' "
                             "(or choose tpe, cmaes or random)")
        return self

    @property
    def time_control(self) -> TimeControl:
        """What the study's programs are told (``[time]``) and what the referee enforces (those
        times x ``timeout_scale`` x ``[time] machine_scale``; a frozen program's own times x
        ``machine_scale``)."""
        return TimeControl(self.time.turn_ms, self.time.first_turn_ms, self.timeout_scale, self.time.machine_scale,
                           self.sandbox.policy)

    @property
    def pairs_per_opponent(self) -> int:
        """Maps played against each opponent in every trial."""
        games = self.games_per_opponent if self.games_per_opponent is not None else 2 * self.seed_bank.count
        return games // 2

    def training_seeds(self, trial: int | None = None) -> list[int]:
        """The seeds a trial plays: the same for all trials (common random numbers: their
        scores compare). Head to head (``[sampler] scoring``) a trial's two sides compare on
        its own maps, so iteration ``trial`` takes the bank's next ``pairs_per_opponent`` maps,
        round the bank: a long study never tunes for a handful of maps."""
        if trial is None or not self.sampler.head_to_head:
            return self.seed_bank.seeds(self.pairs_per_opponent)
        bank, n = self.seed_bank, self.pairs_per_opponent
        return [bank.start + (trial * n + i) % bank.count for i in range(n)]

    def with_overrides(self, *, n_trials: int | None = None, games: int | None = None) -> StudySpec:
        """The spec with ``--trials``/``--games`` applied (validated again)."""
        data = self.model_dump()
        spec = self
        for option, key, value in (("--trials", "n_trials", n_trials), ("--games", "games_per_opponent", games)):
            if value is not None:  # an error names the option the user typed (and the key it sets)
                data[key] = value
                spec = parse_spec(data, source=f"{option} {value}")
        return spec

    def stored(self) -> dict:
        """The spec as stored with the study: without storage and Ray address, which belong to a
        run (and may hold passwords)."""
        stored = self.model_dump(mode="json", exclude={"storage", "ray_address"})
        if stored.get("start") is None:
            stored.pop("start", None)  # a study without a warm start is stored as it always was
        if stored["time"].get("machine_scale") == 1.0:
            stored["time"].pop("machine_scale")  # nor one on an unscaled machine
        if stored.get("sandbox") == SandboxSpec().model_dump(mode="json"):
            stored.pop("sandbox")  # nor the default sandbox
        if stored["validation"].get("held_out_margin") is None:
            stored["validation"].pop("held_out_margin", None)  # the margin in Elo (not_worse_elo) rules
        return stored


def _check_head_to_head(validation: ValidationSpec, head_to_head: bool) -> None:
    """Head-to-head validation games go on held-out maps the best was not chosen on: all of them
    in a head-to-head study (it chooses nothing), else all but the half of ``games``' maps the
    choice is made on (``tuning.results.validation.validation_maps``)."""
    games = validation.head_to_head_games
    chosen_on = validation.map_counts(validation.games, head_to_head=head_to_head)[0]
    available = validation.seeds.count - chosen_on
    if games % 2:
        raise ValueError(f"validation.head_to_head_games = {games} must be even: each map is played twice, sides swapped")
    if games // 2 > available:
        raise ValueError(f"validation.head_to_head_games = {games} needs {games // 2} held-out maps the best was not "
                         f"chosen on, but validation.seeds leaves {available} ({validation.seeds.count} less the "
                         f"{chosen_on} it is chosen on); lower it or add seeds")


def _check_panel(value: Any) -> Any:
    if not isinstance(value, (str, list)) or (isinstance(value, list)
                                             and not all(isinstance(v, str) for v in value)):
        raise ValueError(f"give a panel name or a list of bot names, e.g. panel = [\"random\", \"chaser\"] (got {value!r})")
    if isinstance(value, list):
        if not value:
            raise ValueError("list at least one opponent")
        if len(set(value)) != len(value):
            raise ValueError("an opponent is listed twice")
    elif not value:
        raise ValueError("name a panel or list the opponents")
    return value


def expand_env(value: str) -> str:
    """Replace each ``${VAR}`` by the environment's value; a missing variable is an error."""

    def one(match: re.Match) -> str:
        var = match.group(1)
        if var not in os.environ:
            raise ValueError(f"environment variable {var} is not set (the study file reads it as ${{{var}}})")
        return os.environ[var]

    return _ENV_VAR.sub(one, value)


def parse_spec(data: Any, *, source: str = "study", base: str | Path | None = None) -> StudySpec:
    """Validate a parsed study (a dict); raises ``SpecError`` with one line. ``base``: the study
    file's folder, against which ``bot.cwd`` is made absolute (it is the default ``cwd``)."""
    if not isinstance(data, dict):
        raise SpecError(f"{source}: a study is a TOML table of keys")
    if base is not None and isinstance(data.get("bot"), dict):
        bot = dict(data["bot"])
        cwd = bot.get("cwd")
        if cwd is None or isinstance(cwd, str):
            bot["cwd"] = absolute_cwd(cwd, base)
            if not os.path.isdir(bot["cwd"]):
                raise SpecError(f"{source}: bot.cwd: folder {bot['cwd']} does not exist")
        data = {**data, "bot": bot}
    start_file = None
    if isinstance(data.get("search"), dict) and "start" in data["search"]:
        start_file = data["search"]["start"]
        data = _warm_start(data, source, base)
    try:
        spec = StudySpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(f"{source}: {first_error(exc, StudySpec)}") from None
    if spec.validation.held_out_margin is not None:
        print(f"warning: {source}: validation.held_out_margin (score units) is kept for older study files; "
              "validation.not_worse_elo sets the margin in Elo", file=sys.stderr)
    if spec.start is not None:
        _start_inside(spec, source, start_file)
    return spec


def _start_inside(spec: StudySpec, source: str, start_file: str) -> None:
    """A warm start's values of the tuned coefficients must lie in their search ranges: else trial
    0 plays a point outside the space, and the gain over the start file compares with a point the
    search can never reach."""
    coefs = {c.name: c for c in registry.registry(spec.policy)}
    outside = []
    for name, entry in spec.search.items():
        if not isinstance(entry, SearchRange) or name not in spec.start:
            continue
        low = coefs[name].low if entry.low is None else entry.low  # the space's bounds (``build_space``)
        high = coefs[name].high if entry.high is None else entry.high
        if not low <= spec.start[name] <= high:
            outside.append(f"{name} = {spec.start[name]:g} outside [{low:g}, {high:g}]")
    if outside:
        more = f" (and {len(outside) - 1} more)" if len(outside) > 1 else ""
        raise SpecError(f"{source}: search.start: {start_file} sets {outside[0]}{more}, which the search can "
                        "never reach; widen the range to hold the start or start from another file")


def _warm_start(data: dict, source: str, base: str | Path | None) -> dict:
    """``[search] start = "FILE"`` read into the top-level ``start`` (the file's coefficients):
    a coefficient file of the study's policy, relative to the study file's folder."""
    search = dict(data["search"])
    start = search.pop("start")
    policy = data.get("policy", registry.V1)
    if data.get("bot") is not None or not isinstance(start, str):
        raise SpecError(f"{source}: search.start: give the path of a coefficient file of the study's policy "
                        f"(e.g. start = \"learned.toml\", as tune learn or tune export write); a [bot] study has none")
    path = Path(start) if base is None or Path(start).is_absolute() else Path(base) / start
    try:
        file_policy, values = registry.read_params_file(path)
    except registry.ParamsError as exc:
        raise SpecError(f"{source}: search.start: {exc}") from None
    if file_policy != policy:
        raise SpecError(f"{source}: search.start: {start} holds coefficients of {file_policy!r}, the study tunes "
                        f"{policy!r}; give a file of {policy!r} or set policy = {file_policy!r}")
    return {**data, "search": search, "start": values}


def load_spec(path: str | Path) -> StudySpec:
    """Read and validate a study file; raises ``SpecError`` with one line naming the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"{path}: cannot read the study file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise SpecError(f"{path}: not a UTF-8 text file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML ({exc})") from None
    return parse_spec(data, source=str(path), base=path.resolve().parent)
