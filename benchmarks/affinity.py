"""Timeouts of a program that spends 80% of its turn budget, 2 workers on 2 cores, with each
worker holding a CPU of its own and its games pinned to it (``ocean arena --affinity pin``), holding
one but its games free to run anywhere (``--affinity slot``), and neither (``--affinity none``).

The program (tests/ocean/programs/busy.py) keeps its CPU busy for ``--share`` of the ``{turn_ms}``
it is told, from when it has read its turn, then answers; it plays the in-process ``random`` bot,
one program process per game, as a study's games do. The settings alternate in rounds on the
same maps (the machine's load moves them alike), and the load average is printed with the
figures: on a shared machine other people's processes cause timeouts too.

    python -m benchmarks.affinity --games 1000 --turn-ms 50 --rounds 10 --json
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

from ocean.arena import run_arena
from ocean.bots import resolve_bot
from ocean.cpus import AFFINITY, NONE
from ocean.stats import t_quantile
from ocean.timecontrol import TimeControl

BUSY = Path(__file__).resolve().parents[1] / "tests" / "ocean" / "programs" / "busy.py"


def _round(program, maps: int, seed: int, time_control: TimeControl, affinity: str, workers: int) -> dict:
    start = time.perf_counter()
    report = run_arena([program, resolve_bot("random")], maps, seed=seed, workers=workers, progress=False,
                       time=time_control, affinity=affinity)
    stats = report["statistics"][program.name]
    return {"games": stats["games"], "disqualified": stats["disqualified"], "first_error": stats["first_error"],
            "answer_max_ms": stats["answer_max_ms"], "answer_mean_ms": stats["answer_mean_ms"],
            "wall_s": time.perf_counter() - start, "load": os.getloadavg()[0]}


def _paired(runs: list[dict], baseline: list[dict]) -> list[float]:
    """Timeouts per 1000 games minus the baseline's, round by round (same maps, same moment):
    [mean, low, high] of the 95% t-interval over rounds."""
    diffs = [1000 * (r["disqualified"] / r["games"] - b["disqualified"] / b["games"]) for r, b in zip(runs, baseline)]
    mean = statistics.fmean(diffs)
    if len(diffs) < 2:
        return [round(mean, 1), None, None]
    half = t_quantile(0.975, len(diffs) - 1) * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return [round(mean, 1), round(mean - half, 1), round(mean + half, 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per setting (even)")
    parser.add_argument("--turn-ms", type=int, default=50, help="the budget the program is told")
    parser.add_argument("--share", type=float, default=0.8, help="the share of it the program spends")
    parser.add_argument("--time-scale", type=float, default=1.0, help="the limits enforced: the times told x this")
    parser.add_argument("--rounds", type=int, default=10, help="alternations of the settings")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args()
    program = resolve_bot(f'cmd:"{sys.executable} {BUSY} --turn-ms {{turn_ms}} --share {args.share} '
                          '--seed {game_seed}"')
    time_control = TimeControl(turn_ms=args.turn_ms, scale=args.time_scale)
    maps = max(1, args.games // (2 * args.rounds))
    runs = {mode: [] for mode in AFFINITY}
    _round(program, 1, 1, time_control, NONE, args.workers)  # compile or load the kernels first, unmeasured
    load_before = os.getloadavg()
    for r in range(args.rounds):
        for mode in AFFINITY[r % 3:] + AFFINITY[:r % 3]:  # each setting first in turn
            run = _round(program, maps, 1 + r * maps, time_control, mode, args.workers)
            runs[mode].append(run)
            print(f"round {r + 1}: {mode}: {run['disqualified']} of {run['games']} games timed out or failed, "
                  f"longest answer {run['answer_max_ms']} ms, load {run['load']:.2f}", file=sys.stderr, flush=True)
    figures = {"turn_ms": args.turn_ms, "time_scale": args.time_scale, "share": args.share, "workers": args.workers,
               "cpus": len(os.sched_getaffinity(0)),
               "load_average_before": [round(x, 2) for x in load_before],
               "load_average_after": [round(x, 2) for x in os.getloadavg()]}
    for mode in AFFINITY:
        games = sum(r["games"] for r in runs[mode])
        failed = sum(r["disqualified"] for r in runs[mode])
        figures[mode] = {"games": games, "disqualified": failed,
                         "timeouts_per_1000_games": round(1000 * failed / games, 1),
                         "first_error": next((r["first_error"] for r in runs[mode] if r["first_error"]), None),
                         "answer_max_ms": max(r["answer_max_ms"] or 0 for r in runs[mode]),
                         "answer_mean_ms": round(sum(r["answer_mean_ms"] or 0 for r in runs[mode])
                                                 / len(runs[mode]), 2),
                         "wall_s": round(sum(r["wall_s"] for r in runs[mode]), 1)}
        if mode != NONE:
            figures[mode]["minus_none_per_1000"] = _paired(runs[mode], runs[NONE])
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
