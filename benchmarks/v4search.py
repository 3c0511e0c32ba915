"""The v4 search against v3 (issue 34): paired in-process games on held-out maps, and the cost
of a decision, for v4 at its defaults or at the values given.

    python -m benchmarks.v4search --games 1000 --json
    python -m benchmarks.v4search --games 200 --set iterations=16,64 --set ucb_c=0.01,0.3

Each ``--set NAME=V1,V2,...`` is one sweep: every value of it is played with the other
coefficients at their defaults (sweeps do not combine), or at the values of the ``--base NAME=V``
options, which every run shares (``--base determinizations=8 --set ucb_c=0.01,0.3``), themselves
over a coefficient file's (``--base-params studies/tuned-v3.toml``: a v3 file sets v4's evaluation). Maps are
held out (seeds from 900,000, never in a study's seed bank); each map is played twice with the
sides swapped, so the score's interval is over pairs (``ocean.stats.pair_estimate``).
``--workers`` splits the maps over processes (the figures are the same for any count: a game is
a pure function of its seeds).
Decision time is CPU time per v4 decision over whole games against v3 (``--time-games`` maps),
mean and p99, beside v3's own over the same games. ``--agreement-games`` counts the decisions
where v4 plays another line than v3 would in its place (MINE and SONAR included).
"""
from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

__all__ = ["run", "play", "decision_cost", "agreement"]

HELD_OUT = 900_000


def _spec(values: dict):
    from ocean.bots import BotSpec, coefficients as C

    return BotSpec("tunable-v4", "tunable-v4", {**C.defaults("tunable-v4"), **values})


def _chunk(args) -> np.ndarray:
    from ocean.bots import resolve_bot
    from ocean.match import play_pairs

    values, seeds, opponent = args
    return play_pairs(_spec(values), resolve_bot(opponent), np.asarray(seeds, dtype=np.int64)).score_a()


def play(values: dict, games: int, opponent: str = "tunable-v3", workers: int = 1) -> dict:
    """v4 at ``values`` against ``opponent`` over ``games`` games (games // 2 held-out maps)."""
    from ocean.stats import pair_estimate

    seeds = list(range(HELD_OUT, HELD_OUT + max(1, games // 2)))
    parts = [seeds[i::workers] for i in range(workers)]
    start = time.perf_counter()
    if workers == 1:
        scores = [_chunk((values, seeds, opponent))]
        order = [seeds]
    else:
        with ProcessPoolExecutor(workers) as pool:
            scores = list(pool.map(_chunk, [(values, part, opponent) for part in parts]))
        order = parts
    by_seed = {}
    for part, score in zip(order, scores):
        for k, seed in enumerate(part):
            by_seed[seed] = score[2 * k:2 * k + 2]
    flat = np.concatenate([by_seed[s] for s in seeds])
    e = pair_estimate(flat)
    return {"values": values, "opponent": opponent, "games": int(len(flat)), "score": round(e.mean, 3),
            "low": round(e.low, 3), "high": round(e.high, 3), "seconds": round(time.perf_counter() - start, 1)}


def decision_cost(values: dict, games: int = 10) -> dict:
    """CPU microseconds per decision (mean, p99, max) of v4 at ``values`` and of v3, each over
    whole games against v3 on ``games`` held-out maps."""
    from benchmarks.engine import _decision_times
    from ocean.bots import resolve_bot

    v3 = resolve_bot("tunable-v3")
    seeds = np.arange(HELD_OUT, HELD_OUT + games, dtype=np.int64)
    out = {}
    for name, spec in (("tunable-v4", _spec(values)), ("tunable-v3", v3)):
        _decision_times(spec, v3, seeds[:1])  # compiled or loaded first
        cpu: list[float] = []
        _decision_times(spec, v3, seeds, cpu)
        out[name] = {"cpu_mean_us": round(float(np.mean(cpu)), 1), "cpu_p99_us": round(float(np.percentile(cpu, 99)), 1),
                     "cpu_max_us": round(float(np.max(cpu)), 1), "decisions": len(cpu)}
    return out


def agreement(values: dict, games: int = 10) -> dict:
    """How often v4 at ``values`` plays a line other than the one v3 would play in its place
    (v3's kernels on copies of v4's state, memory and rng, with v4's v3 coefficients), over
    whole games against v3 on ``games`` held-out maps."""
    from benchmarks.engine import _play_decisions
    from ocean.bots import coefficients as C, resolve_bot
    from ocean.bots._slots import load_slots
    from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS

    v4, v3 = _spec(values), resolve_bot("tunable-v3")
    v3_turn = load_slots(v3.kind)[2]
    greedy = v4.vector()[:len(C.names("tunable-v3"))].copy()  # v4's own evaluation coefficients, as v3 reads them
    alt = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = [0, 0]  # decisions, those where v4 left v3's line

    def compared(turn, state, board, mem, rng, out, coefs):
        m = v3_turn(state.copy(), board, 0, mem.copy(), rng.copy(), alt, greedy)
        n = turn(state, board, 0, mem, rng, out, coefs)
        counts[0] += 1
        counts[1] += int(m != n or not np.array_equal(alt[:m], out[:n]))
        return n

    _play_decisions(v4, v3, np.arange(HELD_OUT, HELD_OUT + games, dtype=np.int64), compared)
    return {"decisions": counts[0], "differs": round(counts[1] / max(counts[0], 1), 4)}


def _parse_sets(sets: list[str], option: str = "--set") -> list[dict]:
    from ocean.bots import coefficients as C

    known = set(C.names("tunable-v4"))
    runs = []
    for item in sets:
        name, _, values = item.partition("=")
        if name not in known or not values:
            raise SystemExit(f"{option} {item!r}: give NAME=V1,V2 with a v4 coefficient name")
        runs += [{name: float(v)} for v in values.split(",")]
    return runs


def _params_base(path: str | None) -> dict:
    """The coefficients of a v3 or v4 coefficient file, as v4 values (a v3 file sets v4's
    evaluation, the search keeps its defaults)."""
    from ocean.bots import coefficients as C

    if not path:
        return {}
    try:
        policy, values = C.read_params_file(path)
    except C.ParamsError as exc:
        raise SystemExit(f"--base-params: {exc}") from None
    if policy not in ("tunable-v3", "tunable-v4"):
        raise SystemExit(f"--base-params {path}: a {policy} file; give a tunable-v3 or tunable-v4 coefficient file")
    return values


def _runs(sets: list[str], base: list[str], base_params: str | None = None) -> list[dict]:
    """The coefficient values of each run: a ``--set`` sweep's value over the ``--base`` values,
    themselves over the ``--base-params`` file's."""
    shared: dict = _params_base(base_params)
    for values in _parse_sets(base, "--base"):
        shared.update(values)
    return [{**shared, **values} for values in (_parse_sets(sets) if sets else [{}])]


def run(games: int, sets: list[str], workers: int, time_games: int, opponent: str,
        base: list[str] | None = None, agreement_games: int = 0, base_params: str | None = None) -> list[dict]:
    rows = []
    for values in _runs(sets, base or [], base_params):
        row = play(values, games, opponent, workers)
        if time_games > 0:
            row["decision_cost"] = decision_cost(values, time_games)
        if agreement_games > 0:
            row["agreement"] = agreement(values, agreement_games)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--set", action="append", default=[], dest="sets")
    parser.add_argument("--base", action="append", default=[],
                        help="NAME=V: a value every run shares (the sweeps of --set vary around it)")
    parser.add_argument("--base-params", metavar="FILE",
                        help="a tunable-v3 or tunable-v4 coefficient file every run starts from (a v3 file: v4's "
                             "evaluation; --base and --set apply over it)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time-games", type=int, default=0, help="maps to time decisions on (0: none)")
    parser.add_argument("--agreement-games", type=int, default=0,
                        help="maps on which to count v4's decisions that differ from v3's line (0: none)")
    parser.add_argument("--opponent", default="tunable-v3")
    parser.add_argument("--json", action="store_true", help="(rows are printed as JSON lines either way)")
    args = parser.parse_args()
    run(args.games, args.sets, args.workers, args.time_games, args.opponent, args.base, args.agreement_games,
        args.base_params)


if __name__ == "__main__":
    main()
