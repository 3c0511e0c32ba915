"""What ``tune plan`` measures: a pilot's games on the current Ray cluster, or a stored study's.

A pilot plays the defaults (or the study's bot against itself) on the seed bank's first maps at
one time control and keeps nothing. Beside the pair scores' spread and the game rate it watches
every program it plays (the tuned one and each program opponent): its answer times against the
time it was told, its start-up (its first answer, against ``first_turn_ms``) and how often and
why it was disqualified (``_Tally``); and what a game costs: CPU seconds per game by opponent,
the programs' first answers in it and the tuned bot's later answers. A stored study gives its
spread, rate and disqualification counts (answer times are not stored).
"""
from __future__ import annotations

import math
import time as clock
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ocean.timecontrol import TimeControl
from tuning.driver.evaluation import by_opponent, pair_scores_of_rows, plan_batches
from tuning.errors import TuningError
from tuning.stats.power import paired_sd, pooled_sd, unseen_spread
from tuning.study.opponents import study_bot
from tuning.study.space import REFERENCE_TRIAL, build_space
from tuning.study.spec import StudySpec

__all__ = ["Measured", "ITSELF", "EARLY_TURNS", "HEAD_TO_HEAD_SD", "pilot", "pilot_itself", "from_stored"]

_SESSION_GAP = 60.0  # seconds without a stored batch that end a sitting of a stored study
ITSELF = "itself"  # the opponent of a pilot of the study's bot against itself (its reference parameters)
# A disqualification by this turn of the game is counted as start-up's (a JVM's start, a JIT's
# first compilations, a first turn's search): ``disqualified_early``.
EARLY_TURNS = 2
# The SD of a head-to-head pair score when none was seen (a deterministic bot plays itself to one
# win each side on every map): two independent games at 1/2, no draws. Pairing on a map only
# makes the real one smaller.
HEAD_TO_HEAD_SD = math.sqrt(0.125)
_REASONS = 3  # disqualification reasons kept per program, most frequent first
_REASON_CHARS = 120


@dataclass(frozen=True)
class Measured:
    """What the plan is computed from: one pilot at one time control, or a stored study."""

    source: str  # "pilot" or "stored"
    games: int  # games measured
    games_per_s: float
    pair_sd: float  # SD of one bot's pair score, within opponents (against itself: of a head-to-head pair)
    diff_sd: float  # SD of a paired difference between two coefficient sets on one map (against itself: pair_sd)
    diff_sd_measured: bool  # False: assumed (from pair_sd, or HEAD_TO_HEAD_SD)
    defaults_score: float  # the defaults' mean pair score: near 0 or 1 a gain has little room
    kind: str = "panel"  # "panel": against opponents; "itself": the study's bot against itself
    time: TimeControl | None = None  # the time control told (a frozen program keeps its own)
    programs: tuple = ()  # per program, its figures (``_Tally.figures``), the tuned one first
    game_seconds: Mapping[str, float] = field(default_factory=dict)  # CPU seconds a game, by opponent
    cpus: float = math.nan  # CPU seconds of games per second of wall time (how parallel the pilot played)
    start_seconds: float = math.nan  # per game: the first answers of its programs
    own_later_seconds: float = math.nan  # per game: the tuned program's answers after its first
    disqualified_games: int | None = None  # games that ended with a disqualification (either side)
    own_disqualified: int | None = None  # games the tuned bot was disqualified in
    # The game rate's 95% half-width relative to it, from the spread of the pilot's batches' cost
    # a game (NaN: fewer than two batches, or stored games); a load that changes moves it more.
    rate_half_width: float = math.nan

    @property
    def seconds_per_game(self) -> float:
        """CPU seconds of a game, over all its opponents (NaN if not timed)."""
        values = list(self.game_seconds.values())
        return math.fsum(values) / len(values) if values else math.nan

    def tuned(self) -> dict | None:
        """The tuned program's figures (None for an in-process bot, or from stored games)."""
        return next((p for p in self.programs if p["role"] == "tuned"), None)


class _Tally:
    """One program's answers and disqualifications over a pilot's games."""

    def __init__(self, name: str, role: str, told: TimeControl | None) -> None:
        self.name, self.role, self.told = name, role, told
        self.games = self.later = self.disqualified = self.early = 0
        self.firsts: list[float] = []
        self.longest: list[float] = []  # per game, its longest answer after the first
        self.later_ms = 0.0
        self.reasons: Counter = Counter()
        self.first_reason: str | None = None

    def add(self, row: Mapping, side: str) -> None:
        self.games += 1
        first, longest = row.get(f"{side}_answer_first_ms"), row.get(f"{side}_answer_max_ms")
        mean, answers = row.get(f"{side}_answer_mean_ms"), row.get(f"{side}_answers")
        if first is not None:
            self.firsts.append(first)
        if longest is not None:
            self.longest.append(longest)
        if mean is not None and answers and answers > 1:
            self.later_ms += mean * (answers - 1)
            self.later += answers - 1
        error = row.get(f"{side}_error")
        if error:
            self.disqualified += 1
            self.reasons[error[:_REASON_CHARS]] += 1
            self.first_reason = self.first_reason or error[:_REASON_CHARS]
            if row.get("turns", EARLY_TURNS + 1) <= EARLY_TURNS:
                self.early += 1

    def figures(self) -> dict:
        told = None if self.told is None else self.told.as_json()
        first = None if not self.firsts else {"mean": _round(math.fsum(self.firsts) / len(self.firsts)),
                                              "max": _round(max(self.firsts))}
        later = None if not self.later else {"mean": _round(self.later_ms / self.later),
                                             "p90": _round(_quantile(self.longest, 0.9)),
                                             "max": _round(max(self.longest))}
        limits = None if self.told is None else {"turn_ms": self.told.turn_limit_ms,
                                                 "first_turn_ms": self.told.first_limit_ms}
        return {"name": self.name, "role": self.role, "told": told, "limits_ms": limits, "games": self.games,
                "first_answer_ms": first, "answer_ms": later, "disqualified": self.disqualified,
                "disqualified_rate": _round(self.disqualified / self.games) if self.games else None,
                "disqualified_early": self.early, "reasons": dict(self.reasons.most_common(_REASONS)),
                "first_reason": self.first_reason}


def _spread(scores: dict, names: list[str]) -> tuple[float, float]:
    """(pooled SD within opponents, floored when no spread was seen; the mean score)."""
    values = list(scores.values())
    mean = sum(values) / len(values) if values else math.nan
    sd = pooled_sd(by_opponent(scores, names))
    if sd == 0.0:
        sd = unseen_spread(mean, len(values))
    return sd, mean


def pilot(spec: StudySpec, panel, pairs: int, workers: int, pool,
          progress: Callable[[int, int], None] | None = None, *, time: TimeControl | None = None) -> Measured:
    """Play the defaults against ``panel`` on the first ``pairs`` maps of the seed bank in
    ``pool`` (a ``BatchPool``; ``time``: the time control it plays at, default the pool's, else
    the study's) and measure. Nothing is stored."""
    return _pilot(spec, list(panel), pairs, workers, pool, progress, time, "panel")


def pilot_itself(spec: StudySpec, pairs: int, workers: int, pool,
                 progress: Callable[[int, int], None] | None = None, *, time: TimeControl | None = None) -> Measured:
    """Play the study's bot against itself, both at their reference parameters, on the first
    ``pairs`` maps of the seed bank (as ``pilot``): the cost of a head-to-head game and the SD
    of a head-to-head pair score (``HEAD_TO_HEAD_SD`` when every pair came out even)."""
    bot = study_bot(spec)
    return _pilot(spec, [bot.with_params(dict(bot.params), name=ITSELF)], pairs, workers, pool, progress, time,
                  "itself")


def _pilot(spec: StudySpec, panel: list, pairs: int, workers: int, pool, progress, told: TimeControl | None,
           kind: str) -> Measured:
    from tuning.driver.pool import play_all  # Ray: a plan from stored games never loads it
    if pairs < 2:
        raise TuningError(f"--pilot-pairs must be at least 2 (a spread needs two maps), got {pairs}")
    told = told or getattr(pool, "time_control", None) or spec.time_control
    seeds = spec.seed_bank.seeds(min(pairs, spec.seed_bank.count))
    space = build_space(spec)
    params = space.full_params(space.reference_params())
    setting = spec.batch_pairs if isinstance(spec.batch_pairs, int) else 10
    # At least two batches per worker, so every CPU plays and the rate is the cluster's; and two
    # per opponent, so the spread of each one's cost a game says how sure the rate is.
    batch_pairs = max(1, min(setting, len(seeds) * len(panel) // (2 * workers), len(seeds) // 2))
    pending = plan_batches(trial=REFERENCE_TRIAL, phase="train", panel=panel, seeds=seeds, batch_pairs=batch_pairs)
    total = sum(b.games for b in pending)
    scores: dict = {}
    tuned = None if spec.bot is None else _Tally("the tuned bot", "tuned", told)
    opponents = {b.name: _Tally(b.name, kind if kind == "itself" else "opponent",
                                b.program.time if told is None else told.for_program(b.program.time))
                 for b in panel if b.is_program}
    seconds: Counter = Counter()
    games: Counter = Counter()
    start_ms = own_later_ms = 0.0
    disqualified = own = 0

    costs: dict[str, list[float]] = {}  # CPU seconds a game, batch by batch, by opponent

    def measure(batch, result) -> None:
        nonlocal start_ms, own_later_ms, disqualified, own
        name = batch.opponent.name
        if result.rows:
            costs.setdefault(name, []).append(result.seconds / len(result.rows))
        scores.update(pair_scores_of_rows(name, result.rows))
        seconds[name] += result.seconds
        games[name] += len(result.rows)
        for row in result.rows:
            start_ms += (row.get("a_answer_first_ms") or 0.0) + (row.get("b_answer_first_ms") or 0.0)
            if row.get("a_answer_mean_ms") is not None and (row.get("a_answers") or 0) > 1:
                own_later_ms += row["a_answer_mean_ms"] * (row["a_answers"] - 1)
            disqualified += bool(row.get("a_error") or row.get("b_error"))
            own += bool(row.get("a_error"))
            if tuned is not None:
                tuned.add(row, "a")
            if name in opponents:
                opponents[name].add(row, "b")
        if progress:
            progress(sum(games.values()), total)

    # Each worker loads (or, on a new version, compiles) the kernels at its first batch: one map
    # a worker first, not timed and not counted, so the rate is a study's, not its first
    # minute's (issue 49: 5.4 games/s cold, then 38.6 and 79.9 for the same plan).
    warm = plan_batches(trial=REFERENCE_TRIAL, phase="train", panel=panel[:1], seeds=seeds[:max(1, workers)],
                        batch_pairs=1)
    play_all(pool, warm, lambda batch: params, lambda batch, result: None,
             lambda batch: f"pilot warm-up games against {batch.opponent.name}")
    start = clock.perf_counter()
    play_all(pool, pending, lambda batch: params, measure, lambda batch: f"pilot games against {batch.opponent.name}")
    wall = clock.perf_counter() - start
    played = sum(games.values())
    if kind == "itself":
        sd = pooled_sd(by_opponent(scores, [ITSELF]))
        seen = sd > 0
        sd = sd if seen else HEAD_TO_HEAD_SD
        mean = math.fsum(scores.values()) / len(scores) if scores else math.nan
        diff_sd = sd
    else:
        sd, mean = _spread(scores, [b.name for b in panel])
        seen, diff_sd = False, math.sqrt(2) * sd
    cpu = math.fsum(seconds.values())
    figures = ([] if tuned is None else [tuned.figures()]) + [t.figures() for t in opponents.values()]
    return Measured("pilot", played, played / wall if wall > 0 else math.nan, sd, diff_sd, seen, mean, kind=kind,
                    time=told, programs=tuple(figures),
                    game_seconds={n: seconds[n] / games[n] for n in games if games[n]},
                    cpus=cpu / wall if wall > 0 and cpu > 0 else math.nan,
                    start_seconds=start_ms / 1000 / played if played and (tuned or opponents) else math.nan,
                    own_later_seconds=own_later_ms / 1000 / played if played and tuned is not None else math.nan,
                    disqualified_games=disqualified, own_disqualified=own, rate_half_width=_half_width(costs))


def _half_width(costs: Mapping[str, list[float]]) -> float:
    """The 95% half-width of a game's cost (the mean over opponents of each one's mean cost a
    game, as ``Measured.seconds_per_game``), relative to it, from the spread of each opponent's
    batches (the opponents' own costs differ, and the mix is fixed); NaN if an opponent played
    fewer than two batches."""
    if not costs or any(len(c) < 2 for c in costs.values()):
        return math.nan
    means = {name: math.fsum(c) / len(c) for name, c in costs.items()}
    mean = math.fsum(means.values()) / len(means)
    if mean <= 0:
        return math.nan
    variance = math.fsum(math.fsum((x - means[name]) ** 2 for x in c) / (len(c) - 1) / len(c)
                         for name, c in costs.items()) / len(costs) ** 2
    return 1.96 * math.sqrt(variance) / mean


def from_stored(handle) -> Measured:
    """Measure on the training games a stored study played: the defaults' pair scores, the
    paired differences of the complete trials to the defaults, the rate of its sittings, and
    who was disqualified how often (answer times are not stored: a pilot measures them)."""
    from optuna.trial import TrialState

    if handle.spec.sampler.head_to_head:
        raise TuningError(f"study {handle.name!r} scores its trials head to head: tune plan measures such a study "
                          "from its study file (a pilot of its bot against itself), not from its stored games")
    names = [b.name for b in handle.panel]
    reference = handle.games.pair_scores(REFERENCE_TRIAL, "train")
    if len(reference) < 2:
        raise TuningError(f"study {handle.name!r} has fewer than two maps played by the defaults (trial 0): "
                          "nothing to measure yet; resume it, or plan from its study file (a pilot)")
    sd, mean = _spread(reference, names)
    squares, freedom = 0.0, 0
    for trial in handle.trials(TrialState.COMPLETE, TrialState.PRUNED):
        if trial.number == REFERENCE_TRIAL:
            continue
        spread, n = paired_sd(handle.games.pair_scores(trial.number, "train"), reference)
        if n > 1:
            squares += spread * spread * (n - 1)
            freedom += n - 1
    measured = freedom > 0 and squares > 0  # every difference 0 (say, all won): no spread seen, assume
    diff_sd = math.sqrt(squares / freedom) if measured else math.sqrt(2) * sd
    rounds = handle.games.batch_times("train")
    games, seconds = 0, 0.0
    for (before, _), (at, n) in zip(rounds, rounds[1:]):
        if at - before <= _SESSION_GAP:  # a pause (a driver stopped) is not playing time
            games += n
            seconds += at - before
    rate = games / seconds if seconds > 0 else math.nan
    counts = handle.games.disqualifications("train")
    played = sum(d["games"] for d in counts.values())
    own = sum(d["bot"] for d in counts.values())
    figures = []
    if handle.spec.bot is not None:
        first = next((d["first_bot_error"] for d in counts.values() if d["first_bot_error"]), None)
        figures.append(_stored_figures("the tuned bot", "tuned", handle.spec.time_control, played, own, first))
    programs = {b.name: b for b in handle.panel if b.is_program}
    for name, d in counts.items():
        if name in programs:
            figures.append(_stored_figures(name, "opponent", programs[name].program.time or handle.spec.time_control,
                                           d["games"], d["opponent"], d["first_opponent_error"]))
    # Per side's totals: a game in which both were disqualified counts twice (rare: both at the start).
    either = min(played, own + sum(d["opponent"] for d in counts.values()))
    return Measured("stored", sum(n for _, n in rounds), rate, sd, diff_sd, measured, mean,
                    time=handle.spec.time_control, programs=tuple(figures), disqualified_games=either,
                    own_disqualified=own)


def _stored_figures(name: str, role: str, told: TimeControl, games: int, disqualified: int, first) -> dict:
    tally = _Tally(name, role, told)
    tally.games, tally.disqualified, tally.first_reason = games, disqualified, first
    out = tally.figures()
    out["disqualified_early"] = None  # not stored per game: a pilot counts them
    out["reasons"] = {}
    return out


def _round(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)


def _quantile(values, q: float) -> float:
    """The ``q`` quantile of ``values``, the nearest rank (a pilot's few games: no interpolation)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]
