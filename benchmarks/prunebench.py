"""How often pruning stops a good trial, and how many games it saves: pruning rules compared on
simulated studies whose true strengths are known.

    python -m benchmarks.prunebench [--studies 300] [--trials 30] [--rules t,t-shrunk,sprt,sprt-shrunk,wilcoxon]

A simulated study is the quick study's shape: trials in turn, each playing ``maps`` maps (both
sides) against each of ``opponents`` opponents in batches of ``batch_pairs`` maps, opponents in
turn, the same maps for every trial (common random numbers: each (opponent, map) has a logit
effect shared by all trials). A trial's true win probability against an opponent is
``sigmoid(base + strength + noise)``; the incumbent is the complete trial with the best training
score so far, as in the runner, and the rule is asked after every batch.

Per rule it reports: the share of the games a study without pruning plays; how often a trial equal
to the incumbent in truth (at most EQUAL above it) is pruned, and how often one at
least as strong as the incumbent (in truth) is pruned, against the rule's alpha; how many pruned
trials were truly stronger than the trial the study ends up calling best (good trials wrongly
pruned); the true score of that best; and the incumbent's mean selection bias (its training
score minus its true score), the bias the ``-shrunk`` rules take off (``incumbent_bias``).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass

import numpy as np

from tuning.stats.pruning import TESTS, decide, incumbent_bias

__all__ = ["Rule", "parse_rules", "simulate", "EQUAL"]

EQUAL = 0.01  # a trial this close above the incumbent (true score) counts as equal to it


@dataclass(frozen=True)
class Rule:
    """A pruning test, optionally against the incumbent's score less its selection bias."""

    test: str
    shrunk: bool = False

    @property
    def name(self) -> str:
        return self.test + ("-shrunk" if self.shrunk else "")


def parse_rules(text: str) -> list[Rule]:
    """``"t,sprt-shrunk"`` -> rules; one-line ValueError for an unknown name."""
    out = []
    for word in (w.strip() for w in text.split(",") if w.strip()):
        test, _, suffix = word.partition("-")
        if test not in TESTS or suffix not in ("", "shrunk"):
            raise ValueError(f"unknown rule {word!r}: use {', '.join(TESTS)}, optionally with -shrunk")
        out.append(Rule(test, suffix == "shrunk"))
    if not out:
        raise ValueError("--rules names no rule")
    return out


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _study(rng: np.random.Generator, rules: list[Rule], *, trials: int, opponents: int, maps: int,
           batch_pairs: int, alpha: float, min_pairs: int, base: np.ndarray, strength_sd: float,
           opponent_sd: float, map_sd: float) -> dict[str, dict]:
    """One simulated study played once per rule on the very same games (common random numbers)."""
    map_effect = rng.normal(0.0, map_sd, size=(opponents, maps))
    logits = base[None, :] + rng.normal(0.0, strength_sd, size=(trials, 1)) + \
        rng.normal(0.0, opponent_sd, size=(trials, opponents))
    p = _sigmoid(logits[:, :, None] + map_effect[None, :, :])  # trial x opponent x map
    games = (rng.random((trials, opponents, maps, 2)) < p[..., None]).mean(axis=3)  # pair scores
    truth = _sigmoid(logits[:, :, None] + map_effect[None]).mean(axis=(1, 2))  # on these maps' population
    per_batch = [(o, slice(b, b + batch_pairs)) for b in range(0, maps, batch_pairs) for o in range(opponents)]
    looks = len(per_batch)
    out = {}
    for rule in rules:
        complete: list[int] = []
        scores: dict[int, float] = {}
        variances: dict[int, float] = {}
        incumbent = None
        played = 0
        tested_good = pruned_good = tested_equal = pruned_equal = 0
        pruned: list[int] = []
        bias_seen = []
        for t in range(trials):
            seen = np.zeros((opponents, maps), dtype=bool)
            stopped = False
            for o, cols in per_batch:
                seen[o, cols] = True
                played += 2 * (cols.stop - cols.start)
                if incumbent is None or t == incumbent:
                    continue
                diffs = (games[t] - games[incumbent])[seen]
                margin = 0.0
                if rule.shrunk:
                    margin = incumbent_bias([scores[c] for c in complete], [variances[c] for c in complete],
                                            scores[incumbent])
                if decide(diffs.tolist(), alpha=alpha, looks=looks, min_pairs=min_pairs, margin=margin,
                          test=rule.test).prune:
                    stopped = True
                    break
            if incumbent is not None:
                good = truth[t] >= truth[incumbent]
                tested_good += good
                pruned_good += good and stopped
                equal = good and truth[t] <= truth[incumbent] + EQUAL
                tested_equal += equal
                pruned_equal += equal and stopped
            if stopped:
                pruned.append(t)
                continue
            complete.append(t)
            per_opp = games[t].mean(axis=1)
            scores[t] = float(per_opp.mean())
            variances[t] = float((games[t].var(axis=1, ddof=1) / maps).sum() / opponents ** 2)
            if incumbent is None or scores[t] > scores[incumbent]:
                incumbent = t
            bias_seen.append(scores[incumbent] - truth[incumbent])
        best = incumbent
        out[rule.name] = {"games": played, "games_full": trials * opponents * maps * 2,
                          "tested_good": tested_good, "pruned_good": pruned_good,
                          "tested_equal": tested_equal, "pruned_equal": pruned_equal,
                          "wrongly_pruned": sum(truth[t] > truth[best] for t in pruned), "pruned": len(pruned),
                          "best_truth": float(truth[best]), "top_truth": float(truth.max()),
                          "incumbent_bias": float(np.mean(bias_seen))}
    return out


def simulate(rules: list[Rule], *, studies: int = 300, trials: int = 30, opponents: int = 4, maps: int = 100,
             batch_pairs: int = 50, alpha: float = 0.05, min_pairs: int = 50, base: list[float] | None = None,
             strength_sd: float = 0.5, opponent_sd: float = 0.2, map_sd: float = 1.0, seed: int = 1) -> dict:
    """Every rule on the same ``studies`` simulated studies; the summary per rule."""
    rng = np.random.default_rng(seed)
    base_arr = np.array(base if base is not None else [0.0] * opponents, dtype=float)
    if len(base_arr) != opponents:
        raise ValueError(f"--base gives {len(base_arr)} logits for {opponents} opponents")
    totals: dict[str, dict] = {}
    for _ in range(studies):
        for name, r in _study(rng, rules, trials=trials, opponents=opponents, maps=maps, batch_pairs=batch_pairs,
                              alpha=alpha, min_pairs=min_pairs, base=base_arr, strength_sd=strength_sd,
                              opponent_sd=opponent_sd, map_sd=map_sd).items():
            acc = totals.setdefault(name, {})
            for key, value in r.items():
                acc.setdefault(key, []).append(value)
    summary = {}
    for name, acc in totals.items():
        good = sum(acc["tested_good"])
        equal = sum(acc["tested_equal"])
        summary[name] = {
            "equal_pruned": sum(acc["pruned_equal"]) / equal if equal else math.nan,
            "equal_tested": equal,
            "games_share": sum(acc["games"]) / sum(acc["games_full"]),
            "equal_or_better_pruned": sum(acc["pruned_good"]) / good if good else math.nan,
            "equal_or_better_tested": good,
            "wrongly_pruned_per_study": float(np.mean(acc["wrongly_pruned"])),
            "studies_with_a_wrongly_pruned": float(np.mean([w > 0 for w in acc["wrongly_pruned"]])),
            "pruned_per_study": float(np.mean(acc["pruned"])),
            "best_truth": float(np.mean(acc["best_truth"])),
            "regret": float(np.mean(np.array(acc["top_truth"]) - np.array(acc["best_truth"]))),
            "incumbent_bias": float(np.mean(acc["incumbent_bias"])),
        }
    return summary


def _markdown(summary: dict, alpha: float) -> str:
    lines = ["| rule | games played (share of no pruning) | equal trials pruned (alpha " f"{alpha}) "
             "| trials >= incumbent pruned | "
             "pruned trials better than the final best, per study | studies with one | regret of the final best "
             "| incumbent's bias |", "|---|---|---|---|---|---|---|---|"]
    for name, r in summary.items():
        lines.append(f"| {name} | {r['games_share']:.1%} | {r['equal_pruned']:.1%} (of {r['equal_tested']}) | "
                     f"{r['equal_or_better_pruned']:.1%} "
                     f"(of {r['equal_or_better_tested']}) | {r['wrongly_pruned_per_study']:.2f} | "
                     f"{r['studies_with_a_wrongly_pruned']:.0%} | {r['regret']:.4f} | {r['incumbent_bias']:+.4f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.prunebench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="t,t-shrunk,sprt,sprt-shrunk,wilcoxon", help="comma-separated")
    parser.add_argument("--studies", type=int, default=300)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--opponents", type=int, default=4)
    parser.add_argument("--maps", type=int, default=100)
    parser.add_argument("--batch-pairs", type=int, default=50)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--min-pairs", type=int, default=50)
    parser.add_argument("--base", default=None, help="comma-separated logit of each opponent's win rate at strength 0")
    parser.add_argument("--strength-sd", type=float, default=0.5, help="spread of the trials' strengths (logit)")
    parser.add_argument("--opponent-sd", type=float, default=0.2, help="per-opponent spread of a trial (logit)")
    parser.add_argument("--map-sd", type=float, default=1.0, help="spread of the maps' effects (logit)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON line last")
    args = parser.parse_args(argv)
    try:
        rules = parse_rules(args.rules)
        base = None if args.base is None else [float(x) for x in args.base.split(",")]
        if min(args.studies, args.trials, args.opponents, args.maps, args.batch_pairs) < 1:
            raise ValueError("--studies, --trials, --opponents, --maps and --batch-pairs must be positive")
        if not 0 < args.alpha < 0.5:
            raise ValueError(f"--alpha must be in (0, 0.5), got {args.alpha}")
        summary = simulate(rules, studies=args.studies, trials=args.trials, opponents=args.opponents, maps=args.maps,
                           batch_pairs=args.batch_pairs, alpha=args.alpha, min_pairs=args.min_pairs, base=base,
                           strength_sd=args.strength_sd, opponent_sd=args.opponent_sd, map_sd=args.map_sd,
                           seed=args.seed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(_markdown(summary, args.alpha))
    if args.json:
        print(json.dumps(summary, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
