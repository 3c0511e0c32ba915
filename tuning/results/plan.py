"""``tune plan``: what a study's budget can detect, and what its games cost, before it is spent.

From a short pilot (the defaults against the panel on the study's first maps, on the current
Ray cluster at the study's time control) or from the games a stored study already played: the
games per second, the per-pair standard deviation of the score, and from them
(``tuning.stats.power``) the smallest gain the study can detect per trial and in validation, the
games and wall time to detect +0.02, +0.05 and +0.10, and, given hours, how many trials of how
many games fit, never more than the seed bank makes useful (``useful_trials``). Times come with a
range from the pilot's rate half-width (``seconds_range``).

A pilot (``tuning.results.pilot``) also watches every program it plays (the tuned one and each
program opponent): its answer times against the time it was told, its start-up (its first
answer, against ``first_turn_ms``) and how often and why it was disqualified; and what a game
costs: the start-up, the tuned bot's later answers and the rest. From them the plan says in words when a
shorter ``turn_ms`` will not make games cheaper, when the pilot's games were mostly
disqualifications (its spread is then the spread of timeouts) and when the tuned bot's own
disqualifications pass ``OWN_DISQUALIFICATIONS``.

Validation is planned as it plays (``tuning.results.validation``): the race of the defaults and
the top_k candidates (and an SPSA study's theta) against the training panel on the choosing half
of ``validation.games``' maps, the chosen set and the defaults on the judged half and against the
held-out panel (``[validation] panel``), and the head to head's SPRT, its expected games under H0
and H1 (Wald's approximation) up to ``validation.h2h_games``, with the not-worse parts' power, at
the validation's time control (a pilot plays a few games at it when it is not the study's).
A study of ``[sampler] kind = "spsa"`` with ``scoring = "head-to-head"`` plays, each trial, its
bot against itself (theta+ against theta-): its per-trial figures come from a pilot of the bot
against itself at its reference parameters, a head-to-head score's distance from 1/2.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Sequence

from ocean.timecontrol import TimeControl
from tuning.errors import TuningError
from tuning.results.pilot import (EARLY_TURNS, HEAD_TO_HEAD_SD, ITSELF, Measured, from_stored, pilot,
                                  pilot_itself)
from tuning.stats.power import (LEVEL, OWN_DISQUALIFICATIONS, POWER, budget_split, detectable_gain, half_width,
                                pairs_for_gain)
from tuning.study.spec import StudySpec

__all__ = ["Measured", "GAINS", "ITSELF", "MOSTLY_DISQUALIFIED", "SHORT_TURN_SHARE", "SAME_PACE", "OVER_TIME",
           "MIN_TRIALS", "pilot", "pilot_itself", "from_stored", "plan", "useful_trials", "seconds_range"]

GAINS = (0.02, 0.05, 0.10)  # gains in score (share of points) a study is usually hoped to find
MIN_TRIALS = 10  # fewer trials than this is hardly a search
# More games than this share ending by a disqualification (either side): the pilot measured
# timeouts and crashes, not play; its spread is not the spread of the study's comparisons.
MOSTLY_DISQUALIFIED = 0.5
# The tuned bot's answers after its first take less than this share of a game's cost: even a
# turn_ms of nothing would make games at most this much cheaper (start-up, the opponent and the
# referee are the rest).
SHORT_TURN_SHARE = 0.25
# Mean answer times within this factor at two turn_ms at least twice apart: the program answers
# in its own time whatever it is told.
SAME_PACE = 1.5
# A mean answer above turn_ms x this: the program does not keep to the time it is told. A bot
# that spends its whole turn answers a little over it (the pipes' and the scheduler's time).
OVER_TIME = 1.5
# A mean answer below turn_ms x this: the program does not spend the time it is told (it answers
# when its work is done), so a shorter turn_ms would not shorten its answers. Time-managed bots
# stop at about three quarters of their turn; this also holds on a loaded machine, whose slower
# answers only move a program above it.
SPARE_TIME = 0.5


def plan(spec: StudySpec, measured: Measured, opponents: int, validation_opponents: int,
         hours: float | None = None, gain: float = 0.05, *, more: Sequence[Measured] = (),
         validation_time: TimeControl | None = None) -> dict:
    """The plan as one JSON-able dict (see the module's docstring). ``measured``: the defaults
    against the panel (a pilot or a stored study); ``more``: other pilots (the bot against itself,
    games at the validation's time control, against the held-out panel); ``validation_time``:
    the validation's time control (default the study's); ``gain``: what ``hours`` is planned
    to detect per trial. A budget the hours cannot hold is not raised: its one line is the
    plan's ``refusal`` (the figures stand)."""
    if hours is not None and not hours > 0:
        raise TuningError(f"--hours must be above 0, got {hours}")
    if not gain > 0:
        raise TuningError(f"--gain must be above 0, got {gain}")
    if not (measured.diff_sd >= 0 and math.isfinite(measured.diff_sd)):
        raise TuningError("the pilot's games did not vary (or too few were played) to measure a spread: "
                          "raise --pilot-pairs")
    study_time, val_time = spec.time_control, validation_time or spec.time_control
    measures = [measured, *more]
    h2h = spec.sampler.head_to_head
    training = measured
    if h2h:
        training = _find(measures, "itself", study_time)
        if training is None:
            raise TuningError("a head-to-head study plays its bot against itself in every trial: plan it from its "
                              "study file (a pilot of the bot against itself)")
    sd, rate = training.diff_sd, training.games_per_s
    units = 1 if h2h else opponents  # what a trial's games per opponent are played against
    trial_pairs = spec.pairs_per_opponent * units

    def seconds(games: float) -> float | None:
        return round(games / rate, 1) if rate and math.isfinite(rate) else None

    validation = _validation(spec, measured, measures, opponents, validation_opponents, val_time, rate)
    games_for = {f"{g:g}": 2 * pairs_for_gain(sd, g) for g in GAINS}
    trial_seconds = seconds(2 * trial_pairs)
    out = {
        "study": spec.name,
        "source": measured.source,
        "scoring": "head-to-head" if h2h else "panel",
        "time_control": study_time.as_json(),
        "games_measured": training.games,
        "games_per_s": _round(rate),
        "games_per_s_half_width": _round(training.rate_half_width),  # relative, 95%, from the pilot's batches
        "pair_sd": _round(training.pair_sd),
        "diff_sd": _round(sd),
        "diff_sd_measured": training.diff_sd_measured,
        "defaults_score": _round(measured.defaults_score),
        "level": LEVEL,
        "power": POWER,
        "per_trial": {"games": 2 * trial_pairs, "seconds": trial_seconds,
                      "interval_half_width": _round(half_width(sd, trial_pairs)),
                      "detectable_gain": _round(detectable_gain(sd, trial_pairs))},
        "validation": validation,
        "study_budget": {"trials": spec.n_trials, "games": spec.n_trials * 2 * trial_pairs + validation["games"],
                         "seconds": _sum_seconds(None if trial_seconds is None else spec.n_trials * trial_seconds,
                                                 validation["seconds"])},
        "useful_trials": None if h2h else useful_trials(sd, trial_pairs, gain),  # at the study's games per trial
        # per candidate (the defaults' games are played once, shared by all)
        "games_for_gain": games_for,
        "seconds_for_gain": {k: seconds(v) for k, v in games_for.items()},
        "pilots": [_pilot_json(m) for m in measures],
    }
    out["study_budget"]["seconds_range"] = seconds_range(out["study_budget"]["seconds"], training.rate_half_width)
    out["detectable_gain"] = {"per_trial": out["per_trial"]["detectable_gain"],
                              "validation": validation["detectable_gain"],
                              "head_to_head": validation["head_to_head"]["detectable_gain"]}
    out.update(_judgement(training, measures, study_time))
    out["recommendation"], out["refusal"] = None, None
    if hours is not None:
        try:
            out["recommendation"] = _recommend(spec, out, hours, gain, units, validation)
        except TuningError as exc:
            out["refusal"] = str(exc)
    return out


def _find(measures: Sequence[Measured], kind: str, time: TimeControl) -> Measured | None:
    return next((m for m in measures if m.kind == kind and m.time == time), None)


def _validation(spec: StudySpec, measured: Measured, measures: Sequence[Measured], opponents: int,
                validation_opponents: int, val_time: TimeControl, rate: float) -> dict:
    """What the sequential validation plays and can detect, and how long it takes at its time
    control: the race in full (no candidate dropped: the most it plays), the chosen set and the
    reference judged, and the head to head's SPRT at its expected length under H0 and H1."""
    from tuning.stats.sequential import elo_margin_as_score, expected_pairs, non_inferiority_power
    from tuning.stats.sprt import Settings

    v = spec.validation
    chosen_on, judged, h2h_maps = v.map_counts(v.games, head_to_head=spec.sampler.head_to_head)
    # a head-to-head study validates its theta alone; a panel-scored SPSA study, its theta too
    candidates = 1 if spec.sampler.head_to_head else v.top_k + int(spec.sampler.has_theta)
    held_out = validation_opponents - opponents
    race_games = 0 if spec.sampler.head_to_head else (candidates + 1) * 2 * chosen_on * opponents
    judge_games = 2 * 2 * judged * opponents + 2 * 2 * (chosen_on + judged) * held_out
    panel_games = race_games + judge_games
    max_h2h = 2 * h2h_maps
    validation_pairs = judged * opponents
    itself = _find(measures, "itself", val_time) or _find(measures, "itself", spec.time_control)
    h2h_sd, h2h_measured = (itself.pair_sd, itself.diff_sd_measured) if itself else (HEAD_TO_HEAD_SD, False)
    settings = Settings(v.elo0, v.elo1, v.alpha, v.beta)
    expected = {key: min(max_h2h, 2 * math.ceil(expected_pairs(settings, elo, h2h_sd)))
                for key, elo in (("h0", v.elo0), ("h1", v.elo1))}
    costs: dict[str, float] = {}
    for m in measures:
        if m.time == val_time:
            costs.update(m.game_seconds)
    cpus = next((m.cpus for m in measures if math.isfinite(m.cpus)), math.nan)
    against = [c for name, c in costs.items() if name != ITSELF]

    def seconds(h2h_games: int) -> float | None:
        if against and math.isfinite(cpus):
            cpu = panel_games * math.fsum(against) / len(against) + h2h_games * costs.get(ITSELF, max(against))
            return round(cpu / cpus, 1)
        if val_time == spec.time_control and rate and math.isfinite(rate):
            return round((panel_games + h2h_games) / rate, 1)
        return None

    cost_from = "pilot" if against and math.isfinite(cpus) else \
        "training rate" if val_time == spec.time_control and rate and math.isfinite(rate) else None
    # the not-worse parts' margin in score units, at the defaults' score (the plan's best guess of the reference's)
    margin = elo_margin_as_score(measured.defaults_score, v.not_worse_elo)
    held_pairs = (chosen_on + judged) * held_out
    return {"time_control": val_time.as_json(), "games_per_candidate": v.games * validation_opponents,
            # games: expected when there is no gain (the SPRT's H0), the most common case of a long run
            "games": panel_games + expected["h0"], "games_h1": panel_games + expected["h1"],
            "max_games": panel_games + max_h2h, "panel_games": panel_games, "race_games": race_games,
            "seconds": seconds(expected["h0"]), "seconds_h1": seconds(expected["h1"]),
            "seconds_max": seconds(max_h2h),
            "cost_from": cost_from, "opponents": validation_opponents, "held_out_opponents": held_out,
            "interval_half_width": _round(half_width(measured.diff_sd, validation_pairs)),
            "detectable_gain": _round(detectable_gain(measured.diff_sd, validation_pairs)),
            "not_worse": {"margin_elo": v.not_worse_elo, "margin": _round(margin),
                          # the chance that a set equal to the reference is shown not worse
                          "training_panel_power": _round(non_inferiority_power(measured.diff_sd, validation_pairs,
                                                                               margin)),
                          "held_out_power": _round(non_inferiority_power(measured.diff_sd, held_pairs, margin))
                          if held_out else None},
            "head_to_head": {"games": max_h2h, "sd": _round(h2h_sd), "sd_measured": h2h_measured,
                             "interval_half_width": _round(half_width(h2h_sd, max(1, max_h2h // 2))),
                             "detectable_gain": _round(detectable_gain(h2h_sd, max(1, max_h2h // 2))),
                             "sprt": {"elo0": v.elo0, "elo1": v.elo1, "alpha": v.alpha, "beta": v.beta,
                                      "expected_games_h0": expected["h0"], "expected_games_h1": expected["h1"],
                                      "max_games": max_h2h}}}


def _judgement(training: Measured, measures: Sequence[Measured], study_time: TimeControl) -> dict:
    """The plan's words on what the pilots saw: the tuned bot's disqualifications, games that were
    mostly disqualifications, opponents that fail, and whether a shorter turn_ms makes games cheaper."""
    warnings = []
    for m in measures:
        if not m.games or m.disqualified_games is None:
            continue
        at = "" if m.time is None else f" at {m.time.turn_ms} ms a turn"
        games = "pilot games" if m.source == "pilot" else "stored training games"
        what = "against itself" if m.kind == "itself" else "against the panel" if m is measures[0] else \
            "against the validation's opponents"
        tuned = m.tuned()
        if tuned is not None and tuned["games"] and tuned["disqualified"] / tuned["games"] > OWN_DISQUALIFICATIONS:
            warnings.append(f"the tuned bot was disqualified in {tuned['disqualified']} of {tuned['games']} {games} "
                            f"{what}{at} ({tuned['disqualified'] / tuned['games']:.0%}, above "
                            f"{OWN_DISQUALIFICATIONS:.0%}){_early(tuned)}: {_reasons(tuned)}; a study at these "
                            "settings counts each as a loss")
        if m.disqualified_games > MOSTLY_DISQUALIFIED * m.games:
            warnings.append(f"the {games} {what}{at} were mostly disqualifications ({m.disqualified_games} of "
                            f"{m.games}): the noise measured on them (pair SD) is the noise of timeouts and crashes, "
                            "not to be trusted, and a study at these settings would measure timeouts more than "
                            "parameters")
        for p in m.programs:
            if p["role"] == "opponent" and p["games"] and p["disqualified"] / p["games"] > OWN_DISQUALIFICATIONS:
                warnings.append(f"opponent {_short(p['name'])} was disqualified in {p['disqualified']} of {p['games']} "
                                f"{games}{at} ({_reasons(p)}): those games say nothing of the tuned bot")
    cheaper, words = _cheaper(training, measures, study_time)
    if words:
        warnings.append(words)
    tuned = training.tuned()
    rate = None if tuned is None or not tuned["games"] else _round(tuned["disqualified"] / tuned["games"])
    share = None if not training.games or training.disqualified_games is None else \
        _round(training.disqualified_games / training.games)
    return {"own_disqualified_rate": rate, "own_disqualified_warning": OWN_DISQUALIFICATIONS,
            "disqualified_share": share, "mostly_disqualified": None if share is None else share > MOSTLY_DISQUALIFIED,
            "shorter_turn_cheaper": cheaper, "warnings": warnings}


def _cheaper(training: Measured, measures: Sequence[Measured], study_time: TimeControl) -> tuple[bool | None, str]:
    """(would a shorter turn_ms make the study's games cheaper, the words when not): None when
    the pilot could not tell (an in-process bot, which ignores time; stored games; no later answers)."""
    tuned = training.tuned()
    cost = training.seconds_per_game
    if tuned is None or tuned["answer_ms"] is None or not math.isfinite(cost) or cost <= 0:
        return None, ""
    mean, told = tuned["answer_ms"]["mean"], study_time.turn_ms
    share = training.own_later_seconds / cost
    other = next((m for m in measures if m.kind == training.kind and m.time is not None
                  and m.time.turn_ms != told and m.tuned() and m.tuned()["answer_ms"]), None)
    same_pace = False
    if other is not None:
        mean2, told2 = other.tuned()["answer_ms"]["mean"], other.time.turn_ms
        same_pace = max(told, told2) >= 2 * min(told, told2) and \
            max(mean, mean2) <= SAME_PACE * max(min(mean, mean2), 1e-9)
    follows = mean <= OVER_TIME * told
    spends = mean >= SPARE_TIME * told
    if follows and spends and share >= SHORT_TURN_SHARE and not same_pace:
        return True, ""
    if same_pace:
        pace = (f"the tuned bot answers in {mean:.1f} ms whatever it is told ({mean:.1f} ms at turn_ms {told}, "
                f"{mean2:.1f} ms at turn_ms {told2})")
    elif not follows:
        pace = f"the tuned bot answers in {mean:.1f} ms although told turn_ms {told}"
    elif not spends:
        pace = f"the tuned bot answers in {mean:.1f} ms, well inside its turn_ms {told} (it does not spend its time)"
    else:
        pace = f"the tuned bot answers in {mean:.1f} ms (turn_ms {told})"
    games = f"a game costs {cost:.2f} s of which start-up {training.start_seconds:.2f} s and its later answers " \
            f"{training.own_later_seconds:.2f} s"
    if other is not None:
        # like with like: the opponents both pilots played (the validation's may hold more)
        common = [other.game_seconds[n] for n in training.game_seconds if n in other.game_seconds]
        if common:
            games += f" ({math.fsum(common) / len(common):.2f} s at turn_ms {other.time.turn_ms})"
    return False, f"{pace}; {games}: a shorter turn_ms will not make games cheaper"


def _early(p: dict) -> str:
    return f", {p['disqualified_early']} of them by turn {EARLY_TURNS}" if p.get("disqualified_early") else ""


def _reasons(p: dict) -> str:
    if p["reasons"]:
        return ", ".join(f"{why} ({n})" for why, n in p["reasons"].items())
    return f"first: {p['first_reason']}" if p["first_reason"] else "no reason stored"


def _short(name: str, chars: int = 48) -> str:
    return name if len(name) <= chars else name[:chars - 3] + "..."


def _pilot_json(m: Measured) -> dict:
    return {"source": m.source, "kind": m.kind, "time_control": None if m.time is None else m.time.as_json(),
            "games": m.games, "games_per_s": _round(m.games_per_s), "pair_sd": _round(m.pair_sd),
            "seconds_per_game": _round(m.seconds_per_game),
            "seconds_per_game_by_opponent": {k: _round(v) for k, v in m.game_seconds.items()},
            "start_up_seconds": _round(m.start_seconds), "tuned_answers_seconds": _round(m.own_later_seconds),
            "disqualified_games": m.disqualified_games, "own_disqualified": m.own_disqualified,
            "programs": list(m.programs)}


def useful_trials(diff_sd: float, pairs: int, gain: float) -> int | None:
    """The most trials worth judging on the same ``pairs`` paired maps (maps x opponents) to find
    ``gain``: past it the best of them on those maps leads its true score by the maps' luck alone
    by more than ``gain``. A game is a pure function of its seeds, so replaying the maps never
    averages their luck away: a trial's score differs from its true one by about
    ``diff_sd / sqrt(pairs)`` however many trials are played, and the best of n leads by
    E[max of n standard normals] times that (Blom's approximation, ``Phi^-1((n - 0.375) /
    (n + 0.25))``; ``sqrt(2 ln n)`` for large n). None: no limit (no spread, or one too small to
    matter)."""
    if not (diff_sd > 0 and math.isfinite(diff_sd)) or pairs < 1:
        return None
    z = gain / (diff_sd / math.sqrt(pairs))
    if z > 8:  # the cap passes 10^15 trials
        return None
    q = NormalDist().cdf(z)
    return max(1, math.floor((0.375 + 0.25 * q) / (1 - q)))


def seconds_range(seconds: float | None, rate_half_width: float) -> list[float] | None:
    """[low, high] of a time predicted at a game rate known to +-``rate_half_width`` (relative,
    95%, at the load the pilot ran at); high None when the rate could be 0; None when unknown."""
    if seconds is None or rate_half_width is None or not math.isfinite(rate_half_width):
        return None
    high = round(seconds / (1 - rate_half_width), 1) if rate_half_width < 1 else None
    return [round(seconds / (1 + rate_half_width), 1), high]


def _recommend(spec: StudySpec, out: dict, hours: float, gain: float, units: int, validation: dict) -> dict:
    rate, sd = out["games_per_s"], out["diff_sd"]
    if rate is None or not math.isfinite(rate) or rate <= 0:
        raise TuningError("no game rate was measured (too few batches); raise --pilot-pairs")
    if validation["seconds"] is None:
        raise TuningError("no game rate was measured at the validation's time control: plan from the study file "
                          "(a pilot plays a few games at it)")
    training_seconds = hours * 3600 - validation["seconds"]
    training = max(0.0, training_seconds) * rate
    if training < MIN_TRIALS * 2 * units:
        raise TuningError(f"{hours:g} h cannot hold the study: validation alone takes {validation['games']} games "
                          f"({_duration(validation['seconds'])}) and {MIN_TRIALS} trials at least "
                          f"{MIN_TRIALS * 2 * units} more at {rate:.2f} games/s; give more --hours, fewer validation "
                          "games, or a shorter time control")
    trials, per_opponent = budget_split(training, sd, gain, units, min_trials=MIN_TRIALS,
                                        max_pairs_per_opponent=spec.seed_bank.count)
    aimed, limit = per_opponent, _Limit(spec, sd, gain, units)
    trials, per_opponent, capped = limit.spend(training, trials, per_opponent)
    pairs = per_opponent // 2 * units
    played = trials * per_opponent * units
    seconds = round(played / rate + validation["seconds"], 1)
    reason = None
    if capped:
        bank = spec.seed_bank.count
        wider = limit.maps_for(training)
        reason = (f"the seed bank, not the budget, limits n_trials to {trials}: every trial plays the same "
                  f"{per_opponent // 2} maps{'' if units == 1 else ' per opponent'}, and past {trials} trials the best "
                  f"of them on those maps would lead by their luck alone by more than {gain:g}; the rest of the "
                  f"{hours:g} h is better spent on more maps per trial: seed_bank count about {wider} "
                  f"(now {bank}) and games_per_opponent = {2 * wider}" if wider else
                  f"the seed bank, not the budget, limits n_trials to {trials}: every trial plays the same maps; "
                  f"widen seed_bank (now {bank} maps) to spend the rest of the {hours:g} h")
    elif per_opponent > aimed:
        reason = (f"games_per_opponent raised from {aimed} to {per_opponent}: at {aimed} the budget's "
                  f"{int(training // (aimed * units))} trials on the same maps would pass the {limit.cap(aimed)} "
                  f"whose best leads by the maps' luck by less than {gain:g}")
    return {"hours": hours, "games": played + validation["games"], "training_games": int(training),
            "gain": gain, "n_trials": trials, "games_per_opponent": per_opponent,
            "detectable_gain_per_trial": _round(detectable_gain(sd, pairs)),
            "seed_bank_limits": per_opponent // 2 >= spec.seed_bank.count,
            "useful_trials": limit.cap(per_opponent), "limited_by": "seed bank" if capped else "budget",
            "limit_reason": reason, "seconds": seconds,
            "seconds_range": seconds_range(seconds, out["games_per_s_half_width"])}


class _Limit:
    """How many trials a study's seed bank makes useful (``useful_trials``) at a number of games
    per opponent, and how to spend a budget under it: a head-to-head study chooses no trial (its
    theta is what it found, and each iteration plays the bank's next maps), so it has none."""

    def __init__(self, spec: StudySpec, sd: float, gain: float, units: int):
        self.spec, self.sd, self.gain, self.units = spec, sd, gain, units

    def cap(self, per_opponent: int) -> int | None:
        if self.spec.sampler.head_to_head:
            return None
        return useful_trials(self.sd, per_opponent // 2 * self.units, self.gain)

    def spend(self, training: float, trials: int, per_opponent: int) -> tuple[int, int, bool]:
        """(trials, games per opponent, capped by the seed bank): the budget's trials when the
        bank makes them useful; else more maps per trial (each then errs less, so more trials
        stay useful) up to the whole bank; else the useful trials at the whole bank."""
        cap = self.cap(per_opponent)
        if cap is None or trials <= cap:
            return trials, per_opponent, False
        for per in range(per_opponent + 2, 2 * self.spec.seed_bank.count + 1, 2):
            fit, cap = int(training // (per * self.units)), self.cap(per)
            if cap is None or fit <= cap:
                return max(fit, 1), per, False
        per = max(per_opponent, 2 * self.spec.seed_bank.count)
        return self.cap(per) or trials, per, True

    def maps_for(self, training: float) -> int | None:
        """Maps per opponent a trial needs for the budget's trials to stay useful (None past 10^6)."""
        maps = self.spec.seed_bank.count
        while maps <= 10**6:
            cap = self.cap(2 * maps)
            if cap is None or training // (2 * maps * self.units) <= cap:
                return maps
            maps = max(maps + 1, math.ceil(maps * 1.05))
        return None


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.1f} h")


def _sum_seconds(*parts: float | None) -> float | None:
    return None if any(p is None for p in parts) else round(sum(parts), 1)


def _round(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)
