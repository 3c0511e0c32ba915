"""How much of the learned bot's weakness is its trust in the search's ranking.

TD fits a value: the weight it gives ``v3_regret`` (how far a line falls below v3's best line
of the turn) is what one worse line costs in win rate, which is small. Choosing well between
the lines of one turn wants that ranking trusted far more. This bench plays a learned
coefficient file against ``patient-v1`` with the ``v3_regret`` weight multiplied by each scale,
the rest unchanged, on the same maps (``ocean arena``, sides swapped). ``tune learn``'s trust
step chooses that scale by self-play instead (``tuning/driver/trust.py``); this bench shows what
each scale is worth against a yardstick the learner never plays.

    python -m benchmarks.tdtrust --params studies/learned-td.toml --scales 0.015625,0.125,0.5,1 --games 1000 --json

(``studies/learned-td.toml`` carries the trust step's scale, x64: 1/64 gives back TD's own weight;
a product past the weights' bounds is clipped to them.)
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from ocean.bots.td.coefficients import WEIGHT_BOUND

__all__ = ["run"]


def _score(bot: str, name: str, opponent: str, games: int, seed: int) -> dict:
    out = subprocess.run([sys.executable, "-m", "ocean", "arena", "--bots", f"{bot},{opponent}",
                          "--games", str(games), "--seed", str(seed), "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ocean arena failed: {out.stderr.strip().splitlines()[-1:]}")
    cell = json.loads(out.stdout.strip().splitlines()[-1])["matrix"][name][opponent]
    return {"score": cell["score"], "ci95": cell["ci95"]}


def run(params: str, scales: list[float], games: int, seed: int, opponent: str = "patient-v1") -> dict:
    """The score against ``opponent`` of ``params`` with its ``v3_regret`` weight times each scale,
    and of ``tunable-v3``'s defaults on the same maps."""
    weights = tomllib.loads(Path(params).read_text())["coefficients"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, scale in enumerate(scales):
            scaled = dict(weights, v3_regret=max(-WEIGHT_BOUND, min(WEIGHT_BOUND, weights["v3_regret"] * scale)))
            path = Path(tmp) / f"scaled{i}.toml"
            path.write_text('bot = "tunable-td"\n\n[coefficients]\n'
                            + "".join(f"{name} = {value!r}\n" for name, value in scaled.items()))
            row = {"scale": scale, "v3_regret": scaled["v3_regret"],
                   **_score(f"params:{path}", path.stem, opponent, games, seed)}
            print(f"x{scale:g}: {row['score']:.3f} {row['ci95']}", file=sys.stderr, flush=True)
            rows.append(row)
    v3 = _score("tunable-v3", "tunable-v3", opponent, games, seed)  # the search's own ranking, same maps
    return {"params": params, "opponent": opponent, "games": games, "seed": seed, "rows": rows, "tunable-v3": v3}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="studies/learned-td.toml")
    parser.add_argument("--scales", default="1,5,10,20,40")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5000, help="first map seed (the learner never saw these)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.params, [float(s) for s in args.scales.split(",")], args.games, args.seed)
    print(json.dumps(result) if args.json else "\n".join(
        f"x{r['scale']:g}: {r['score']:.3f} {r['ci95']}" for r in result["rows"])
        + f"\ntunable-v3: {result['tunable-v3']['score']:.3f} {result['tunable-v3']['ci95']}")


if __name__ == "__main__":
    main()
