"""The statistics of "is the new bot better?": the pentanomial GSPRT on game pairs, Elo estimates.

The unit is a pair: one map played twice, sides swapped. From the new bot's side a pair scores
0, 1/4, 1/2, 3/4 or 1 (LL, LD, DD or WL, DW, WW): five outcomes, the pentanomial. Pairs are
independent of each other while the two games of a pair are not, so every figure here counts
pairs. A gauntlet (both bots against the same opponents on the same maps and sides) has a unit of
its own: an (opponent, map) on which each bot played a pair; its outcome is ``1/2 + new's pair
score - base's``, nine values from -1/2 to 3/2 (``GAUNTLET``), whose mean is the score a
head-to-head match would have if the opponent sat at par with both bots (to first order).

The test (a generalized sequential probability ratio test, the one Fishtest and OpenBench run):
H0 "the new bot is ``elo0`` Elo better" against H1 "``elo1`` better". After each batch, the
log-likelihood ratio of the outcome counts is the log-likelihood of the most likely outcome
distribution whose expected score is L(elo1), minus that of the most likely one with expected
score L(elo0), L the logistic Elo curve. The most likely distribution under a constraint
``sum(p * a) = s`` is the empirical one reweighted, ``p_i = phat_i / (1 + x (a_i - s))``, with x
the root of ``sum(phat_i (a_i - s) / (1 + x (a_i - s))) = 0`` (a Lagrange multiplier; the sum is
decreasing in x, so the root is unique and bracketed). With normalized Elo the constraint is on
the t-value ``(mu - 1/2) / sigma`` instead, solved by the same reweighting with the constraint's
gradient as weights, to a fixed point. The test stops at H1 once the ratio reaches
``log((1 - beta) / alpha)`` and at H0 once it falls to ``log(beta / (1 - alpha))`` (Wald's bounds:
the error rates stay under alpha at elo0 and beta at elo1 however often the test looks).

Everything takes counts arrays with outcomes on the last axis and any leading axes (many tests
at once: ``benchmarks.sprtbench`` runs thousands), and is plain NumPy/SciPy.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Iterable

import numpy as np

__all__ = ["PENTANOMIAL", "GAUNTLET", "PENTANOMIAL_NAMES", "NELO_PER_T", "REGULARIZER", "Settings", "EloEstimate",
           "logistic_score", "logistic_elo", "sprt_bounds", "outcome_counts", "pentanomial", "gauntlet_counts",
           "llr", "normalized_limit", "Estimate", "estimate", "decide", "first_crossing", "closest_with_score", "closest_with_t"]

# Outcomes of a pair, as the new bot's pair score (mean of its two games).
PENTANOMIAL = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
PENTANOMIAL_NAMES = ("LL", "LD", "DD+WL", "WD", "WW")
# Outcomes of a gauntlet unit: 1/2 + new's pair score - base's pair score, against one opponent on one map.
GAUNTLET = 0.5 + np.arange(-4, 5) / 4.0
# Normalized Elo per unit of t-value per game (Fishtest's convention: nElo = t * 800 / ln 10).
NELO_PER_T = 800.0 / math.log(10.0)
# Outcomes never seen count this much, so that no likelihood is ever log(0) (Fishtest's choice):
# small enough to move no estimate visibly, large enough to keep the likelihood finite.
REGULARIZER = 1e-3
LEVEL = 0.95

_SECULAR_TOL = 1e-13  # |sum| at which the multiplier counts as found (probabilities are O(1))
_SECULAR_STEPS = 200  # Newton steps with bisection fallback: bisection alone needs ~60 to double precision
_FIXED_POINT_TOL = 1e-12  # largest change of a probability between two t-value iterations
_FIXED_POINT_STEPS = 200


@dataclass(frozen=True)
class Settings:
    """The test's hypotheses and error rates. ``elo0``/``elo1`` are logistic Elo, or normalized Elo
    if ``normalized``; ``alpha`` is the chance of accepting H1 at elo0, ``beta`` of accepting H0 at
    elo1."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    normalized: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)) or self.elo1 <= self.elo0:
            raise ValueError(f"elo1 must be above elo0 (got elo0 {self.elo0}, elo1 {self.elo1})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5 (exclusive), got {value}")

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, counts, support=PENTANOMIAL):
        """The log-likelihood ratio of ``counts`` under these hypotheses (see ``llr``)."""
        return llr(counts, self.elo0, self.elo1, normalized=self.normalized, support=support)

    def as_dict(self) -> dict:
        return asdict(self)


def logistic_score(elo):
    """The expected score at an Elo difference ``elo`` (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=float) / 400.0))


def logistic_elo(score, games: int = 0) -> float:
    """The Elo difference whose expected score is ``score``. A score at or past 0 or 1 has none:
    it is moved half a game inside (``0.5 / games`` from the edge; 1e-6 without ``games``)."""
    edge = 0.5 / games if games > 0 else 1e-6
    p = min(1.0 - edge, max(edge, float(score)))
    return -400.0 * math.log10(1.0 / p - 1.0)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) bounds on the log-likelihood ratio: H0 at or below the lower one,
    H1 at or above the upper one."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def outcome_counts(scores: Iterable[float], support=PENTANOMIAL) -> np.ndarray:
    """How many of ``scores`` fall on each value of ``support`` (a score off the support is a
    ValueError: it is not a pair's outcome)."""
    support = np.asarray(support, dtype=float)
    values = np.asarray(list(scores), dtype=float)
    index = np.rint((values - support[0]) / (support[1] - support[0])).astype(np.int64)
    if values.size and (index.min() < 0 or index.max() >= support.size
                        or not np.allclose(support[index], values, atol=1e-9)):
        raise ValueError("a score is not one of the outcomes " + ", ".join(f"{a:g}" for a in support))
    return np.bincount(index, minlength=support.size).astype(np.int64)


def pentanomial(pair_scores: Iterable[float]) -> np.ndarray:
    """Counts of LL, LD, DD+WL, WD, WW from pair scores (0, .25, .5, .75, 1)."""
    return outcome_counts(pair_scores, PENTANOMIAL)


def gauntlet_counts(new_scores: Iterable[float], base_scores: Iterable[float]) -> np.ndarray:
    """Counts of the nine gauntlet outcomes from the two bots' pair scores on the same units."""
    new, base = np.asarray(list(new_scores), dtype=float), np.asarray(list(base_scores), dtype=float)
    if new.shape != base.shape:
        raise ValueError(f"{new.size} pair scores of the new bot for {base.size} of the base bot")
    return outcome_counts(0.5 + new - base, GAUNTLET)


def _regularized(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    return np.where(counts > 0, counts, REGULARIZER)


def _secular(values: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Per row, the x in (-1/max v, -1/min v) with ``sum(p v / (1 + x v)) = 0``; every row needs
    values of both signs and positive probabilities. The sum falls from +inf to -inf across the
    interval, so Newton's steps kept inside a shrinking bracket (bisecting when a step leaves
    it) always converge."""
    edge_lo = -1.0 / values.max(axis=-1)  # where a weight's denominator reaches 0: never to be evaluated
    edge_hi = -1.0 / values.min(axis=-1)
    lo, hi = edge_lo, edge_hi
    # The first-order root (the sum expanded to first order in x), kept inside the bracket.
    x = (probs * values).sum(axis=-1) / (probs * values * values).sum(axis=-1)
    x = np.where((x > lo) & (x < hi), x, 0.5 * (np.maximum(lo, -1.0) + np.minimum(hi, 1.0)))
    for _ in range(_SECULAR_STEPS):
        d = 1.0 + x[..., None] * values
        f = (probs * values / d).sum(axis=-1)
        if np.all((np.abs(f) < _SECULAR_TOL) | (hi - lo <= _SECULAR_TOL * (1.0 + np.abs(x)))):
            break
        slope = -(probs * values * values / (d * d)).sum(axis=-1)
        lo = np.where(f > 0, x, lo)
        hi = np.where(f > 0, hi, x)
        step = x - f / slope
        # A root within rounding of a bracket end puts Newton's step on it: still a good step,
        # unless that end is one of the interval's own (where the sum is infinite).
        inside = (step >= lo) & (step <= hi) & (step > edge_lo) & (step < edge_hi)
        x = np.where(inside, step, 0.5 * (lo + hi))
    return x


def closest_with_score(pdf, support, score) -> np.ndarray:
    """The distribution on ``support`` of expected ``score`` closest to ``pdf`` (the maximum-
    likelihood one given outcomes drawn as ``pdf``; ``score`` strictly inside the support's
    range). Broadcasts over leading axes of ``pdf`` and over ``score``."""
    pdf = np.asarray(pdf, dtype=float)
    support = np.asarray(support, dtype=float)
    score = np.asarray(score, dtype=float)
    values = support - score[..., None]
    values, pdf = np.broadcast_arrays(values, pdf)
    x = _secular(values, pdf)
    return pdf / (1.0 + x[..., None] * values)


def closest_with_t(pdf, support, t, ref: float = 0.5) -> np.ndarray:
    """The distribution on ``support`` whose t-value ``(mean - ref) / sd`` is ``t``, closest to
    ``pdf`` (maximum likelihood). The constraint is not linear in the probabilities, so the
    reweighting uses its gradient at the current answer and repeats to a fixed point: at the
    fixed point ``sum(p * v) = mean - ref - t * sd`` is 0, the constraint."""
    pdf = np.asarray(pdf, dtype=float)
    support = np.asarray(support, dtype=float)
    t = np.asarray(t, dtype=float)[..., None]
    pdf, t = np.broadcast_arrays(pdf, t)
    t = t[..., :1]
    p = np.full(pdf.shape, 1.0 / pdf.shape[-1])
    for _ in range(_FIXED_POINT_STEPS):
        mu = (p * support).sum(axis=-1, keepdims=True)
        sigma = np.sqrt((p * (support - mu) ** 2).sum(axis=-1, keepdims=True))
        values = support - ref - t * sigma * (1.0 + ((mu - support) / sigma) ** 2) / 2.0
        x = _secular(values, pdf)
        new = pdf / (1.0 + x[..., None] * values)
        done = np.max(np.abs(new - p)) < _FIXED_POINT_TOL
        p = new
        if done:
            break
    return p


def normalized_limit(support=PENTANOMIAL, ref: float = 0.5) -> float:
    """The largest normalized Elo (either sign) the ratio can be computed at on ``support``.

    ``closest_with_t`` starts from the uniform distribution; past this t-value its first
    reweighting has weights of one sign only, so no multiplier solves it and the ratio would be
    NaN whatever the counts (a test with such bounds would run to its maximum without a word).
    For pairs it is about 231.6 nElo, for a gauntlet's units about 242."""
    support = np.asarray(support, dtype=float)
    mu = float(support.mean())
    sigma = float(np.sqrt(((support - mu) ** 2).mean()))
    ratio = (support - ref) / (sigma * (1.0 + ((mu - support) / sigma) ** 2) / 2.0)
    t = min(float(ratio.max()), -float(ratio.min()))
    return t * NELO_PER_T / math.sqrt(2.0)


def llr(counts, elo0: float, elo1: float, *, normalized: bool = False, support=PENTANOMIAL):
    """The generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for outcome
    ``counts`` on ``support`` (pentanomial by default); a float for one counts vector, an array
    for a stack of them. No outcome yet: 0. Elo is logistic, or normalized with ``normalized``
    (the t-value per game pair is then ``sqrt(2) * nElo / NELO_PER_T``, as Fishtest defines it)."""
    counts = np.asarray(counts, dtype=float)
    support = np.asarray(support, dtype=float)
    reg = _regularized(counts)
    n = reg.sum(axis=-1, keepdims=True)
    pdf = reg / n
    if normalized:
        t0, t1 = (math.sqrt(2.0) * e / NELO_PER_T for e in (elo0, elo1))
        p0, p1 = closest_with_t(pdf, support, t0), closest_with_t(pdf, support, t1)
    else:
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
        p0, p1 = closest_with_score(pdf, support, s0), closest_with_score(pdf, support, s1)
    out = n[..., 0] * (pdf * (np.log(p1) - np.log(p0))).sum(axis=-1)
    out = np.where(counts.sum(axis=-1) > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def decide(value: float, settings: Settings) -> str | None:
    """"H1", "H0", or None while the ratio is between the bounds."""
    lower, upper = settings.bounds
    if value >= upper:
        return "H1"
    if value <= lower:
        return "H0"
    return None


def first_crossing(llrs, lower: float, upper: float) -> int | None:
    """The index of the first ratio in ``llrs`` (one per look, in order) at or past a bound."""
    values = np.asarray(llrs, dtype=float)
    hits = np.flatnonzero((values >= upper) | (values <= lower))
    return int(hits[0]) if hits.size else None


@dataclass(frozen=True)
class Estimate:
    """A score, Elo and normalized Elo, each with its interval: the fields every estimate of a
    test shares (``EloEstimate`` fixed-sample, ``sprtelo.StoppedEstimate`` stop-adjusted)."""

    score: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_low: float
    nelo_high: float

    def as_dict(self) -> dict:
        """The fields as JSON takes them: a subclass's own first (as it declares them), then the
        estimate's; a value that is not finite is None (JSON has no infinity)."""
        shared = [f.name for f in fields(Estimate)]
        names = [f.name for f in fields(self) if f.name not in shared] + shared
        return {k: _finite(getattr(self, k)) for k in names}


def _finite(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value


@dataclass(frozen=True)
class EloEstimate(Estimate):
    """The new bot's score, Elo and normalized Elo over ``pairs`` units, each with its interval
    (95% by default). A gauntlet's score is the head-to-head score at par (see the module doc)."""

    pairs: int


def estimate(counts, support=PENTANOMIAL, level: float = LEVEL) -> EloEstimate:
    """Score, Elo and normalized Elo of the new bot from outcome ``counts``, with intervals.

    The score's interval is normal over units (their spread from the counts, unseen outcomes
    counted as ``REGULARIZER`` so that units all alike still leave a little spread); the Elo
    interval is the score interval's ends through the logistic curve. Normalized Elo is the
    t-value per game pair, ``(mean - 1/2) / (sqrt(2) sd)``, in Elo units; its interval is the
    delta method's for a t-value (it uses the skewness and kurtosis of the outcomes)."""
    from scipy.stats import norm

    counts = np.asarray(counts, dtype=float)
    support = np.asarray(support, dtype=float)
    n = int(round(counts.sum()))
    if n == 0:
        nan = math.nan
        return EloEstimate(nan, nan, nan, nan, -math.inf, math.inf, nan, -math.inf, math.inf, pairs=0)
    z = float(norm.ppf(0.5 + level / 2.0))
    mu = float((counts * support).sum() / n)
    reg = _regularized(counts)
    pdf = reg / reg.sum()
    centre = float((pdf * support).sum())
    var = float((pdf * (support - centre) ** 2).sum())
    sd = math.sqrt(var)
    half = z * sd / math.sqrt(n)
    low, high = mu - half, mu + half
    lowest, highest = float(support[0]), float(support[-1])
    if counts[0] == n or counts[-1] == n:
        # Every unit won (or lost): the spread left by the regularizer would claim certainty. The
        # Wilson interval over units, conservative for any outcomes in the support's range, stands in.
        from ocean.stats import wilson

        w_low, w_high = wilson((mu - lowest) / (highest - lowest), n, level)
        low, high = lowest + w_low * (highest - lowest), lowest + w_high * (highest - lowest)
    games = 2 * n  # for the edge correction of a score of 0 or 1
    t = (mu - 0.5) / sd
    skew = float((pdf * (support - centre) ** 3).sum()) / sd ** 3
    kurt = float((pdf * (support - centre) ** 4).sum()) / var ** 2
    t_half = z * math.sqrt(max(0.0, 1.0 - t * skew + t * t * (kurt - 1.0) / 4.0) / n)
    per_pair = NELO_PER_T / math.sqrt(2.0)
    return EloEstimate(mu, low, high,
                       logistic_elo(mu, games), logistic_elo(low, games), logistic_elo(high, games),
                       t * per_pair, (t - t_half) * per_pair, (t + t_half) * per_pair, pairs=n)
