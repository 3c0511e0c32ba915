"""The driver under load, short form of ``tune bench --scale``: a local Ray of several ``ray
start`` nodes with more logical CPUs than cores, near-free games and a real PostgreSQL; every
batch handled, every game stored exactly once (by the worker that played it), the study exactly
at its target. (The figures
themselves are the benchmark's business, not a test's.)"""
import json
import os
import subprocess
import sys

import pytest

# A long drill: CI runs it (.ci/run), the README's test command leaves it out.
# A multi-node Ray cluster started with ray start under a loaded driver (about 80 s).
pytestmark = pytest.mark.drill


def test_a_loaded_driver_on_a_multi_node_cluster_loses_and_duplicates_nothing(pg_admin, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["OCEAN_BENCH_PG"] = pg_admin
    trials, seeds, batch_pairs = 24, 30, 10
    done = subprocess.run([sys.executable, "-m", "tuning", "bench", "--scale", "--nodes", "2", "--node-cpus", "3",
                           "--scale-trials", str(trials), "--seeds", str(seeds), "--batch-pairs", str(batch_pairs),
                           "--in-flight", "6", "--sampler", "random", "--pin-driver", "--db-writers", "2",
                           "--db-seconds", "3", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    per_trial = 2 * seeds * 2  # sides x maps x opponents (random, chaser)
    assert figures["workers"] == 6
    assert figures["trials"] == trials and figures["complete"] == trials  # identical bots: nothing pruned
    assert figures["games_per_trial"] == per_trial
    assert figures["rows"] == figures["rows_stored"] == trials * per_trial
    # on PostgreSQL the workers stored every game themselves; the driver only saw summaries
    assert figures["rows_stored_by_workers"] == figures["rows"]
    assert figures["profile"]["inserts"]["calls"] == 0
    assert figures["batches"] == trials * 2 * (seeds // batch_pairs)
    assert figures["complete_trials_with_wrong_game_count"] == 0
    assert figures["rows_per_s"] > 0 and figures["batches_per_s"] > 0
    assert figures["driver_pinned"] is True
    # PostgreSQL's own lock waits were sampled over the run (the figure itself is the bench's)
    assert figures["pg_lock_waits_seen"] >= 0 and figures["pg_lock_wait_max_s"] >= 0.0
    # the database's ceiling: two writers storing batches the workers' way (the bench itself
    # checks the table holds exactly what they stored, and removes it)
    assert figures["db_writers"] == 2 and figures["db_batch_games"] == figures["auto_batch_games"]
    assert figures["db_rows_per_s"] > 0 and figures["db_ms_per_batch"] > 0
