"""The ranking-trust bench plays the coefficient file with its v3_regret weight scaled."""
import pytest

from benchmarks.tdtrust import run


@pytest.mark.drill  # three short arenas in subprocesses
def test_the_regret_weight_is_scaled_and_each_row_is_a_score():
    result = run("studies/learned-td.toml", [0.125, 1.0], games=10, seed=5000)
    first, last = result["rows"]
    assert last["v3_regret"] == pytest.approx(8 * first["v3_regret"]) and first["v3_regret"] != 0
    for row in (first, last, result["tunable-v3"]):
        assert 0.0 <= row["ci95"][0] <= row["score"] <= row["ci95"][1] <= 1.0
