"""Where a study stands, as one JSON-able dict read from the database."""
from __future__ import annotations

import math

from optuna.trial import TrialState

from tuning.stats import Estimate, elo_estimate, panel_elo
from tuning.study import REFERENCE_TRIAL, StudyHandle

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


def best_trial(handle: StudyHandle) -> dict | None:
    """The study's best: the best validated trial if any was validated, else the best training
    score (flagged ``validated: false`` — a noisy winner until validated)."""
    validations = handle.games.validations()
    if validations:
        v = validations[0]
        return {"trial": v.trial, "score": _num(v.score), "low": _num(v.low), "high": _num(v.high),
                "validated": True, "games_per_opponent": v.games, "seeds": v.seeds,
                "diff_vs_defaults": _num(v.diff), "diff_low": _num(v.diff_low), "diff_high": _num(v.diff_high),
                "held_out_score": _num(v.heldout_score), "held_out_low": _num(v.heldout_low),
                "held_out_high": _num(v.heldout_high), "params": v.params,
                **elo_summary(v.per_opponent, [b.name for b in handle.panel])}
    complete = [t for t in handle.trials(TrialState.COMPLETE) if t.value is not None]
    if not complete:
        return None
    t = max(complete, key=lambda t: (t.value, -t.number))
    return {"trial": t.number, "score": _num(t.value), "low": _num(t.user_attrs.get("score_low")),
            "high": _num(t.user_attrs.get("score_high")), "validated": False,
            "games_per_opponent": 2 * len(handle.spec.training_seeds()),
            "params": handle.space.full_params(t.params),
            **elo_summary(t.user_attrs.get("per_opponent") or {}, [b.name for b in handle.panel])}


def study_status(handle: StudyHandle) -> dict:
    """Trials by state, best with interval, games played, games/s and ETA."""
    trials = handle.trials()
    counts = {key: sum(1 for t in trials if t.state == state) for key, state in _STATES.items()}
    finished = counts["complete"] + counts["pruned"] + counts["failed"]
    games = handle.games
    train = games.count_games(phase="train")
    validate = games.count_games(phase="validate")
    saved = sum(int(t.user_attrs.get("games_saved", 0)) for t in trials if t.state == TrialState.PRUNED)
    rate, last = games.recent_rate()
    games_per_trial = 2 * len(handle.spec.training_seeds()) * len(handle.panel)
    eta = None
    if counts["running"] and rate:
        # A trial to come costs what finished ones cost on average (pruning makes many cheap).
        by_trial = games.games_by_trial("train")
        done = [by_trial.get(t.number, 0) for t in trials if t.state.is_finished()]
        per_trial = sum(done) / len(done) if done else games_per_trial
        running = [by_trial.get(t.number, 0) for t in trials if t.state == TrialState.RUNNING]
        remaining = (max(0, handle.target_trials - finished - len(running)) * per_trial
                     + sum(max(0.0, per_trial - g) for g in running))
        eta = round(remaining / rate, 1)
    reference = next((t for t in trials if t.number == REFERENCE_TRIAL and t.state == TrialState.COMPLETE), None)
    spec = handle.spec
    return {
        "study": handle.name,
        "storage": handle.storage.masked,
        "target_trials": handle.target_trials,
        "trials": counts,
        "finished": finished >= handle.target_trials and not counts["running"],
        "best": best_trial(handle),
        "defaults": None if reference is None else {
            "trial": REFERENCE_TRIAL, "score": _num(reference.value),
            "low": _num(reference.user_attrs.get("score_low")), "high": _num(reference.user_attrs.get("score_high"))},
        "games": {"train": train, "validate": validate, "total": train + validate, "saved_by_pruning": saved,
                  "per_trial": games_per_trial},
        "games_per_second": _num(rate),
        "last_batch_at": _num(last),
        "eta_seconds": eta,
        "panel": [b.name for b in handle.panel],
        "held_out_panel": None if handle.held_out is None else [b.name for b in handle.held_out],
        "program": None if spec.bot is None else spec.bot.command,
        # per opponent, over every game stored (training and validation): who was disqualified, why
        "disqualifications": games.disqualifications(),
        "seed_bank": spec.seed_bank.describe(),
        "sampler": spec.sampler.kind,
    }
