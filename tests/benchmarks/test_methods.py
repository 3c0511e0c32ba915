"""The methods benchmark (python -m benchmarks.methods) on a real local Ray: every run goes through the
real study loop, the choice and the reported score use disjoint held-out maps, an interrupted
benchmark carries on, and the summary agrees with the runs."""
import json
import subprocess
import sys
import textwrap

import pytest
import sqlalchemy as sa

from benchmarks.methods import Method, parse_methods, rescore_pruned, run_methods, summarize_runs

TINY = textwrap.dedent("""
    name = "tiny"
    trials_in_flight = 2
    panel = ["hunter-v1", "balanced-v1"]
    seed_bank = { start = 1000, count = 10 }
    batch_pairs = 10

    [sampler]
    kind = "tpe"
    startup_trials = 2

    [search]
    silence_cost = {}
    torpedo_hit_threshold = {}

    [pruning]
    min_pairs = 5

    [validation]
    seeds = { start = 900000, count = 20 }
    games = 20
    top_k = 2
""")


def test_methods_are_parsed_with_one_line_errors():
    assert parse_methods("tpe, cmaes,random-noprune") == [Method("tpe"), Method("cmaes"),
                                                          Method("random", pruning=False)]
    assert parse_methods("cmaes-s4,spsa-noprune,tpe-s6-noprune") == [
        Method("cmaes", startup=4), Method("spsa", pruning=False), Method("tpe", pruning=False, startup=6)]
    assert [m.name for m in parse_methods("tpe-noprune-s6,gp")] == ["tpe-s6-noprune", "gp"]
    assert parse_methods("spsa-h2h") == [Method("spsa", head_to_head=True)]
    assert parse_methods("spsa-h2h")[0].name == "spsa-h2h"
    for bad in ("tpe,annealing", "tpe-fast", "tpe-s", "tpe-noprune-noprune", "tpe-h2h", "spsa-h2h-h2h"):
        with pytest.raises(ValueError, match=f"unknown method '{bad.split(',')[-1]}'"):
            parse_methods(bad)


@pytest.mark.drill
def test_every_run_is_a_real_study_chosen_and_reported_on_disjoint_maps(ray_cluster, tmp_path):
    study = tmp_path / "tiny.toml"
    study.write_text(TINY)
    out = tmp_path / "bench"
    methods = [Method("tpe"), Method("random", pruning=False), Method("spsa", head_to_head=True)]
    summary = run_methods(study=study, methods=methods, budgets=[2, 3], repeats=2, out=out, log=lambda line: None)
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert sorted((r["method"], r["trials"], r["repeat"]) for r in runs) == sorted(
        (m.name, b, r) for m in methods for b in (2, 3) for r in (1, 2))
    for r in runs:
        db = out / "studies" / f"m-{r['method']}-{r['trials']}-{r['repeat']}.db"
        engine = sa.create_engine(f"sqlite:///{db}")
        with engine.connect() as conn:
            seeds = {s for (s,) in conn.execute(sa.text("SELECT DISTINCT seed FROM ocean_games WHERE phase = 'validate'"))}
            trained = conn.execute(sa.text("SELECT count(*) FROM ocean_games WHERE phase = 'train'")).scalar()
        engine.dispose()
        # chosen on the first half of the held-out maps (the sequential validation's race may stop
        # before it has played all of them)...
        assert seeds and seeds <= set(range(900000, 900010)), sorted(seeds)
        assert trained == r["train_games"] and 0 <= r["low"] <= r["score"] <= r["high"] <= 1
        assert 0 <= r["h2h_low"] <= r["h2h_score"] <= r["h2h_high"] <= 1  # the chosen best against the defaults
    # ...and reported on the second: the same maps for every run, so the defaults score once
    assert summary["defaults"] == json.loads((out / "defaults.json").read_text())
    assert summary == json.loads((out / "summary.json").read_text())
    assert summary == summarize_runs(runs, summary["defaults"])
    assert (out / "methods.png").stat().st_size > 10_000
    again = run_methods(study=study, methods=methods, budgets=[2, 3], repeats=2, out=out, log=lambda line: None)
    assert len((out / "runs.jsonl").read_text().splitlines()) == len(runs) and again == summary  # nothing re-run
    rescored = rescore_pruned(study=study, out=out, per_run=1, log=lambda line: None)
    with_pruned = [r for r in runs if r["pruned"] and not r["method"].endswith("-noprune")]
    rows = [json.loads(line) for line in (out / "pruned.jsonl").read_text().splitlines()] if with_pruned else []
    assert rescored["rescored"] == len(rows) == len(with_pruned)
    for row in rows:  # played in full on the report maps, beside the run's reported best
        run = next(r for r in runs if f"m-{r['method']}-{r['trials']}-{r['repeat']}" == row["run"])
        assert row["run_best"] == run["score"] and 0 <= row["low"] <= row["score"] <= row["high"] <= 1
    assert rescored["above_best"] == sum(row["score"] > row["run_best"] for row in rows)


def test_the_summary_finds_the_fewest_games_reaching_95_percent_of_the_best():
    runs = [{"method": "a", "trials": 10, "train_games": 1000, "score": 0.70},
            {"method": "a", "trials": 20, "train_games": 2000, "score": 0.80},
            {"method": "b", "trials": 10, "train_games": 900, "score": 0.77},
            {"method": "b", "trials": 10, "train_games": 1100, "score": 0.79},
            {"method": "c", "trials": 10, "train_games": 500, "score": 0.50}]
    summary = summarize_runs(runs)
    assert summary["best_mean_score"] == pytest.approx(0.80)
    assert summary["games_to_95"] == {"a": 2000, "b": 1000, "c": None}  # 0.95 x 0.80 = 0.76
    b = next(row for row in summary["table"] if row["method"] == "b")
    assert b["repeats"] == 2 and b["score_min"] == 0.77 and b["score_max"] == 0.79
    assert b["score_median"] == pytest.approx(0.78)
    assert summary["choice_bias"] is None  # no run says what it chose


def test_the_summary_measures_the_winners_curse_left_in_the_chosen_best():
    runs = [{"method": "a", "trials": 10, "train_games": 1000, "score": 0.70, "chosen_trial": 4,
             "chosen_validated": 0.73},
            {"method": "a", "trials": 10, "train_games": 1000, "score": 0.80, "chosen_trial": 7,
             "chosen_validated": 0.81},
            {"method": "a", "trials": 10, "train_games": 1000, "score": 0.60, "chosen_trial": 0,
             "chosen_validated": 0.57}]  # the defaults chosen: a choice among noisy scores too
    summary = summarize_runs(runs)
    assert summary["choice_bias"] == pytest.approx(0.01 / 3) and summary["choice_bias_runs"] == 3


def test_the_command_refuses_bad_input_with_one_line(tmp_path):
    for args, message in ((["--methods", "bogus"], "unknown method 'bogus'"),
                          (["--study", str(tmp_path / "none.toml")], "no such study file"),
                          (["--budgets", "0"], "must be positive"),
                          (["--rescore-pruned", "2"], "--rescore-pruned needs a positive K and the runs")):
        done = subprocess.run([sys.executable, "-m", "benchmarks.methods", *args, "--out", str(tmp_path / "o")],
                              capture_output=True, text=True, timeout=120)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_a_study_file_with_a_long_duel_is_cut_to_the_halved_maps():
    # selfplay-v3.toml asks 4,000 head-to-head games of 3,000 held-out maps: on the half a run
    # chooses on there are 1,500, so the duel is cut as --games cuts the rest (it used to be refused)
    import tomllib
    from pathlib import Path

    from benchmarks.methods import _held_out_halves, _run_spec
    from tuning.study.spec import parse_spec

    study = Path(__file__).resolve().parents[2] / "studies" / "selfplay-v3.toml"
    base = tomllib.loads(study.read_text())
    choose, report, games = _held_out_halves(base, 200)
    assert choose == {"seeds": {"start": 900000, "count": 1500}, "games": 200, "head_to_head_games": 200}
    assert report == list(range(901500, 901600)) and games == 200
    for method in (Method("spsa", head_to_head=True), Method("spsa")):
        spec = parse_spec(_run_spec(base, method, 10, 1, choose), base=study.parent)
        assert spec.validation.head_to_head_games == 200 and spec.validation.seeds.count == 1500
    assert "head_to_head_games" not in _held_out_halves(tomllib.loads(TINY), None)[0]
