"""Ctrl-C at random moments: how each real SIGINT to a real ``tune launch`` ends.

Each run launches a study on a local Ray this script starts, waits until a random number of
games is stored (or a random few seconds), sends SIGINT at a random instant, and records how the
driver ended: exit code 130 with the line to carry on (clean), another exit code (a crash), no
exit within ``--patience`` seconds (hung), or the study played on (the press was lost).

    python -m benchmarks.sigint --runs 30 --json
"""
from __future__ import annotations

import argparse
import collections
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from benchmarks.chaos import read_digest

__all__ = ["run", "sigint_study"]

def sigint_study(maps: int) -> str:
    """The study every SIGINT interrupts: 4 trials of the in-process bot, 2 in flight, against
    random and chaser on ``maps`` maps, random sampler, no pruning."""
    return textwrap.dedent(f"""
        name = "sig"
        n_trials = 4
        trials_in_flight = 2
        panel = ["random", "chaser"]
        seed_bank = {{ start = 100, count = {maps} }}
        batch_pairs = 4

        [sampler]
        kind = "random"
        seed = 5

        [search]
        silence_cost = {{}}

        [pruning]
        enabled = false

        [validation]
        seeds = {{ start = 9000, count = 4 }}
        games = 4
    """)



def _rows(url: str) -> int:
    try:
        return len(read_digest(url, "sig").rows)
    except Exception:  # the database is not there yet
        return 0


def _one(work: Path, address: str, rng: random.Random, patience: float) -> tuple[str, float]:
    (work / "sig.toml").write_text(sigint_study(2000))  # long enough to be mid-study
    url = f"sqlite:///{work}/studies/sig.db"
    proc = subprocess.Popen([sys.executable, "-m", "tuning", "launch", "sig.toml", "--storage", url,
                             "--ray-address", address],
                            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            # the SIGINT sent must reach it, even from a run started with SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    target = rng.choice([0, 1, 5, 20, 40, 80, 150])
    started = time.monotonic()
    wait = rng.uniform(2, 8)
    while proc.poll() is None and not (_rows(url) >= target and (target > 0 or time.monotonic() - started > wait)):
        time.sleep(rng.uniform(0.0, 0.3))
    time.sleep(rng.uniform(0, 1))
    if proc.poll() is not None:
        return "finished before the signal", 0.0
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=patience)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "hung", patience
    seconds = time.monotonic() - sent
    if proc.returncode == 130 and "tune resume sig" in err and "Traceback" not in err:
        return "clean", seconds
    if proc.returncode == 0:
        complete = set(read_digest(url, "sig").states.values()) == {"COMPLETE"}
        return ("finished as the signal came" if seconds < 1.0 and complete else "lost (played on)"), seconds
    return f"crashed (exit {proc.returncode})", seconds


def run(runs: int, seed: int, patience: float, address: str | None = None) -> dict:
    """How ``runs`` SIGINTs at random moments ended, and the slowest clean exit; on the Ray at
    ``address``, else on a local one started here."""
    import ray

    started = address is None
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False,
                 _node_ip_address="127.0.0.1")
        address = ray.get_runtime_context().gcs_address
    try:
        rng = random.Random(seed)
        outcomes: collections.Counter = collections.Counter()
        slowest = 0.0
        for i in range(runs):
            with tempfile.TemporaryDirectory() as tmp:
                outcome, seconds = _one(Path(tmp), address, rng, patience)
            outcomes[outcome] += 1
            if outcome == "clean":
                slowest = max(slowest, seconds)
            print(f"{i + 1}/{runs}: {outcome} ({seconds:.1f} s)", file=sys.stderr, flush=True)
        return {"runs": runs, "seed": seed, "outcomes": dict(outcomes), "slowest_clean_exit_s": round(slowest, 2)}
    finally:
        if started:
            ray.shutdown()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1, help="the random moments")
    parser.add_argument("--patience", type=float, default=40.0, help="seconds after which a driver counts as hung")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.runs, args.seed, args.patience)
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
