"""The referee check of ``ocean bot --name tunable-v4 --turn-ms {turn_ms}`` (issue 34): N games
under ``ocean referee`` at CodinGame's time control (1000 ms first answer, 50 ms a turn) against
each opponent program, one game at a time, the v4 program on side 0 on odd seeds and side 1 on
even ones. Per opponent: games, timeouts and crashes of either side (with the turn and reason),
v4's first answers (median, max) and its longest turn answer, and the load average before and
after each game (its min and max over the run: the answer times are under that load).

    python -m benchmarks.v4referee --games 200 --opponent "ocean bot --name tunable-v3" \\
        --opponent "ocean bot --name random --seed {game_seed}"

``ocean`` in a command is the ``ocean`` script beside this Python (the same installed version).
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np

__all__ = ["referee_check", "main"]

V4 = "ocean bot --name tunable-v4 --turn-ms {turn_ms}"


def _ocean() -> str:
    return os.path.join(os.path.dirname(sys.executable), "ocean")


def _command(command: str) -> str:
    words = shlex.split(command)
    if words and words[0] == "ocean":
        words[0] = _ocean()
    return shlex.join(words)


def _game(seed: int, bot: str, opponent: str) -> tuple[dict, int]:
    """One ``ocean referee`` game at its default (CodinGame's) time control: (its JSON verdict,
    the bot's side)."""
    side = 0 if seed % 2 else 1
    players = (bot, opponent) if side == 0 else (opponent, bot)
    done = subprocess.run([_ocean(), "referee", "--seed", str(seed), "--p0", _command(players[0]),
                           "--p1", _command(players[1]), "--json"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"ocean referee --seed {seed} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.splitlines()[-1]), side


def referee_check(games: int, opponent: str, bot: str = V4, first_seed: int = 1, progress: bool = True,
                  log: str | None = None) -> dict:
    """``games`` refereed games of ``bot`` against ``opponent`` (seeds ``first_seed``..): the figures
    of the module docstring, and every game with a disqualification or failure in ``faults``;
    with ``log``, each game's verdict appended to that file as it ends (one JSON line)."""
    firsts, maxes, means, faults, loads, wins = [], [], [], [], [], 0
    start = time.time()
    for seed in range(first_seed, first_seed + games):
        loads.append(os.getloadavg()[0])
        verdict, side = _game(seed, bot, opponent)
        loads.append(os.getloadavg()[0])
        if log is not None:
            with open(log, "a") as out:
                out.write(json.dumps({"opponent": opponent, "seed": seed, "bot_side": side, "load": loads[-2:],
                                      **verdict}) + "\n")
        answers = verdict["answer_ms"][side]
        if answers["first"] is not None:
            firsts.append(answers["first"])
        if answers["max"] is not None:  # None: no answer after the first (a game over at once)
            maxes.append(answers["max"])
            means.append(answers["mean"])
        wins += verdict["winner"] == side
        if any(verdict["disqualified"]) or any(verdict["failed"]):
            faults.append({"seed": seed, "bot_side": side, "turns": verdict["turns"],
                           "disqualified": verdict["disqualified"], "failed": verdict["failed"],
                           "answer_ms": verdict["answer_ms"]})
        if progress:
            print(f"{opponent}: seed {seed}: first {answers['first']} ms, max turn {answers['max']} ms, "
                  f"load {loads[-1]:.1f}{', FAULT' if faults and faults[-1]['seed'] == seed else ''}",
                  file=sys.stderr, flush=True)
    return {"bot": bot, "opponent": opponent, "games": games, "wins": wins, "faults": faults,
            "first_answer_ms": {"median": round(float(np.median(firsts)), 1),
                                "p99": round(float(np.percentile(firsts, 99)), 1), "max": max(firsts)},
            "turn_answer_ms": {"max": max(maxes), "p99_of_game_max": round(float(np.percentile(maxes, 99)), 1),
                               "mean": round(float(np.mean(means)), 2)},
            "load_average": {"min": round(min(loads), 2), "max": round(max(loads), 2),
                             "median": round(float(np.median(loads)), 2)},
            "seconds": round(time.time() - start, 1)}


def main(argv: list[str] | None = None) -> None:
    """Run the check against each ``--opponent`` in turn; one JSON line per opponent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--opponent", action="append", required=True)
    parser.add_argument("--bot", default=V4)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--log", help="append each game's verdict to this file (JSON lines)")
    args = parser.parse_args(argv)
    for opponent in args.opponent:
        print(json.dumps(referee_check(args.games, opponent, args.bot, args.first_seed, log=args.log)), flush=True)


if __name__ == "__main__":
    main()
