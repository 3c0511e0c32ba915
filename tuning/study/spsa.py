"""SPSA behind Optuna's sampler interface: the method Fishtest tunes engine parameters with.

Simultaneous perturbation stochastic approximation (Spall 1998, "Implementation of the
simultaneous perturbation algorithm for stochastic optimization", IEEE TAES 34(3)): at
iteration k, draw a random sign vector ``delta_k`` (each coordinate +1 or -1), play
``theta_k + c_k delta_k`` and ``theta_k - c_k delta_k`` and step every coordinate at once::

    theta_{k+1} = theta_k + a_k * (y_plus - y_minus) / (2 c_k) * delta_k      (maximising)
    a_k = a / (k + 1 + A) ** 0.602,   c_k = c / (k + 1) ** 0.101

(1/delta = delta for signs). Coordinates live in the unit cube (each parameter's range mapped
to [0, 1], on a log scale where the range is logarithmic); points are clipped into it.

Trials pair up by number: iteration k is trials ``first + 2k`` (plus) and ``first + 2k + 1``
(minus). The sampler keeps no state of its own (the runner builds one per trial): the plus
trial stores ``theta_k`` in its system attributes, the minus trial reads it, and ``theta_k``
is ``theta`` of the latest earlier iteration plus the steps of every iteration whose two
trials had finished when it was asked and that no earlier theta had taken in. With one trial
in flight this is the published rule exactly; with more it is asynchronous SPSA (a step lands
as soon as its pair is in). A pruned trial's score is on the maps it played before it was
pruned, its partner's on all of them (or on others): the two are compared on the maps both
played (``COMMON``, written by the driver when the second of the two is told: see
``common_scores``), never a prefix against a whole (docs/benchmarks.md, "SPSA and pruned
pairs"). An iteration without comparable scores (a failed trial, or no map in common) makes no
step; it is taken in all the same, so no later theta waits for it. ``delta_k`` is drawn from (seed, k), so
a resumed study draws the same.

Head to head (``head_to_head``, ``[sampler] scoring = "head-to-head"``), as Fishtest tunes: trial
``first + k`` is iteration k alone. Its parameters are the point ``theta_k`` itself (the reference
trial is iteration 0, at the start point), and it plays ``theta_k + c_k delta_k`` against
``theta_k - c_k delta_k`` (``perturbation``): its value is the plus side's mean pair score, so
``y_plus - y_minus = 2 value - 1``. It needs no opponent stronger than the bot, and its signal
does not saturate when every nearby point beats a panel alike. The point after the last
iteration (``theta``) is what the study found.
"""
from __future__ import annotations

import hashlib
import math
from typing import Mapping

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

__all__ = ["SPSASampler", "gains", "partner", "COMMON"]

_ALPHA = 0.602  # Spall's recommended decay exponents
_GAMMA = 0.101
_THETA = "spsa:theta"
_TAKEN = "spsa:taken"  # iterations whose step is already inside theta
# User attribute of the later-told trial of a pair with a pruned trial: both trials' scores on the
# maps both played, {"pairs": n, "scores": {"<number>": score, "<partner>": score}}.
COMMON = "spsa_common"


def partner(number: int, first: int) -> int | None:
    """The other trial of trial ``number``'s iteration (None before ``first``, the first SPSA trial)."""
    if number < first:
        return None
    return number + 1 if (number - first) % 2 == 0 else number - 1


def gains(k: int, *, a: float, c: float, stability: float) -> tuple[float, float]:
    """(a_k, c_k) of iteration ``k`` (0-based)."""
    return a / (k + 1 + stability) ** _ALPHA, c / (k + 1) ** _GAMMA


def _to_unit(value: float, d: BaseDistribution) -> float:
    low, high = float(d.low), float(d.high)
    if high == low:
        return 0.5
    if getattr(d, "log", False):
        return (math.log(value) - math.log(low)) / (math.log(high) - math.log(low))
    return (value - low) / (high - low)


def _from_unit(u: float, d: BaseDistribution) -> float | int:
    low, high = float(d.low), float(d.high)
    u = min(1.0, max(0.0, u))
    x = math.exp(math.log(low) + u * (math.log(high) - math.log(low))) if getattr(d, "log", False) \
        else low + u * (high - low)
    if isinstance(d, IntDistribution):
        return int(min(d.high, max(d.low, round(x))))
    return min(high, max(low, x))


class SPSASampler(BaseSampler):
    """SPSA over ``search_space`` starting from ``x0`` (a value per parameter), maximising or
    minimising as the study says. ``a``, ``c`` and ``stability`` (Spall's A) are in unit-cube
    coordinates: ``c`` = 0.1 perturbs every parameter by a tenth of its range."""

    def __init__(self, search_space: Mapping[str, BaseDistribution], x0: Mapping[str, float], *,
                 seed: int | None = None, a: float = 0.5, c: float = 0.1, stability: float = 5.0,
                 first_trial: int = 1, head_to_head: bool = False) -> None:
        for name, d in search_space.items():
            if not isinstance(d, (FloatDistribution, IntDistribution)):
                raise ValueError(f"SPSA tunes numbers only; {name!r} is {type(d).__name__}")
        self._space = dict(search_space)
        self._names = sorted(self._space)
        self._x0 = np.array([_to_unit(float(x0[n]), self._space[n]) for n in self._names])
        self._seed = 0 if seed is None else seed
        self._a, self._c, self._stability = a, c, stability
        self._first = first_trial
        self._h2h = head_to_head
        self._width = 1 if head_to_head else 2  # trials an iteration
        self._fallback = RandomSampler(seed=seed)

    # --- Optuna's sampler interface -------------------------------------------------------
    def infer_relative_search_space(self, study: optuna.Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return dict(self._space)

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, float]:
        if not search_space or trial.number < self._first:
            return {}
        if self._h2h:
            theta, taken = self._theta(study, trial.number - self._first)
            study._storage.set_trial_system_attr(trial._trial_id, _THETA, [float(x) for x in theta])
            study._storage.set_trial_system_attr(trial._trial_id, _TAKEN, taken)
            return self._params(theta)
        k, side = divmod(trial.number - self._first, 2)
        _, c_k = gains(k, a=self._a, c=self._c, stability=self._stability)
        theta = None
        if side == 1:
            plus = next((t for t in study.get_trials(deepcopy=False) if t.number == trial.number - 1), None)
            if plus is not None and _THETA in plus.system_attrs:
                theta = np.array(plus.system_attrs[_THETA])
        if theta is None:
            theta, taken = self._theta(study, k)
            study._storage.set_trial_system_attr(trial._trial_id, _THETA, [float(x) for x in theta])
            study._storage.set_trial_system_attr(trial._trial_id, _TAKEN, taken)
        point = theta + (c_k if side == 0 else -c_k) * self.delta(k)
        return self._params(point)

    def _params(self, point: np.ndarray) -> dict[str, float]:
        return {n: _from_unit(u, self._space[n]) for n, u in zip(self._names, point)}

    # --- head to head -------------------------------------------------------------------------
    def theta_of(self, trial: FrozenTrial) -> np.ndarray:
        """The point a head-to-head trial plays around (unit cube): stored when it was drawn;
        the reference trial's is the start point."""
        stored = trial.system_attrs.get(_THETA)
        return self._x0.copy() if stored is None else np.array(stored, dtype=float)

    def perturbation(self, number: int, theta: np.ndarray) -> tuple[dict, dict]:
        """(theta+ parameters, theta- parameters) that head-to-head trial ``number`` plays
        against each other around ``theta`` (its ``theta_of``)."""
        k = number - self._first
        _, c_k = gains(k, a=self._a, c=self._c, stability=self._stability)
        return self._params(theta + c_k * self.delta(k)), self._params(theta - c_k * self.delta(k))

    def iterations_begun(self, n_trials: int) -> int:
        """How many iterations a study of ``n_trials`` trials has begun (a pair half made counts):
        the point ``theta`` after them is the one the next iteration would play around."""
        return max(0, -(-(n_trials - self._first) // self._width))

    def theta(self, study: optuna.Study, iterations: int) -> dict[str, float]:
        """The point after ``iterations`` head-to-head iterations, every finished one's step
        taken: what the study found, as parameters (the point iteration ``iterations`` would
        play around)."""
        return self._params(self._theta(study, iterations)[0])

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution):
        return self._fallback.sample_independent(study, trial, param_name, param_distribution)

    # --- the algorithm ----------------------------------------------------------------------
    def delta(self, k: int) -> np.ndarray:
        """Iteration ``k``'s perturbation signs, a pure function of (seed, k)."""
        digest = hashlib.sha256(f"spsa:{self._seed}:{k}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
        return rng.choice(np.array([-1.0, 1.0]), size=len(self._names))

    def step(self, k: int, y_plus: float, y_minus: float, maximize: bool = True) -> np.ndarray:
        """The change to theta that iteration ``k``'s two scores make (the published rule)."""
        a_k, c_k = gains(k, a=self._a, c=self._c, stability=self._stability)
        sign = 1.0 if maximize else -1.0
        return sign * a_k * (y_plus - y_minus) / (2.0 * c_k) * self.delta(k)

    def _theta(self, study: optuna.Study, k: int) -> tuple[np.ndarray, list[int]]:
        trials = {t.number: t for t in study.get_trials(deepcopy=False)}
        theta, taken = self._x0.copy(), []
        for j in range(k - 1, -1, -1):  # the latest earlier theta
            plus = trials.get(self._first + self._width * j)
            if plus is not None and _THETA in plus.system_attrs:
                theta, taken = np.array(plus.system_attrs[_THETA]), list(plus.system_attrs.get(_TAKEN, []))
                break
        maximize = study.direction == StudyDirection.MAXIMIZE
        done = set(taken)
        for j in range(k):
            if j in done:
                continue
            pair = [trials.get(self._first + self._width * j + side) for side in range(self._width)]
            if any(t is None or not t.state.is_finished() for t in pair):
                continue
            ys = _head_to_head(pair[0]) if self._h2h else _comparable(pair)
            if ys is not None:
                theta = np.clip(theta + self.step(j, ys[0], ys[1], maximize), 0.0, 1.0)
            taken.append(j)
        return theta, sorted(taken)


def _head_to_head(trial: FrozenTrial) -> tuple[float, float] | None:
    """(y_plus, y_minus) of a head-to-head iteration: the plus side's score against the minus
    side and the minus side's (its complement); None for a trial that did not complete."""
    if trial.state != TrialState.COMPLETE or trial.value is None:
        return None
    return float(trial.value), 1.0 - float(trial.value)


def _comparable(pair: list[FrozenTrial]) -> tuple[float, float] | None:
    """(y_plus, y_minus) on the same maps: both complete, their values; a pruned one, both on the
    maps both played (``COMMON``); None otherwise (a failed trial, or no maps in common)."""
    states = {t.state for t in pair}
    if states == {TrialState.COMPLETE} and all(t.value is not None for t in pair):
        return float(pair[0].value), float(pair[1].value)
    if TrialState.FAIL in states:
        return None
    for t in pair:
        common = t.user_attrs.get(COMMON)
        if common and common.get("pairs"):
            scores = common["scores"]
            keys = [str(p.number) for p in pair]
            if all(k in scores for k in keys):
                return float(scores[keys[0]]), float(scores[keys[1]])
    return None
