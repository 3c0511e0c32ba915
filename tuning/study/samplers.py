"""The study's sampler: which Optuna sampler proposes coefficients, seeded per trial.

Each trial's random draws come from a seed derived from (the study's sampler seed, the trial's
number), so they do not depend on which driver asks it nor on how often the study was resumed.
"""
from __future__ import annotations

import hashlib
import warnings

import optuna

from tuning.study.space import REFERENCE_TRIAL, SearchSpace
from tuning.study.spec import SamplerSpec
from tuning.study.spsa import SPSASampler

__all__ = ["make_sampler", "stream_seed"]


def stream_seed(seed: int, stream: int) -> int:
    """A 32-bit seed for stream ``stream`` (a trial number) of the sampler seed ``seed``."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{stream}".encode()).digest()[:4], "big")


def make_sampler(spec: SamplerSpec, space: SearchSpace, stream: int | None = None) -> optuna.samplers.BaseSampler:
    """The study's sampler, seeded. TPE and CMA-ES are told about trials in flight (constant
    liar; CMA-ES asks in generations) and CMA-ES starts from the bot's defaults.

    With ``stream`` (the number of the trial about to be asked) the seed is derived from
    (seed, stream), so each trial's random draws do not depend on which driver asks it, nor
    on how many times the study was resumed before."""
    seed = spec.seed if spec.seed is None or stream is None else stream_seed(spec.seed, stream)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        # Optuna 4.9 deprecated CMA-ES's x0 (removal planned for 6.0, above our bound): starting
        # from the bot's defaults is what we want, and the warning would print once per trial.
        warnings.filterwarnings("ignore", message=".*`x0`.*", category=FutureWarning)
        if spec.kind == "tpe":
            return optuna.samplers.TPESampler(seed=seed, n_startup_trials=spec.startup_trials,
                                              multivariate=True, constant_liar=True)
        x0 = {name: min(max(value, d.low), d.high)
              for (name, value), d in zip(space.reference_params().items(), space.distributions.values())}
        if spec.kind == "cmaes":
            # Pruned trials count (with their score when pruned): under pruning most trials of a
            # study are pruned, and counting complete ones only kept CMA-ES in its random start
            # for a whole quick study (docs/benchmarks.md, "Tuning methods").
            return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=spec.startup_trials, x0=x0,
                                                warn_independent_sampling=False, consider_pruned_trials=True)
        if spec.kind == "spsa":
            # One sign vector per iteration, shared by its two trials: drawn from the study's
            # seed and the iteration, never from the per-trial stream.
            gains = {key: value for key, value in (("c", spec.perturbation), ("a", spec.step)) if value is not None}
            # Head to head, the reference trial is iteration 0: it plays the start point's pair.
            first = REFERENCE_TRIAL if spec.head_to_head else REFERENCE_TRIAL + 1
            return SPSASampler(space.distributions, x0, seed=spec.seed, first_trial=first,
                               head_to_head=spec.head_to_head, **gains)
        if spec.kind == "gp":
            return optuna.samplers.GPSampler(seed=seed, n_startup_trials=spec.startup_trials)
        return optuna.samplers.RandomSampler(seed=seed)
