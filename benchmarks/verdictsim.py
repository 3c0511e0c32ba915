"""How often the verdict says "gain" when there is none, and when there is one: validation's
choice and judgement simulated where the truth is known, with the lab's own estimators.

    python -m benchmarks.verdictsim [--sims 4000] [--top-k 1,3,5,10] [--gains 0,0.02,0.05] [--json]

A simulated validation is the quick study's: the reference (trial 0) and ``top_k`` candidates
play ``maps`` held-out maps, both sides, against each of ``opponents`` training opponents and
``held_out`` held-out ones; a game is won with probability ``sigmoid(base_o + map_om + strength)``,
where the map effect is shared by every candidate (the maps are common to all of them, as in
validation) and ``strength`` is 0 for every candidate but the first, which is ``gain`` better on
the score scale near the panel's mean (0: all equal, the null). The chosen candidate then plays
the reference head to head on maps the choice did not use.

Two procedures, each counting how often it says "gain" (a false gain under the null, power
otherwise):

- ``before``: choose the best score on all maps and call it a gain when its paired interval
  against the reference lies above 0 on those same maps (the lab until this batch);
- ``after``: choose on the first half of the maps, judge the training-panel difference on the
  second half (``gain_part``), with the head-to-head part (``head_to_head_part``) and the
  held-out part (``not_worse_part``): "gain" needs all three (``decide``); the training-panel
  part alone is reported too (``after_panel``).

The nominal rate of a false gain is 2.5% (one side of a 95% interval).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from tuning.results.verdict import decide, gain_part, head_to_head_part, not_worse_part
from tuning.stats.estimates import paired_difference

__all__ = ["simulate", "NOMINAL"]

NOMINAL = 0.025


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _pairs(rng, logits: np.ndarray) -> np.ndarray:
    """Pair scores (mean of two games) for win probabilities ``sigmoid(logits)``."""
    p = _sigmoid(logits)
    return (rng.random(p.shape) < p).astype(float) / 2 + (rng.random(p.shape) < p).astype(float) / 2


def _as_dict(scores: np.ndarray, names: list[str], first_map: int = 0) -> dict:
    """(opponent, map) -> pair score, the form the lab's estimators take."""
    keys = [(name, first_map + m) for name in names for m in range(scores.shape[1])]
    return dict(zip(keys, scores.ravel().tolist()))


def _one(rng, top_k: int, gain: float, args) -> dict[str, bool]:
    k = top_k + 1
    opponents = [f"o{i}" for i in range(args.opponents)]
    held = [f"h{i}" for i in range(args.held_out)]
    base = rng.normal(args.base, args.opponent_sd, size=args.opponents + args.held_out)
    maps = rng.normal(0.0, args.map_sd, size=(args.opponents + args.held_out, args.maps))
    p_mean = float(np.mean(_sigmoid(base[:args.opponents])))
    shift = np.zeros(k)
    if gain:  # a score gain near the panel's mean, as a logit shift
        shift[1] = gain / (p_mean * (1 - p_mean))
    scores = [_pairs(rng, base[:, None] + maps + s) for s in shift]  # (opponents + held, maps) each
    train = [s[:args.opponents] for s in scores]
    half = args.maps // 2
    # before: chosen and judged on all maps
    best = max(range(k), key=lambda i: (train[i].mean(), i == 0))
    before = best != 0 and paired_difference(_as_dict(train[best], opponents),
                                             _as_dict(train[0], opponents)).low > 0
    # after: chosen on the first half, judged on the second
    chosen = max(range(k), key=lambda i: (train[i][:, :half].mean(), i == 0))
    out = {"before": before, "after_panel": False, "after": False}
    if chosen == 0:
        return out
    panel = gain_part(_as_dict(train[chosen][:, half:], opponents, half), _as_dict(train[0][:, half:], opponents, half))
    duel = _pairs(rng, np.full(args.h2h_maps, shift[chosen] - shift[0]) + rng.normal(0.0, args.map_sd,
                                                                                      size=args.h2h_maps))
    held_part = not_worse_part(_as_dict(scores[chosen][args.opponents:], held),
                               _as_dict(scores[0][args.opponents:], held), args.margin) if held else None
    verdict, _ = decide({"head_to_head": head_to_head_part(list(duel)), "training_panel": panel,
                         "held_out": held_part})
    out.update(after_panel=panel.passed, after=verdict == "gain")
    return out


def simulate(args) -> list[dict]:
    """One row per (top_k, gain): how often each procedure said "gain", with 95% intervals."""
    rows = []
    for gain in args.gains:
        for top_k in args.top_k:
            rng = np.random.default_rng([args.seed, top_k, int(gain * 1e6)])
            counts = {"before": 0, "after_panel": 0, "after": 0}
            for _ in range(args.sims):
                for key, said in _one(rng, top_k, gain, args).items():
                    counts[key] += said
            row = {"top_k": top_k, "gain": gain, "sims": args.sims}
            for key, n in counts.items():
                p = n / args.sims
                half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / args.sims)
                row[key] = round(p, 4)
                row[f"{key}_ci"] = [round(max(0.0, p - half), 4), round(p + half, 4)]
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=4000, help="validations simulated per row")
    parser.add_argument("--top-k", type=lambda s: [int(x) for x in s.split(",")], default=[1, 3, 5, 10])
    parser.add_argument("--gains", type=lambda s: [float(x) for x in s.split(",")], default=[0.0, 0.02, 0.05],
                        help="the first candidate's true score gain over the others (0: the null)")
    parser.add_argument("--maps", type=int, default=500, help="held-out maps the panels play (quick: 500)")
    parser.add_argument("--h2h-maps", type=int, default=250, help="maps of the head-to-head games")
    parser.add_argument("--opponents", type=int, default=4, help="training opponents")
    parser.add_argument("--held-out", type=int, default=2, help="held-out opponents")
    parser.add_argument("--base", type=float, default=1.0, help="mean logit against an opponent (0.73)")
    parser.add_argument("--opponent-sd", type=float, default=0.8)
    parser.add_argument("--map-sd", type=float, default=1.0, help="logit spread of a map's effect")
    parser.add_argument("--margin", type=float, default=0.02, help="the held-out part's margin")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = simulate(args)
    if args.json:
        print(json.dumps({"nominal": NOMINAL, "rows": rows}))
        return 0
    print(f"'gain' said, out of {args.sims} simulated validations each (nominal false-gain rate {NOMINAL:.1%})")
    print("| true gain | top_k | before (chosen and judged on the same maps) | after: training panel alone | "
          "after: the three parts |")
    print("|---|---|---|---|---|")
    for r in rows:
        cells = [f"{100 * r[k]:.1f}% [{100 * r[k + '_ci'][0]:.1f}, {100 * r[k + '_ci'][1]:.1f}]"
                 for k in ("before", "after_panel", "after")]
        print(f"| {r['gain']:+.2f} | {r['top_k']} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
