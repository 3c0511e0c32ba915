"""Status agrees with the database; exports carry the coefficients and their provenance."""
import json

import pytest
from optuna.trial import TrialState

from ocean.bots import coefficients
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.runner import StudyRunner
from tuning.errors import TuningError
from tuning.results.export import choose_trial, provenance, render
from tuning.results.status import study_status
from tuning.results.validation import validate_study
from tuning.stats.estimates import Estimate, elo, elo_estimate
from tuning.storage.handle import create_study
from tuning.study.spec import parse_spec


@pytest.fixture
def ran(sqlite_url):
    handle = create_study(parse_spec(tiny_spec_dict(n_trials=3)), sqlite_url)
    StudyRunner(handle, pool=FakePool(p_win=lambda p: 0.1 + 0.2 * p["silence_cost"])).run()
    yield handle
    handle.close()


def test_status_counts_what_the_database_holds(ran):
    s = study_status(ran)
    assert s["trials"] == {"complete": 3, "running": 0, "pruned": 0, "failed": 0, "waiting": 0}
    assert s["finished"] and s["target_trials"] == 3 and s["eta_seconds"] is None
    assert s["games"]["train"] == ran.games.count_games() == 48 and s["games"]["validate"] == 0
    best = max(ran.trials(TrialState.COMPLETE), key=lambda t: t.value)
    assert s["best"]["trial"] == best.number and not s["best"]["validated"]
    assert s["best"]["low"] <= s["best"]["score"] <= s["best"]["high"]
    assert s["best"]["elo_low"] <= s["best"]["elo"] <= s["best"]["elo_high"]
    assert set(s["best"]["elo_per_opponent"]) == {"random", "chaser"}
    assert s["defaults"]["trial"] == 0 and s["panel"] == ["random", "chaser"]
    json.dumps(s)  # JSON-able as is


def test_export_needs_a_validation_or_a_trial_number(ran):
    with pytest.raises(TuningError, match="run 'tune validate tiny' first"):
        choose_trial(ran, None)
    with pytest.raises(TuningError, match="no finished trial 9"):
        choose_trial(ran, 9)
    number, values, validation = choose_trial(ran, 1)
    assert number == 1 and validation is None and set(values) == set(coefficients.NAMES)


def test_exports_round_trip_with_provenance(ran, tmp_path):
    validate_study(ran, pool=FakePool(p_win=lambda p: 0.1 + 0.2 * p["silence_cost"]))
    number, values, validation = choose_trial(ran, None)
    assert number == ran.games.validations()[0].trial and validation["games"] == 4
    best = study_status(ran)["best"]
    assert best["validated"] and best["trial"] == number
    stored = ran.games.validations()[0].per_opponent
    chaser = Estimate(*(stored["chaser"][k] for k in ("mean", "low", "high", "n")))
    assert best["elo_per_opponent"]["chaser"][0] == pytest.approx(elo_estimate(chaser).mean)
    assert best["elo"] == pytest.approx(sum(e[0] for e in best["elo_per_opponent"].values()) / 2, abs=1e-5)
    prov = provenance(ran, number, validation)
    assert prov["study"] == "tiny" and prov["trial"] == number and prov["panel"] == ["random", "chaser"]
    assert prov["seed_bank"] == "100..103" and prov["validated_low"] <= prov["validated_score"] <= prov["validated_high"]
    assert prov["package_version"] and prov["git_commit"]
    path = tmp_path / "best.toml"
    path.write_text(render(values, prov, "toml"))
    assert coefficients.read_params_file(path)[1] == coefficients.validate(values)
    data = json.loads(render(values, prov, "json"))
    assert data["coefficients"]["mine_spacing"] == 4 and data["provenance"]["trial"] == number
    header = render(values, prov, "cpp")
    assert "constexpr int mine_spacing = 4;" in header
    assert f"constexpr double silence_cost = {float(values['silence_cost'])!r};" in header
    assert header.count("constexpr") == len(coefficients.NAMES)


def test_args_and_env_formats_are_only_for_a_program_study():
    values = coefficients.defaults()
    for fmt in ("args", "env"):
        with pytest.raises(TuningError, match="tunes the in-process bot"):
            render(values, {"study": "tiny"}, fmt)
    with pytest.raises(TuningError, match="unknown format"):
        render(values, {"study": "tiny"}, "yaml")


def test_export_refuses_a_best_with_no_gain_shown_unless_allowed(ran):
    from tuning.results.export import check_gain

    validate_study(ran, pool=FakePool(p_win=lambda p: 0.5))  # 4 games: nothing can be shown
    number, values, validation = choose_trial(ran, None)
    assert validation["diff_low"] is None or validation["diff_low"] <= 0
    with pytest.raises(TuningError, match=r"no gain over the defaults shown.*--allow-no-gain"):
        check_gain(ran, number, validation, allow_no_gain=False, asked=False)
    check_gain(ran, number, validation, allow_no_gain=True, asked=False)
    prov = provenance(ran, number, validation, allowed_no_gain=True)
    assert prov["verdict"] == "no gain shown" and "--allow-no-gain" in prov["exported_despite"]
    assert (prov["tuned_turn_ms"], prov["tuned_first_turn_ms"], prov["tuned_time_scale"],
            prov["tuned_machine_scale"]) == (50, 1000, 1.0, 1.0)
    assert (prov["validated_turn_ms"], prov["validated_first_turn_ms"], prov["validated_time_scale"]) == (50, 1000, 1.0)
    check_gain(ran, 0, choose_trial(ran, 0)[2], allow_no_gain=False, asked=True)  # the defaults, by number
    assert "exported_despite" not in provenance(ran, number, validation)


def test_the_verdict_names_what_trial_zero_played(ran):
    from tuning.results.status import best_trial
    from tuning.results.verdict import reference_name, verdict_line

    validate_study(ran, pool=FakePool(p_win=lambda p: 0.5))
    assert best_trial(ran)["reference"] == "the defaults" == reference_name(None)
    assert reference_name({"lives": 1.0}) == "the start file"  # a warm study's [search] start
    assert verdict_line(0.05, 0.01, 0.09, "the start file") == "gain over the start file: +0.050 [+0.010, +0.090]"
    assert verdict_line(0.0, -0.1, 0.1, "the start file") == \
        "no gain over the start file shown: +0.000 [-0.100, +0.100]"
    assert verdict_line(None, None, None) == "no gain over the defaults shown: the defaults validated best"


@pytest.mark.parametrize("command", ["./bot --x {x}\nconstexpr int broken = ;", "./bot --x {x} \\", "a\rb\\\n//c"])
def test_a_command_with_a_newline_or_a_backslash_stays_inside_the_cpp_comment(tmp_path, command):
    # issue 32, item 9: a newline in the command ended the comment and the header did not compile;
    # a trailing backslash spliced the next line into it
    import shutil
    import subprocess

    from ocean.bots import PROGRAM, BotSpec, ProgramSpec

    program = BotSpec("mine", PROGRAM, {}, ProgramSpec("./bot --x {x}"))
    header = render({"x": 3}, {"study": "s", "command": command, "trial": 1}, "cpp", bot=program)
    before = header.split("#pragma once")[0].splitlines()
    assert before and all(line.startswith("//") for line in before), header
    assert json.loads(next(line for line in before if line.startswith("// command: "))[len("// command: "):]) \
        == command  # written as a JSON string: the exact command reads back
    if shutil.which("g++"):
        (tmp_path / "params.hpp").write_text(header)
        (tmp_path / "main.cpp").write_text('#include "params.hpp"\nint main() { return ocean_params::x - 3; }\n')
        subprocess.run(["g++", "-std=c++17", "-o", str(tmp_path / "show"), str(tmp_path / "main.cpp")], check=True,
                       cwd=tmp_path)
        assert subprocess.run([str(tmp_path / "show")]).returncode == 0


def test_a_trial_the_validation_did_not_choose_is_no_gain_and_exported_only_when_allowed(sqlite_url):
    """Issue 45: only the chosen trial played the verdict's three parts; another trial's training-
    panel difference (from the race, where it was chosen against) is no verdict of its own."""
    from tuning.results.export import check_gain
    from tuning.results.verdict import GAIN, NO_GAIN, verdict_of

    default = coefficients.defaults()["silence_cost"]
    better = lambda p: 0.05 if p["silence_cost"] == default else 0.95  # noqa: E731  every tuned trial far better
    handle = create_study(parse_spec(tiny_spec_dict(n_trials=4, pruning={"enabled": False}, validation={
        "seeds": {"start": 5000, "count": 30}, "games": 40, "top_k": 2})), sqlite_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=better)).run()
        results = validate_study(handle, pool=FakePool(p_win=better))
        other = next(r for r in results if not r.chosen and r.trial != 0)
        assert other.diff.low > 0  # the old fallback (training-panel difference alone) would have said "gain"
        number, values, validation = choose_trial(handle, other.trial)
        assert validation["parts"] is None and not validation["chosen"] and validation["has_parts"]
        with pytest.raises(TuningError, match=r"not the trial its validation chose.*--allow-no-gain"):
            check_gain(handle, number, validation, allow_no_gain=False, asked=True)
        check_gain(handle, number, validation, allow_no_gain=True, asked=True)
        prov = provenance(handle, number, validation, allowed_no_gain=True)
        assert prov["verdict"] == NO_GAIN and "not chosen" in prov["not_chosen"]
        assert "--allow-no-gain" in prov["exported_despite"]
        assert verdict_of(None, 0.1, has_parts=True) == NO_GAIN  # a validation with parts: never "gain" without its own
        assert verdict_of(None, 0.1) == GAIN  # one from before the parts keeps its old reading
        chosen = choose_trial(handle, results[0].trial)[2]
        assert "not_chosen" not in provenance(handle, results[0].trial, chosen)
    finally:
        handle.close()


def test_the_provenance_names_the_machine_scale_the_study_was_tuned_at(sqlite_url):
    handle = create_study(parse_spec(tiny_spec_dict(n_trials=1, time={"machine_scale": 3})), sqlite_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=lambda p: 0.5)).run()
        prov = provenance(handle, 0, None)
        assert prov["tuned_machine_scale"] == 3.0 and prov["tuned_time_scale"] == 1.0
    finally:
        handle.close()
