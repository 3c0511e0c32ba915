"""The trial behind issue 36, reproduced with this repository's programs: a tuned program whose
parameter changes nothing, against a frozen opponent that loses about one game in eight to its
clock. Its timeouts must never be scored as wins of a trial: the games are replayed (or set
aside) and counted, and identical candidates get "no gain shown" on every part of the verdict.
Before the three-part verdict and the replays, such a study could say "gain" from free wins."""
import json
import re
import subprocess
import sys
import textwrap

import pytest

from tests.programs.build import HERE
from tests.tuning.processes import last_json, run_tune

pytestmark = pytest.mark.drill  # about two minutes: a few hundred program games

PY = sys.executable


def _study() -> str:
    return textwrap.dedent(f"""
        name = "deaf"
        n_trials = 4
        trials_in_flight = 2
        panel = ["flaky-v1", "random"]
        seed_bank = {{ start = 10, count = 8 }}
        batch_pairs = 4
        timeout_scale = 10

        [bot]   # the parameter reaches the program through a variable it never reads
        command = {json.dumps(f"{PY} knob.py --skill 0.9 --seed {{game_seed}}")}
        cwd = {json.dumps(str(HERE))}
        env = {{ KNOB_UNUSED = "{{deafness}}" }}

        [search]
        deafness = {{ low = 0.0, high = 1.0 }}

        [sampler]
        kind = "random"
        seed = 4

        [pruning]
        enabled = false

        [validation]
        seeds = {{ start = 900000, count = 24 }}
        games = 24
        top_k = 2
        panel = ["chaser"]
    """)


def test_an_opponents_timeouts_are_replayed_and_a_parameter_that_changes_nothing_gains_nothing(
        tmp_path, ray_cluster, user_panels):
    # limits x4 for the frozen opponent: its flaw sleeps 3 s, far beyond them; its other answers are quick
    added = subprocess.run([PY, "-m", "ocean", "panel", "add", "flaky-v1", "--nondeterministic", "--time-scale", "4",
                            "--command", f"{PY} flaky.py --seed {{game_seed}} --share 12 --random --fail timeout",
                            "--cwd", str(HERE)], capture_output=True, text=True, timeout=300)
    assert added.returncode == 0, added.stderr
    (tmp_path / "deaf.toml").write_text(_study())
    storage = ["--storage", f"sqlite:///{tmp_path}/study.db"]
    ray = ["--ray-address", ray_cluster]
    run_tune("launch", "deaf.toml", *storage, *ray, cwd=tmp_path, timeout=600)
    validated = run_tune("validate", "deaf", *storage, *ray, cwd=tmp_path, timeout=600)
    status = last_json(run_tune("status", "deaf", "--json", *storage, cwd=tmp_path))
    flaky = status["disqualifications"]["flaky-v1"]
    assert status["games_replayed"] > 0 and flaky["replayed"] == status["games_replayed"]
    # whatever flaky-v1 lost to its clock was played again: no stored game is its timeout but a
    # set-aside one, and set-aside pairs count for nothing
    assert flaky["opponent"] == flaky["set_aside"]
    best = status["best"]
    assert best["verdict"] == "no gain shown"
    # the same lines on the same maps: every candidate differs from the defaults by nothing at all
    rows = [line for line in validated.stdout.splitlines() if line.startswith("trial ")]
    chosen_on = {line.split("; chosen on", 1)[1].split(";", 1)[0] for line in rows}
    assert len(rows) == 3 and len(chosen_on) == 1, validated.stdout  # the defaults and two trials, all alike
    assert all(re.search(r"vs the defaults [+-]0\.000 \[", line) for line in rows if " vs " in line), validated.stdout
    # all alike, the race drops nothing and the reference is never chosen: the chosen trial's parts
    # show what was measured, a difference of nothing (the not-worse parts, with a spread never
    # seen, assume the largest one: not shown on a few maps)
    assert best["trial"] != 0 and "head_to_head" in best["failed"]
    assert best["training_panel"]["diff"] == 0.0 and best["head_to_head"]["diff"] == 0.0
    assert best["held_out"]["diff"] == 0.0 and best["sprt"]["decision"] != "H1"
    refused = run_tune("export", "deaf", *storage, cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "failed" in refused.stderr and "Traceback" not in refused.stderr
