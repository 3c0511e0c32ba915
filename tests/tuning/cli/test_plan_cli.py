"""``tune plan`` end to end: a pilot of a study file on the session's real Ray, then the same
study's stored games, in real processes on a real SQLite database; a program's study validated at
another time control and against held-out opponents; a head-to-head SPSA study."""
import pytest

from tests.programs.build import build_c, build_thinker
from tests.programs.studies import timed_study
from tests.tuning.cli.test_cli import TINY
from tests.tuning.processes import last_json, run_tune

FIELDS = {"games_per_s", "pair_sd", "detectable_gain", "games_for_gain"}


@pytest.mark.drill
def test_plan_from_a_pilot_then_from_the_stored_study(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    ray = ["--ray-address", ray_cluster]
    piloted = run_tune("plan", "tiny.toml", "--pilot-pairs", "3", "--hours", "0.2", "--json", *ray, cwd=tmp_path)
    p = last_json(piloted)
    assert FIELDS <= set(p) and p["source"] == "pilot" and p["games_measured"] == 2 * 2 * 3
    assert p["games_per_s"] > 0 and p["pair_sd"] > 0 and set(p["games_for_gain"]) == {"0.02", "0.05", "0.1"}
    assert p["detectable_gain"]["validation"] > p["detectable_gain"]["per_trial"] > 0  # 4 maps validated, 6 a trial
    r = p["recommendation"]  # 3 maps: the bank, not the hours, limits the trials
    assert r["n_trials"] <= r["useful_trials"] and r["limited_by"] == "seed bank" and r["limit_reason"] in piloted.stdout
    assert "detects a gain of" in piloted.stdout and "to detect +0.05" in piloted.stdout
    assert not (tmp_path / "studies").exists()  # a pilot stores nothing

    run_tune("launch", "tiny.toml", "--games", "6", *ray, cwd=tmp_path)
    stored = last_json(run_tune("plan", "tiny", "--json", cwd=tmp_path))
    assert FIELDS <= set(stored) and stored["source"] == "stored" and stored["games_measured"] == 2 * 2 * 6  # trials x opponents x games
    assert stored["disqualified_share"] == 0.0 and stored["refusal"] is None

    # A stored study validated at another time control: a few games at it, against every
    # validation opponent and against itself, time its validation.
    at30 = last_json(run_tune("plan", "tiny", "--validate-turn-ms", "30", "--json", *ray, cwd=tmp_path))
    assert [(m["source"], m["kind"], (m["time_control"] or {}).get("turn_ms")) for m in at30["pilots"]] == \
        [("stored", "panel", 50), ("pilot", "panel", 30), ("pilot", "itself", 30)]
    assert at30["validation"]["time_control"]["turn_ms"] == 30 and at30["validation"]["cost_from"] == "pilot"
    assert at30["pilots"][1]["games"] == 3 * 2 * 2  # half of --pilot-pairs 8, capped by the seed bank's 3 maps

    # Hours too few for the study: what was measured is printed first, then the refusal (one line).
    refused = run_tune("plan", "tiny", "--hours", "0.00001", "--json", cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "games/s" in refused.stdout and "per trial (" in refused.stdout
    assert last_json(refused)["refusal"] in refused.stderr and last_json(refused)["games_per_s"] > 0
    assert refused.stderr.strip().splitlines() == [f"error: {last_json(refused)['refusal']}"]
    assert "cannot hold the study: validation alone takes" in refused.stderr

    for args, words in ((["plan", "tiny", "--hours", "-1"], "--hours must be above 0"),
                        (["plan", "ghost"], "no study database"),
                        (["plan", "missing.toml"], "cannot read the study file"),
                        (["plan", "tiny.toml", "--pilot-pairs", "1", *ray], "--pilot-pairs must be at least 2"),
                        (["plan", "tiny.toml", "--validate-turn-ms", "0", *ray], "--validate-turn-ms"),
                        (["plan", "tiny", "--validate-time-scale", "0"], "--validate-time-scale")):
        result = run_tune(*args, cwd=tmp_path, check=False)
        assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.drill
def test_a_programs_plan_says_what_it_saw_and_plans_validation_at_its_time_control(tmp_path, ray_cluster):
    knob, thinker = build_c(tmp_path / "c"), build_thinker(tmp_path / "c")
    # Thinks 8 ms a turn whatever it is told (its command gives 8, not {turn_ms}); trained at 3.
    command = f"{thinker} --turn-ms 8 -- {knob} --skill {{skill}} --seed {{game_seed}}"
    text = timed_study("deaf", command, "skill = { low = 0.5, high = 1.0, default = 0.9 }", turn_ms=3,
                       panel=("random",))
    (tmp_path / "deaf.toml").write_text(text.replace("top_k = 1", 'top_k = 1\npanel = ["random", "chaser"]'))
    result = run_tune("plan", "deaf.toml", "--pilot-pairs", "2", "--validate-turn-ms", "30", "--json",
                      "--ray-address", ray_cluster, cwd=tmp_path)
    p = last_json(result)
    assert [(m["kind"], m["time_control"]["turn_ms"], m["games"]) for m in p["pilots"]] == \
        [("panel", 3, 4), ("panel", 30, 8), ("itself", 30, 4)]  # random at 3; random and chaser, itself at 30
    tuned = p["pilots"][0]["programs"][0]
    assert tuned["role"] == "tuned" and tuned["told"]["turn_ms"] == 3 and tuned["answer_ms"]["mean"] >= 8
    v = p["validation"]
    assert v["time_control"]["turn_ms"] == 30 and v["held_out_opponents"] == 1 and v["cost_from"] == "pilot"
    # defaults and top 1, 4 games x 2 opponents; head to head on the 3 maps the best was not chosen on
    # (the judged one and the 2 the panels leave of validation.seeds' 4), both sides
    assert v["panel_games"] == 2 * 4 * 2 and v["head_to_head"]["games"] == 6 and v["games"] == 2 * 4 * 2 + 6
    assert p["shorter_turn_cheaper"] is False
    # the limits it was held to: the times told x the study's timeout_scale 20
    assert tuned["limits_ms"] == {"turn_ms": 60, "first_turn_ms": 20000}
    assert "the tuned bot (told 3 ms a turn, 1000 ms the first; held to 60 and 20000 ms): answers in" in result.stdout
    assert "a shorter turn_ms will not make games cheaper" in result.stdout and "validation at 30 ms" in result.stdout
    # what its programs can reach here (issue 45): sandboxed or not, in one line, and the memory limit
    assert p["sandbox"]["memory_mb"] == 768 and not p["sandbox"]["required"]
    assert f"{p['sandbox']['line']}; memory limit 768 MB" in result.stdout


def test_a_head_to_head_study_is_planned_from_its_bot_against_itself(tmp_path, ray_cluster):
    (tmp_path / "h2h.toml").write_text(TINY.replace('kind = "tpe"', 'kind = "spsa"\nscoring = "head-to-head"')
                                       .replace("startup_trials = 1\n", ""))
    result = run_tune("plan", "h2h.toml", "--pilot-pairs", "2", "--json", "--ray-address", ray_cluster, cwd=tmp_path)
    p = last_json(result)
    assert p["scoring"] == "head-to-head" and p["per_trial"]["games"] == 2 * 3  # both sides of the seed bank's 3 maps
    assert [m["kind"] for m in p["pilots"]] == ["panel", "itself"] and p["games_measured"] == 4
    assert "games of the bot against itself" in result.stdout and "head-to-head score against 1/2" in result.stdout


def test_the_quick_study_is_planned_within_its_seed_bank_with_its_time_as_a_range(tmp_path, ray_cluster):
    from pathlib import Path

    quick = (Path(__file__).parents[3] / "studies" / "quick.toml").read_text()
    (tmp_path / "quick.toml").write_text(quick)
    result = run_tune("plan", "quick.toml", "--hours", "2", "--pilot-pairs", "2", "--json",
                      "--ray-address", ray_cluster, cwd=tmp_path, timeout=600)
    p = last_json(result)
    r = p["recommendation"]
    # every trial plays the same maps of a 100-map bank: never past what they make useful
    assert r["useful_trials"] is not None and r["n_trials"] <= r["useful_trials"]
    assert r["games_per_opponent"] <= 200 and r["limited_by"] in ("budget", "seed bank")
    if r["limited_by"] == "seed bank":
        assert r["limit_reason"] in result.stdout and "the seed bank, not the budget" in r["limit_reason"]
    # how sure: the time as a range from the rate's half-width, printed and in JSON
    low, high = r["seconds_range"]
    assert low < r["seconds"] and (high is None or high > r["seconds"])
    assert p["study_budget"]["seconds_range"][0] < p["study_budget"]["seconds"]
    assert p["games_per_s_half_width"] > 0 and "at this load)" in result.stdout
    assert f"n_trials = {r['n_trials']}," in result.stdout


def test_a_program_answering_near_its_limit_is_warned_about_with_the_limits_it_was_held_to():
    from tuning.cli.plan import _program_line

    program = {"name": "rival", "role": "opponent", "told": {"turn_ms": 100, "first_turn_ms": 1000, "scale": 4.0},
               "limits_ms": {"turn_ms": 400, "first_turn_ms": 4000}, "games": 10, "disqualified": 0,
               "reasons": {}, "first_reason": None,
               "answer_ms": {"mean": 120.0, "p90": 300.0, "max": 395.0}, "first_answer_ms": {"mean": 900.0, "max": 950.0}}
    line = _program_line(program)
    assert "held to 400 and 4000 ms" in line
    assert "NEAR ITS LIMIT: its longest answer 395 ms of its 400 ms" in line and "first answer" not in line.split("NEAR")[1]
    program["answer_ms"]["max"] = 200.0
    assert "NEAR ITS LIMIT" not in _program_line(program)
