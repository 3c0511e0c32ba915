"""The Ctrl-C bench runs: each real SIGINT at a random moment ends in a clean stop."""
import pytest

from benchmarks.sigint import run


@pytest.mark.drill  # about a minute: two studies launched and interrupted
def test_sigints_at_random_moments_all_stop_cleanly(ray_cluster):
    result = run(2, seed=3, patience=60.0, address=ray_cluster)
    assert result["outcomes"] == {"clean": 2}, result
    assert 0 < result["slowest_clean_exit_s"] < 60
