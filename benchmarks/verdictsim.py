"""How often the verdict says "gain" when there is none, and when there is one: validation's
choice and judgement simulated where the truth is known, with the lab's own estimators.

    python -m benchmarks.verdictsim [--sims 4000] [--top-k 1,3,5,10] [--gains 0,0.02,0.05] [--json]

A simulated validation is the quick study's: the reference (trial 0) and ``top_k`` candidates
play ``maps`` held-out maps (700: the quick study's 1,400 games per opponent), both sides, against each of ``opponents`` training opponents and
``held_out`` held-out ones; a game is won with probability ``sigmoid(base_o + map_om + strength)``,
where the map effect is shared by every candidate (the maps are common to all of them, as in
validation) and ``strength`` is 0 for every candidate but the first, which is ``gain`` better on
the score scale near the panel's mean (0: all equal, the null). The chosen candidate then plays
the reference head to head on maps the choice did not use.

Four procedures, each counting how often it says "gain" (a false gain under the null, power
otherwise):

- ``before``: choose the best score on all maps and call it a gain when its paired interval
  against the reference lies above 0 on those same maps (the lab until the halving);
- ``after_panel``: choose on the first half of the maps, judge the training-panel difference on
  the second half (``gain_part``) alone;
- ``three_parts``: the fixed-size three-part rule the lab had before the sequential one (that
  panel part, a head to head above one half on ``--h2h-maps`` maps, held out not worse by
  ``--margin``: all three);
- ``after``: the rule ``tune validate`` applies (``_sequential``): the race on the first half,
  the chosen set judged not worse by ``--margin-elo`` on the second half and held out, and its
  head to head decided by the SPRT in rounds up to ``--h2h-max`` games; ``games`` is the mean
  games it played (``games_fixed``: the fixed rule's), ``no_decision`` how often the SPRT ran out.

The nominal rate of a false gain is 2.5% (one side of a 95% interval; the SPRT's alpha).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from tuning.results.verdict import (
    decide, gain_part, head_to_head_part, not_worse_elo_part, not_worse_part, sprt_part,
)
from tuning.stats.estimates import paired_difference
from tuning.stats.sequential import H2H_ROUND_MAPS, RACE_ROUND_MAPS, leader, race_drops
from tuning.stats.sprt import Settings
from tuning.study.spec import ValidationSpec

__all__ = ["simulate", "NOMINAL"]

NOMINAL = 0.025
_SPEC = ValidationSpec()  # the lab's defaults, one source of truth
DEFAULTS = {"margin_elo": _SPEC.not_worse_elo, "elo0": _SPEC.elo0, "elo1": _SPEC.elo1, "alpha": _SPEC.alpha,
            "beta": _SPEC.beta, "race_round": RACE_ROUND_MAPS, "h2h_round": H2H_ROUND_MAPS}


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


def _old_rule(rng, train, scores, shift, k, args, opponents, held) -> tuple[bool, bool, bool]:
    """(before, after_panel, three_parts): the fixed-size rules the lab had until the sequential one."""
    half = args.maps // 2
    best = max(range(k), key=lambda i: (train[i].mean(), i == 0))
    before = best != 0 and paired_difference(_as_dict(train[best], opponents),
                                             _as_dict(train[0], opponents)).low > 0
    chosen = max(range(k), key=lambda i: (train[i][:, :half].mean(), i == 0))
    if chosen == 0:
        return before, False, False
    panel = gain_part(_as_dict(train[chosen][:, half:], opponents, half), _as_dict(train[0][:, half:], opponents, half))
    duel = _pairs(rng, np.full(args.h2h_maps, shift[chosen] - shift[0]) + rng.normal(0.0, args.map_sd,
                                                                                      size=args.h2h_maps))
    held_part = not_worse_part(_as_dict(scores[chosen][args.opponents:], held),
                               _as_dict(scores[0][args.opponents:], held), args.margin) if held else None
    verdict, _ = decide({"head_to_head": head_to_head_part(list(duel)), "training_panel": panel,
                         "held_out": held_part})
    return before, panel.passed, verdict == "gain"


def _sequential(rng, train, scores, shift, k, args, opponents, held) -> tuple[bool, int, str]:
    """(gain, games played, how it ended) under the sequential rule ``tune validate`` applies
    (``tuning.results.validation``): the race on the choosing half, the chosen set judged on the
    other half (training panel and held out: not worse by ``--margin-elo``), its head to head
    decided by the SPRT in rounds of ``--h2h-round`` maps up to ``--h2h-max`` games."""
    half = args.maps // 2
    settings = Settings(args.elo0, args.elo1, args.alpha, args.beta)
    dicts = {i: _as_dict(train[i][:, :half], opponents) for i in range(k)}
    alive = list(range(k))
    games = 0
    played = 0
    race = {i: {} for i in range(k)}
    while played < half:
        step = min(args.race_round, half - played)
        for i in alive:
            race[i].update({key: v for key, v in dicts[i].items() if played <= key[1] < played + step})
            games += 2 * step * len(opponents)
        played += step
        for dropped in race_drops(race, alive, prefer=0):
            alive.remove(dropped)
        if sum(1 for i in alive if i) <= 1:
            break
    contenders = [i for i in alive if i]
    if not contenders:  # the reference dropped every candidate: nothing to judge
        return False, games, "reference best"
    chosen = leader(race, contenders)
    judged = [(_as_dict(train[i][:, half:], opponents, half)) for i in (chosen, 0)]
    games += 2 * 2 * (args.maps - half) * len(opponents)
    panel = not_worse_elo_part(*judged, args.margin_elo)
    held_part = None
    if held:
        held_part = not_worse_elo_part(_as_dict(scores[chosen][args.opponents:], held),
                                       _as_dict(scores[0][args.opponents:], held), args.margin_elo)
        games += 2 * 2 * args.maps * len(held)
    duel_maps = args.h2h_max // 2
    duel = list(_pairs(rng, np.full(duel_maps, shift[chosen] - shift[0])
                       + rng.normal(0.0, args.map_sd, size=duel_maps)))
    n = 0
    while True:
        n = min(duel_maps, n + args.h2h_round)
        h2h = sprt_part(duel[:n], settings, args.h2h_max)
        if h2h.sprt["decision"] is not None:
            break
    games += 2 * n
    verdict, _ = decide({"head_to_head": h2h, "training_panel": panel, "held_out": held_part})
    return verdict == "gain", games, h2h.sprt["decision"]


def _one(rng, top_k: int, gain: float, args) -> dict:
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
    before, after_panel, three = _old_rule(rng, train, scores, shift, k, args, opponents, held)
    after, games, ended = _sequential(rng, train, scores, shift, k, args, opponents, held)
    return {"before": before, "after_panel": after_panel, "three_parts": three, "after": after,
            "games": games, "no_decision": ended == "no decision"}


_RATES = ("before", "after_panel", "three_parts", "after", "no_decision")


def simulate(args) -> list[dict]:
    """One row per (top_k, gain): how often each procedure said "gain", with 95% intervals, and
    the sequential rule's mean games (``games``) beside the fixed rule's (``games_fixed``)."""
    rows = []
    for gain in args.gains:
        for top_k in args.top_k:
            rng = np.random.default_rng([args.seed, top_k, int(gain * 1e6)])
            counts = dict.fromkeys(_RATES, 0)
            games = 0
            for _ in range(args.sims):
                one = _one(rng, top_k, gain, args)
                games += one["games"]
                for key in _RATES:
                    counts[key] += one[key]
            row = {"top_k": top_k, "gain": gain, "sims": args.sims}
            for key, n in counts.items():
                p = n / args.sims
                half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / args.sims)
                row[key] = round(p, 4)
                row[f"{key}_ci"] = [round(max(0.0, p - half), 4), round(p + half, 4)]
            row["games"] = round(games / args.sims, 1)
            row["games_fixed"] = (top_k + 1) * (args.opponents + args.held_out) * 2 * args.maps + 2 * args.h2h_maps
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=4000, help="validations simulated per row")
    parser.add_argument("--top-k", type=lambda s: [int(x) for x in s.split(",")], default=[1, 3, 5, 10])
    parser.add_argument("--gains", type=lambda s: [float(x) for x in s.split(",")], default=[0.0, 0.02, 0.05],
                        help="the first candidate's true score gain over the others (0: the null)")
    parser.add_argument("--maps", type=int, default=700, help="held-out maps the panels play (quick: 700)")
    parser.add_argument("--h2h-maps", type=int, default=250, help="maps of the head-to-head games")
    parser.add_argument("--opponents", type=int, default=4, help="training opponents")
    parser.add_argument("--held-out", type=int, default=2, help="held-out opponents")
    parser.add_argument("--base", type=float, default=1.0, help="mean logit against an opponent (0.73)")
    parser.add_argument("--opponent-sd", type=float, default=0.8)
    parser.add_argument("--map-sd", type=float, default=1.0, help="logit spread of a map's effect")
    parser.add_argument("--margin", type=float, default=0.02, help="the held-out part's margin")
    parser.add_argument("--margin-elo", type=float, default=DEFAULTS["margin_elo"],
                        help="the sequential rule's not-worse margin (Elo)")
    parser.add_argument("--elo0", type=float, default=DEFAULTS["elo0"])
    parser.add_argument("--elo1", type=float, default=DEFAULTS["elo1"])
    parser.add_argument("--alpha", type=float, default=DEFAULTS["alpha"])
    parser.add_argument("--beta", type=float, default=DEFAULTS["beta"])
    parser.add_argument("--race-round", type=int, default=DEFAULTS["race_round"], help="maps per look of the race")
    parser.add_argument("--h2h-round", type=int, default=DEFAULTS["h2h_round"],
                        help="maps per look of the head-to-head SPRT")
    parser.add_argument("--h2h-max", type=int, default=20000,
                        help="head-to-head games after which the SPRT says no decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = simulate(args)
    if args.json:
        print(json.dumps({"nominal": NOMINAL, "rows": rows}))
        return 0
    print(f"'gain' said, out of {args.sims} simulated validations each (nominal false-gain rate {NOMINAL:.1%})")
    print("| true gain | top_k | before (chosen and judged on the same maps) | training panel alone | "
          "three parts, fixed size | sequential (tune validate) | its no decision | its games (fixed) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [f"{100 * r[k]:.1f}% [{100 * r[k + '_ci'][0]:.1f}, {100 * r[k + '_ci'][1]:.1f}]"
                 for k in ("before", "after_panel", "three_parts", "after")]
        print(f"| {r['gain']:+.2f} | {r['top_k']} | " + " | ".join(cells)
              + f" | {100 * r['no_decision']:.1f}% | {r['games']:,.0f} ({r['games_fixed']:,}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
