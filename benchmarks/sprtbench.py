"""The test's error rates measured: ``tune test``'s stopping rule on simulated pairs of known strength.

    python -m benchmarks.sprtbench [--runs 4000] [--elo0 0] [--elo1 5] [--normalized] [--shape no-draws]

Each simulated test draws its pairs from a known pentanomial distribution, ``--batch-pairs`` at a
time, and stops exactly as ``tune test`` does (``tuning.driver.bottest.judge``): the log-likelihood
ratio of all pairs so far after each batch, H1 or H0 at the first batch where it reaches a
bound, "max" when ``--max-games`` are played without. Thousands of tests run side by side as
arrays (the ratio is vectorized over them), so a point costs seconds.

The distribution at a true Elo is the one of that expected score (or, with ``--normalized``,
that t-value) closest to a shape (``SHAPES``: our game's pairs have no draws and most split 1-1;
a chess-like one has many draws), so every point shares the shape's spread of outcomes.

Per true Elo (``elo0``, ``elo1`` and points between): how often H1 and H0 were accepted and the
maximum reached, each with its 95% (Wilson) interval, and the mean games with theirs. At elo0 the
H1 rate is the false-positive rate, nominally at most alpha; at elo1 the H0 rate (plus "max") is
the false-negative rate, nominally at most beta. Wald's bounds are conservative when the ratio
overshoots them, which a batch of pairs makes it do: the measured rates sit below nominal.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from tuning.stats.sprt import NELO_PER_T, PENTANOMIAL, Settings, closest_with_score, closest_with_t, logistic_score
from tuning.stats.estimates import wilson

__all__ = ["SHAPES", "Point", "distribution_at", "simulate", "run_bench", "markdown", "main"]

# Pentanomial shapes (LL, LD, DD+WL, WD, WW) the distributions are drawn near.
SHAPES = {
    # Ocean of Code: no draws, and most pairs split (tunable-v3 against tunable-v2: 17%, 0, 56%, 0, 27%).
    "no-draws": (0.2, 0.0, 0.6, 0.0, 0.2),
    # Two independent games without draws (no map luck for pairing to cancel).
    "independent": (0.25, 0.0, 0.5, 0.0, 0.25),
    # Chess-like: many draws, few pairs lost or won twice (Fishtest's usual shape).
    "drawish": (0.01, 0.19, 0.6, 0.19, 0.01),
}
_LEVEL = 0.95


@dataclass(frozen=True)
class Point:
    """The simulated tests at one true Elo."""

    elo: float
    pdf: tuple[float, ...]
    runs: int
    h1: int
    h0: int
    max: int
    mean_games: float
    games_low: float
    games_high: float
    median_games: float
    seconds: float

    def rate(self, count: int) -> tuple[float, float, float]:
        """A share of the runs with its 95% Wilson interval."""
        p = count / self.runs
        low, high = wilson(p, self.runs, _LEVEL)
        return p, low, high

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        for key in ("h1", "h0", "max"):
            out[f"{key}_rate"] = list(self.rate(getattr(self, key)))
        return out


def distribution_at(shape, elo: float, *, normalized: bool = False) -> np.ndarray:
    """The pentanomial distribution of true (logistic, or normalized) Elo ``elo`` closest to
    ``shape``."""
    shape = np.asarray(shape, dtype=float)
    shape = shape / shape.sum()
    if normalized:
        return closest_with_t(shape, PENTANOMIAL, math.sqrt(2.0) * elo / NELO_PER_T)
    return closest_with_score(shape, PENTANOMIAL, float(logistic_score(elo)))


def simulate(pdf, settings: Settings, *, runs: int, batch_pairs: int, max_batches: int,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``runs`` tests on pairs drawn from ``pdf``; per run its result ("H1", "H0" or "max") and
    the games it played. The stopping rule is ``tune test``'s: the ratio after each batch, the
    first at or past a bound decides (``tuning.driver.bottest.judge``)."""
    pdf = np.asarray(pdf, dtype=float)
    lower, upper = settings.bounds
    counts = np.zeros((runs, pdf.size), dtype=np.int64)
    result = np.full(runs, "max", dtype=object)
    batches = np.full(runs, max_batches, dtype=np.int64)
    active = np.arange(runs)
    for batch in range(max_batches):
        counts[active] += rng.multinomial(batch_pairs, pdf, size=active.size)
        ratio = np.atleast_1d(settings.llr(counts[active]))
        h1, h0 = ratio >= upper, ratio <= lower
        result[active[h1]] = "H1"
        result[active[h0]] = "H0"
        stopped = h1 | h0
        batches[active[stopped]] = batch + 1
        active = active[~stopped]
        if not active.size:
            break
    return result, 2 * batch_pairs * batches


def run_bench(*, settings: Settings, shape=SHAPES["no-draws"], elos: list[float] | None = None, runs: int = 4000,
              batch_pairs: int = 50, max_games: int = 100_000, seed: int = 1,
              log=lambda line: None) -> list[Point]:
    """The simulated tests at each true Elo of ``elos`` (default: elo0, elo1 and three points
    between)."""
    from scipy import stats

    if elos is None:
        step = (settings.elo1 - settings.elo0) / 4.0
        elos = [settings.elo0 + k * step for k in range(5)]
    max_batches = max(1, max_games // (2 * batch_pairs))
    rng = np.random.default_rng(seed)
    points = []
    for elo in elos:
        t0 = time.perf_counter()
        pdf = distribution_at(shape, elo, normalized=settings.normalized)
        result, games = simulate(pdf, settings, runs=runs, batch_pairs=batch_pairs, max_batches=max_batches, rng=rng)
        mean = float(games.mean())
        half = float(stats.t.ppf(0.5 + _LEVEL / 2, runs - 1) * games.std(ddof=1) / math.sqrt(runs)) if runs > 1 else 0.0
        point = Point(float(elo), tuple(float(p) for p in pdf), runs, int((result == "H1").sum()),
                      int((result == "H0").sum()), int((result == "max").sum()), mean, mean - half, mean + half,
                      float(np.median(games)), time.perf_counter() - t0)
        log(f"Elo {elo:+.2f}: H1 {point.h1}, H0 {point.h0}, max {point.max} of {runs}; mean games {mean:,.0f} "
            f"({point.seconds:.1f} s)")
        points.append(point)
    return points


def markdown(points: list[Point], settings: Settings) -> str:
    """The table of ``points``, with the nominal rates beside the measured ones."""
    unit = "nElo" if settings.normalized else "Elo"
    lines = [f"| true {unit} | H1 accepted | H0 accepted | max games reached | mean games | median games |",
             "|---|---|---|---|---|---|"]

    def pct(point, count):
        p, low, high = point.rate(count)
        return f"{100 * p:.2f}% [{100 * low:.2f}, {100 * high:.2f}]"

    for pt in points:
        note = ""
        if math.isclose(pt.elo, settings.elo0):
            note = f" (elo0: nominal H1 at most {100 * settings.alpha:g}%)"
        elif math.isclose(pt.elo, settings.elo1):
            note = f" (elo1: nominal H0 + max at most {100 * settings.beta:g}%)"
        lines.append(f"| {pt.elo:+.2f}{note} | {pct(pt, pt.h1)} | {pct(pt, pt.h0)} | {pct(pt, pt.max)} | "
                     f"{pt.mean_games:,.0f} [{pt.games_low:,.0f}, {pt.games_high:,.0f}] | {pt.median_games:,.0f} |")
    return "\n".join(lines)


def _shape(text: str) -> tuple[float, ...]:
    if text in SHAPES:
        return SHAPES[text]
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 5 or min(values) < 0 or sum(values) <= 0 or values[0] + values[1] == 0 \
            or values[3] + values[4] == 0:
        raise ValueError(f"--shape {text!r}: use one of {', '.join(SHAPES)} or five probabilities LL,LD,DD+WL,WD,WW "
                         "with some pairs lost and some won")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sprtbench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4000, help="simulated tests per true Elo")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--normalized", action="store_true", help="the bounds (and true Elos) in normalized Elo")
    parser.add_argument("--batch-pairs", type=int, default=50, help="pairs per batch (the test looks after each)")
    parser.add_argument("--max-games", type=int, default=100_000)
    parser.add_argument("--shape", default="no-draws", help=f"{', '.join(SHAPES)}, or LL,LD,DD+WL,WD,WW")
    parser.add_argument("--elos", default=None, help="comma-separated true Elos (default: elo0, elo1 and 3 between)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the points as one JSON line last")
    args = parser.parse_args(argv)
    try:
        settings = Settings(args.elo0, args.elo1, args.alpha, args.beta, args.normalized)
        shape = _shape(args.shape)
        if min(args.runs, args.batch_pairs) < 2 or args.max_games < 2 * args.batch_pairs:
            raise ValueError("--runs and --batch-pairs must be at least 2, --max-games at least one batch's games")
        elos = None if args.elos is None else [float(x) for x in args.elos.split(",")]
        points = run_bench(settings=settings, shape=shape, elos=elos, runs=args.runs, batch_pairs=args.batch_pairs,
                           max_games=args.max_games, seed=args.seed, log=lambda line: print(line, file=sys.stderr))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(markdown(points, settings))
    if args.json:
        print(json.dumps({"settings": settings.as_dict(), "shape": list(shape), "batch_pairs": args.batch_pairs,
                          "max_games": args.max_games, "points": [p.as_dict() for p in points]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
