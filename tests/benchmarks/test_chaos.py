"""The chaos drill per sampler (``python -m benchmarks.chaos --sampler ...``): a study that learns
from its earlier trials (SPSA, TPE past its random start), its driver SIGKILLed and resumed, stores
exactly the parameters, values and games of its undisturbed run. Real driver processes on a real
local Ray and SQLite."""
import pytest

from benchmarks.chaos import Drill, chaos_study_toml, run_undisturbed

STUDY = dict(n_trials=5, pairs=40, batch_pairs=10, panel=["stealth-v1", "hunter-v1"])


@pytest.mark.drill  # about two minutes each
@pytest.mark.parametrize("sampler", ["spsa", "spsa-h2h", "tpe"])
def test_a_killed_study_proposes_and_stores_what_the_undisturbed_run_does(sampler, ray_cluster, tmp_path):
    reference = run_undisturbed(tmp_path / "reference", f"sqlite:///{tmp_path}/ref.db",
                                chaos_study_toml("chaos", sampler=sampler, **STUDY), "chaos", ray_address=ray_cluster)
    drill = Drill(tmp_path, f"sqlite:///{tmp_path}/study.db", "chaos",
                  chaos_study_toml("chaos", sampler=sampler, **STUDY), ray_address=ray_cluster, seed=3)
    report = drill.run(driver_kills=2, worker_kills=0, reference=reference)
    assert report.failures() == []
    assert report.driver_kills == 2 and report.params_changed == 0 and report.games_lost == 0
    assert report.compared_with_reference and report.reference_differences == []


def test_the_drill_refuses_an_unknown_sampler():
    with pytest.raises(ValueError, match="use one of random, spsa, spsa-h2h, tpe, cmaes"):
        chaos_study_toml("chaos", sampler="gp")
