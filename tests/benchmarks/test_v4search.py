"""benchmarks/v4search.py's command line: a ``--base`` value is shared by every run of the
``--set`` sweeps (a run's own value wins), a name v4 does not read is refused in one line, and
the agreement count sees no difference from v3 at one iteration.
The games themselves are the benchmark's (tests/ocean/bots/v4 pin the search)."""
import subprocess
import sys

import pytest

from benchmarks import v4search


def test_base_values_are_shared_by_every_sweep_run_and_a_set_value_wins():
    runs = v4search._runs(["width=4,8", "ucb_c=0.3"], ["determinizations=8", "width=2"])
    assert runs == [{"determinizations": 8.0, "width": 4.0}, {"determinizations": 8.0, "width": 8.0},
                    {"determinizations": 8.0, "width": 2.0, "ucb_c": 0.3}]
    assert v4search._runs([], ["ucb_c=0.3"]) == [{"ucb_c": 0.3}]  # no sweep: one run at the base


def test_an_unknown_name_is_refused_in_one_line():
    with pytest.raises(SystemExit, match="--base 'depth=3'"):
        v4search._parse_sets(["depth=3"], "--base")
    done = subprocess.run([sys.executable, "-m", "benchmarks.v4search", "--games", "2", "--base", "nope=1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and done.stderr.strip().splitlines()[-1].startswith("--base 'nope=1'")


# From an empty kernel cache this test compiles v3's and v4's turns (both compiled on first use):
# 104 s of CPU on 2026-12-07 (`/usr/bin/time` of this test alone, NUMBA_CACHE_DIR empty), about
# 900 s of wall clock at load 18 on 2 cores, past the suite's 600 s. It is about counting
# decisions, not about the compiler's speed: it gets the time a cold compile takes under load.
@pytest.mark.timeout(2400)
def test_agreement_counts_the_decisions_where_v4_leaves_v3s_line():
    from benchmarks.v4search import agreement

    one = agreement({"iterations": 1}, 1)  # one iteration is v3's move exactly
    assert one["decisions"] > 20 and one["differs"] == 0.0
    assert agreement({"iterations": 16, "lookahead_weight": 1.0}, 1)["differs"] > 0.0


def test_base_params_file_sets_v4s_evaluation_under_base_and_set(tmp_path):
    from ocean.bots import coefficients as C

    _, tuned = C.read_params_file("studies/tuned-v3.toml")
    runs = v4search._runs(["ucb_c=0.3"], ["silence_cost=2"], "studies/tuned-v3.toml")
    assert runs[0]["silence_cost"] == 2.0 and runs[0]["ucb_c"] == 0.3
    assert runs[0]["kill_bonus"] == tuned["kill_bonus"] != C.defaults("tunable-v4")["kill_bonus"]
    assert "iterations" not in runs[0]  # a v3 file leaves the search at its defaults
    v2 = tmp_path / "v2.toml"
    v2.write_text(C.params_toml(C.defaults("tunable-v2"), policy="tunable-v2"))
    with pytest.raises(SystemExit, match="a tunable-v2 file; give a tunable-v3 or tunable-v4"):
        v4search._runs([], [], str(v2))
    with pytest.raises(SystemExit, match="--base-params: .*cannot read"):
        v4search._runs([], [], str(tmp_path / "missing.toml"))
