"""Where a study stands, as one JSON-able dict read from the database."""
from __future__ import annotations

import math

from optuna.trial import FrozenTrial, TrialState

from tuning.results.verdict import PHASE, reference_name, time_from_key, validation_phase, verdict_of
from tuning.stats.estimates import Estimate, elo_estimate, panel_elo
from tuning.storage.handle import StudyHandle
from tuning.storage.provenance import describe_code
from tuning.storage.trialindex import best_complete_number, running_numbers, trial_counts, user_attr_sum
from tuning.study.space import REFERENCE_TRIAL

__all__ = ["study_status", "best_trial", "elo_summary"]

_STATES = {"complete": TrialState.COMPLETE, "running": TrialState.RUNNING, "pruned": TrialState.PRUNED,
           "failed": TrialState.FAIL, "waiting": TrialState.WAITING}


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def elo_summary(per_opponent: dict[str, dict], opponents: list[str]) -> dict:
    """Stored per-opponent scores ({mean, low, high, n}) as Elo: against each opponent and
    against ``opponents`` (the training panel: what "best" is judged on), with intervals."""
    each = {name: Estimate(d["mean"], d["low"], d["high"], d["n"]) for name, d in per_opponent.items()
            if d.get("mean") is not None and d.get("n")}
    overall = panel_elo({name: e for name, e in each.items() if name in opponents})
    return {"elo": _num(overall.mean), "elo_low": _num(overall.low), "elo_high": _num(overall.high),
            "elo_per_opponent": {name: [_num(x) for x in (e.mean, e.low, e.high)]
                                 for name, e in ((n, elo_estimate(e)) for n, e in each.items())}}


def best_trial(handle: StudyHandle, validations: list | None = None) -> dict | None:
    """The study's best: the best validated trial if any was validated (of the latest
    validation: its time control, games and seeds), with its ``verdict`` against the defaults
    validated beside it; else the best training score (flagged ``validated: false`` — a noisy
    winner until validated, with no verdict). ``validations``: the study's, if already read."""
    validations = handle.games.validations() if validations is None else validations
    if validations:
        v = validations[0]
        time = time_from_key(v.time_control, handle.spec.time_control)
        parts = v.verdict or {}
        return {"trial": v.trial, "score": _num(v.score), "low": _num(v.low), "high": _num(v.high),
                "validated": True, "games_per_opponent": v.games, "seeds": v.seeds,
                "time_control": time.as_json(),
                "verdict": verdict_of(v.verdict, v.diff_low, has_parts=any(w.verdict for w in validations)),
                # the verdict's three parts (None from validations before them) and which failed
                "head_to_head": parts.get("head_to_head"), "training_panel": parts.get("training_panel"),
                "held_out": parts.get("held_out"), "failed": parts.get("failed"),
                # the sequential validation: games it played, the head to head's SPRT, the race
                **_sequential(parts),
                "selection_score": _num(v.selection_score),
                "diff_vs_defaults": _num(v.diff), "diff_low": _num(v.diff_low), "diff_high": _num(v.diff_high),
                # a warm study's difference is to its start file: said so, the old key kept as promised
                **({"diff_vs_start_file": _num(v.diff)} if handle.spec.start else {}),
                "reference": reference_name(handle.spec.start),
                "held_out_score": _num(v.heldout_score), "held_out_low": _num(v.heldout_low),
                "held_out_high": _num(v.heldout_high), "params": v.params,
                **elo_summary(v.per_opponent, [b.name for b in handle.panel])}
    if handle.spec.sampler.head_to_head:
        return _head_to_head_point(handle)
    t = _best_complete(handle)
    if t is None:
        return None
    return {"trial": t.number, "score": _num(t.value), "low": _num(t.user_attrs.get("score_low")),
            "high": _num(t.user_attrs.get("score_high")), "validated": False,
            "games_per_opponent": 2 * len(handle.spec.training_seeds()),
            "params": handle.space.full_params(t.params),
            **elo_summary(t.user_attrs.get("per_opponent") or {}, [b.name for b in handle.panel])}


def _sequential(parts: dict) -> dict:
    """The sequential validation's own fields (None from validations before it): ``games_played``,
    ``sprt`` (its ``llr``, ``lower_bound``, ``upper_bound``, ``elo0``, ``elo1``, ``alpha``,
    ``beta``, ``decision``: "H1", "H0" or "no decision" where it hit ``max_games``, and
    ``more_games``: what a decision would take at its pace so far), ``no_decision``, ``race``
    (rounds, choosing maps, the round each candidate was dropped after) and ``runner_up`` (when
    the race dropped every candidate: the closest one's difference to the reference)."""
    h2h = parts.get("head_to_head") or {}
    keys = ("llr", "lower_bound", "upper_bound", "elo0", "elo1", "alpha", "beta", "decision", "max_games", "more_games")
    sprt = {k: h2h.get(k) for k in keys} if "llr" in h2h else None
    return {"games_played": parts.get("games_played"), "sprt": sprt,
            "no_decision": None if sprt is None else sprt["decision"] == "no decision",
            "race": parts.get("race"), "runner_up": parts.get("runner_up")}


def _head_to_head_point(handle: StudyHandle) -> dict | None:
    """A head-to-head study's best before validation: the point it has found so far (not a
    trial's score: each trial only played its own pair against itself)."""
    if not handle.trials(TrialState.COMPLETE):
        return None
    number, params = handle.final_point()
    return {"trial": number, "score": None, "low": None, "high": None, "validated": False,
            "games_per_opponent": None, "params": params, "point": f"theta after {number} iterations",
            "elo": None, "elo_low": None, "elo_high": None, "elo_per_opponent": {}}


def _best_complete(handle: StudyHandle) -> FrozenTrial | None:
    """The complete trial with the best training score (the lowest number among equals), read
    as one trial, not by loading them all."""
    number = best_complete_number(handle.storage.engine, handle.name)
    return None if number is None else _trial(handle, number)


def _trial(handle: StudyHandle, number: int) -> FrozenTrial | None:
    """Trial ``number`` of the study, read alone; None if there is none."""
    rdb = handle.storage.optuna
    try:
        study_id = rdb.get_study_id_from_name(handle.name)
        return rdb.get_trial(rdb.get_trial_id_from_study_id_trial_number(study_id, number))
    except KeyError:
        return None


def study_status(handle: StudyHandle) -> dict:
    """Trials by state, best with interval, games played, games/s and ETA. Reads counts and
    sums (Optuna's trial table, our summary tables) and a couple of single trials, never every
    trial or every game: it stays quick on a study of thousands of trials and millions of games."""
    engine = handle.storage.engine
    by_state = trial_counts(engine, handle.name)
    counts = {key: by_state[state] for key, state in _STATES.items()}
    finished = counts["complete"] + counts["pruned"] + counts["failed"]
    games = handle.games
    train = games.count_games(phase="train")
    study_time = handle.spec.time_control
    phases = {PHASE} | {validation_phase(time_from_key(key, study_time), study_time)
                        for key in games.validated_time_controls()}
    validate = sum(games.count_games(phase=phase) for phase in phases)  # at every time control
    saved = int(user_attr_sum(engine, handle.name, "games_saved", TrialState.PRUNED))
    rate, last = games.recent_rate()
    opponents = 1 if handle.spec.sampler.head_to_head else len(handle.panel)  # head to head: theta- alone
    games_per_trial = 2 * len(handle.spec.training_seeds()) * opponents
    eta = None
    if counts["running"] and rate:
        # A trial to come costs what finished ones cost on average (pruning makes many cheap).
        by_trial = games.games_by_trial("train")
        running = [by_trial.get(n, 0) for n in running_numbers(engine, handle.name)]
        per_trial = (train - sum(running)) / finished if finished else games_per_trial
        remaining = (max(0, handle.target_trials - finished - len(running)) * per_trial
                     + sum(max(0.0, per_trial - g) for g in running))
        eta = round(remaining / rate, 1)
    spec = handle.spec
    validations = games.validations()  # read once: the best and the defaults beside it
    disqualified = games.disqualifications()
    bot_errors = sum(d["bot"] for d in disqualified.values())
    return {
        "study": handle.name,
        "storage": handle.storage.masked,
        "target_trials": handle.target_trials,
        "trials": counts,
        "finished": finished >= handle.target_trials and not counts["running"],
        "time_control": spec.time_control.as_json(),  # tuned at
        "best": best_trial(handle, validations),
        "defaults": _defaults(handle, validations),
        "games": {"train": train, "validate": validate, "total": train + validate, "saved_by_pruning": saved,
                  "per_trial": games_per_trial},
        "games_per_second": _num(rate),
        "last_batch_at": _num(last),
        "eta_seconds": eta,
        "panel": [b.name for b in handle.panel],
        "held_out_panel": None if handle.held_out is None else [b.name for b in handle.held_out],
        "program": None if spec.bot is None else spec.bot.command,
        # per opponent, over every game stored (training and validation): who was disqualified, why,
        # and the games played again because the opponent lost them to its clock or a crash
        "disqualifications": disqualified,
        "games_replayed": sum(d["replayed"] for d in disqualified.values()),
        "games_set_aside": sum(d["set_aside"] for d in disqualified.values()),
        # the tuned program's own disqualifications (losses), over every game stored
        "bot_disqualification_rate": _num(bot_errors / max(1, sum(d["games"] for d in disqualified.values()))),
        "scoring": "head-to-head" if spec.sampler.head_to_head else "panel",
        "seed_bank": spec.seed_bank.describe(),
        "sampler": spec.sampler.kind,
        "code": describe_code(handle.code),  # the code digest(s) its games were played under
    }


def _defaults(handle: StudyHandle, validations: list) -> dict | None:
    """The defaults (trial 0) as the best is judged against them: validated beside the best
    when the study was validated (like with like), else their training score."""
    checked = next((v for v in validations if v.trial == REFERENCE_TRIAL), None)
    if checked is not None:
        return {"trial": REFERENCE_TRIAL, "score": _num(checked.score), "low": _num(checked.low),
                "high": _num(checked.high), "validated": True}
    reference = _trial(handle, REFERENCE_TRIAL)
    if reference is None or reference.state != TrialState.COMPLETE:
        return None
    return {"trial": REFERENCE_TRIAL, "score": _num(reference.value), "low": _num(reference.user_attrs.get("score_low")),
            "high": _num(reference.user_attrs.get("score_high")), "validated": False}
