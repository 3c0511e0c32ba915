"""Time controls and power, measured with ``tune`` as a user runs it (docs/benchmarks.md).

A program that spends its budget (tests/programs/thinker.c: min(turn_ms, 40) ms of CPU before
each answer of the knob's C build) is tuned by the same brief study at each ``--turn-ms``; for
each: training games/s (from ``tune launch``), the program's timeouts, and ``tune plan``'s
prediction (from the pilot, before the study) beside what the study then got: the paired
interval of the validated best against the defaults.

    python -m benchmarks.timecontrol --turn-ms 50,5 --maps 6 --trials 4 --json
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.programs.build import build_c, build_thinker
from tests.programs.studies import timed_study

__all__ = ["run"]



def _tune(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"tune {' '.join(args)} failed: {out.stderr.strip().splitlines()[-1:]}")
    return out


def _study(name: str, turn_ms: int, thinker: str, knob: str, maps: int, trials: int, validation_maps: int) -> str:
    command = f"{thinker} --turn-ms {{turn_ms}} -- {knob} --skill {{skill}} --seed {{game_seed}}"
    return timed_study(name, command, "skill = { low = 0.3, high = 1.0, default = 0.6 }", turn_ms=turn_ms,
                       n_trials=trials, maps=maps, validation_maps=validation_maps,
                       validation_games=2 * validation_maps)


def run(turn_ms: list[int], maps: int, trials: int, validation_maps: int, pilot_pairs: int) -> dict:
    """The figures of each time control (see the module's docstring)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        thinker, knob = build_thinker(work), build_c(work)
        for ms in turn_ms:
            name = f"tc{ms}"
            (work / f"{name}.toml").write_text(_study(name, ms, thinker, knob, maps, trials, validation_maps))
            planned = json.loads(_tune("plan", f"{name}.toml", "--pilot-pairs", str(pilot_pairs), "--json",
                                       cwd=work).stdout.strip().splitlines()[-1])
            launched = _tune("launch", f"{name}.toml", cwd=work).stdout
            rate = float(re.search(r"\(([0-9.]+) games/s\)", launched).group(1))
            _tune("validate", name, cwd=work)
            status = json.loads(_tune("status", name, "--json", cwd=work).stdout.strip().splitlines()[-1])
            best = status["best"]
            late = sum(d["bot"] for d in status["disqualifications"].values())
            got = None if best["diff_low"] is None else round((best["diff_high"] - best["diff_low"]) / 2, 4)
            out[str(ms)] = {
                "training_games_per_s": rate, "training_games": status["games"]["train"],
                "program_timeouts": late, "games_with_program": status["games"]["total"],
                "pilot_games_per_s": planned["games_per_s"], "pilot_pair_sd": planned["pair_sd"],
                "predicted_validation_half_width": planned["validation"]["interval_half_width"],
                "predicted_validation_detectable_gain": planned["validation"]["detectable_gain"],
                "validated_best": best["trial"], "verdict": best["verdict"],
                "got_diff": best["diff_vs_defaults"], "got_half_width": got,
            }
    if len(turn_ms) == 2:
        a, b = (out[str(ms)]["training_games_per_s"] for ms in turn_ms)
        out["games_per_s_ratio"] = round(b / a, 2) if a else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn-ms", default="50,5", help="Time controls to compare, e.g. 50,5.")
    parser.add_argument("--maps", type=int, default=6, help="Maps of the seed bank (each trial plays both sides).")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--validation-maps", type=int, default=10)
    parser.add_argument("--pilot-pairs", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run([int(x) for x in args.turn_ms.split(",")], args.maps, args.trials, args.validation_maps,
                  args.pilot_pairs)
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
