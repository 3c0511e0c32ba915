"""How often ``tune test``'s Elo interval covers the truth after a sequential stop (issue 32).

    python -m benchmarks.sprtcoverage [--runs 1000] [--elos 0,2.5,5] [--elo0 0] [--elo1 5]

Each simulated test draws pairs from the pentanomial distribution of a known true Elo (nearest
Ocean of Code's shape, ``benchmarks.sprtbench``), ``--batch-pairs`` at a time, and stops as ``tune
test`` does. For every test stopped at H0 or H1 both of the lab's intervals are computed from its
final counts: the fixed-sample one (``tuning.stats.sprt.estimate``) and the stop-adjusted one
(``tuning.stats.sprtelo.stopped_estimate``, what ``tune test`` now reports). Per true Elo: the
share of stopped tests whose 95% interval holds the truth (with its Wilson interval), the mean
estimate (all stops, and the stops at H1 alone) and the median width. Tests reaching the maximum
are counted, not judged (they report the fixed-sample interval).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.sprtbench import SHAPES, distribution_at
from tuning.stats.estimates import wilson
from tuning.stats.sprt import Settings, estimate
from tuning.stats.sprtelo import stopped_estimate

__all__ = ["simulate_counts", "coverage", "main"]


def simulate_counts(pdf, settings: Settings, *, runs: int, batch_pairs: int, max_batches: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``runs`` tests on pairs drawn from ``pdf``, stopped as ``tune test`` stops: each one's result
    ("H1", "H0", "max") and its final counts."""
    lower, upper = settings.bounds
    counts = np.zeros((runs, len(pdf)), dtype=np.int64)
    result = np.full(runs, "max", dtype=object)
    active = np.arange(runs)
    for _ in range(max_batches):
        counts[active] += rng.multinomial(batch_pairs, pdf, size=active.size)
        ratio = np.atleast_1d(settings.llr(counts[active]))
        result[active[ratio >= upper]] = "H1"
        result[active[ratio <= lower]] = "H0"
        active = active[(ratio < upper) & (ratio > lower)]
        if not active.size:
            break
    return result, counts


def coverage(elo: float, settings: Settings, *, runs: int, batch_pairs: int, max_games: int, seed: int) -> dict:
    """The two intervals' coverage of ``elo`` over the tests that stopped at a bound."""
    rng = np.random.default_rng(seed)
    pdf = distribution_at(SHAPES["no-draws"], elo, normalized=settings.normalized)
    result, counts = simulate_counts(pdf, settings, runs=runs, batch_pairs=batch_pairs,
                                     max_batches=max(1, max_games // (2 * batch_pairs)), rng=rng)
    key = "nelo" if settings.normalized else "elo"
    rows = {"fixed": [], "adjusted": []}
    h1 = []
    for r, c in zip(result, counts):
        if r == "max":
            continue
        f = estimate(c)
        s = stopped_estimate(c, settings, r) or f  # a stop the model cannot place reports the fixed one
        h1.append(r == "H1")
        for name, e in (("fixed", f), ("adjusted", s)):
            value, low, high = getattr(e, key), getattr(e, key + "_low"), getattr(e, key + "_high")
            rows[name].append((value, low <= elo <= high, high - low))
    h1 = np.array(h1, dtype=bool)
    out = {"elo": elo, "runs": runs, "stopped": int(h1.size), "h1": int(h1.sum()), "max": int((result == "max").sum())}
    for name, values in rows.items():
        est = np.array([v[0] for v in values])
        hit = int(sum(v[1] for v in values))
        low, high = wilson(hit / max(1, len(values)), len(values))
        out[name] = {"coverage": hit / max(1, len(values)), "coverage_ci": [low, high], "mean": float(est.mean()),
                     "mean_h1": float(est[h1].mean()) if h1.any() else None,
                     "median_width": float(np.median([v[2] for v in values]))}
    return out


def markdown(points: list[dict]) -> str:
    lines = ["| true Elo | stopped (H1) | fixed-sample: covers | mean (at H1) | width | stop-adjusted: covers | "
             "mean (at H1) | width |", "|---|---|---|---|---|---|---|---|"]
    for p in points:
        cells = [f"{p['elo']:+g}", f"{p['stopped']:,} ({p['h1']:,})"]
        for name in ("fixed", "adjusted"):
            r = p[name]
            h1 = "-" if r["mean_h1"] is None else f"{r['mean_h1']:+.1f}"
            cells += [f"{100 * r['coverage']:.1f}% [{100 * r['coverage_ci'][0]:.1f}, {100 * r['coverage_ci'][1]:.1f}]",
                      f"{r['mean']:+.1f} ({h1})", f"{r['median_width']:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sprtcoverage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000, help="simulated tests per true Elo")
    parser.add_argument("--elos", default="0,2.5,5", help="comma-separated true Elos")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--normalized", action="store_true", help="the bounds (and true Elos) in normalized Elo")
    parser.add_argument("--batch-pairs", type=int, default=50)
    parser.add_argument("--max-games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        settings = Settings(args.elo0, args.elo1, normalized=args.normalized)
        elos = [float(x) for x in args.elos.split(",")]
        if args.runs < 1 or args.batch_pairs < 1:
            raise ValueError("--runs and --batch-pairs must be at least 1")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    points = []
    for i, elo in enumerate(elos):
        t0 = time.perf_counter()
        points.append(coverage(elo, settings, runs=args.runs, batch_pairs=args.batch_pairs,
                               max_games=args.max_games, seed=args.seed + i))
        print(f"Elo {elo:+g}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(markdown(points))
    return 0


if __name__ == "__main__":
    sys.exit(main())
