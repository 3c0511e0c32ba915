"""How a study's and a test's programs run (issue 45): the study file's ``[sandbox]`` table and
``tune test --memory-mb/--require-sandbox``, validated strictly, stored, and carried by the time
control every game gets (``ocean.timecontrol.TimeControl.sandbox``)."""
import pytest

from ocean.sandbox import SandboxPolicy
from tests.tuning.fakes import tiny_spec_dict
from tuning.errors import SpecError
from tuning.study.spec import parse_spec
from tuning.study.testspec import TestOptions, TestSpec, build_spec, mismatches


def test_a_study_without_the_table_runs_programs_as_codingame_does_and_stores_as_before():
    spec = parse_spec(tiny_spec_dict())
    assert spec.time_control.sandbox == SandboxPolicy(768, False, False)
    assert "sandbox" not in spec.stored()  # a study stored before the table is stored the same way


def test_the_table_reaches_every_games_time_control_and_is_stored():
    spec = parse_spec(tiny_spec_dict(sandbox={"memory_mb": 1024, "required": True, "writable_folder": True}))
    policy = spec.time_control.sandbox
    assert policy == SandboxPolicy(1024, True, True)
    assert spec.stored()["sandbox"] == {"memory_mb": 1024, "required": True, "writable_folder": True}
    assert parse_spec(spec.stored()).time_control.sandbox == policy  # a resume keeps it
    # scaled, on another machine, for a frozen program's own time control: the run's policy stays
    tc = spec.time_control
    assert tc.scaled(2).sandbox == policy and tc.on_machine(3).sandbox == policy
    assert tc.for_program(type(tc)(30, 500)).sandbox == policy
    assert tc == type(tc)(tc.turn_ms, tc.first_turn_ms, tc.scale, tc.machine)  # not part of its identity


@pytest.mark.parametrize("table, words", [
    ({"memory_mb": 8}, "memory_mb"),
    ({"memory_mb": "768"}, "memory_mb"),
    ({"required": "yes"}, "required"),
    ({"memroy_mb": 512}, "memroy_mb"),
])
def test_a_bad_sandbox_table_is_one_line_naming_the_key(table, words):
    with pytest.raises(SpecError) as err:
        parse_spec(tiny_spec_dict(sandbox=table))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_tests_memory_limit_and_required_sandbox_are_stored_and_compared():
    spec = build_spec("t", TestOptions(new="random", base="chaser", memory_mb=512, require_sandbox=True))
    assert spec.time_control.sandbox == SandboxPolicy(512, True)
    again = TestSpec.from_json("t", spec.to_json())
    assert (again.memory_mb, again.require_sandbox) == (512, True)
    assert mismatches(again, TestOptions(memory_mb=1024, require_sandbox=False)) == [
        "--memory-mb 1024 (the test has 512)", "--sandbox-optional (the test requires the sandbox)"]
    old = {k: v for k, v in build_spec("t", TestOptions(new="random", base="chaser")).to_json().items()}
    assert "memory_mb" not in old and TestSpec.from_json("t", old).memory_mb == 768  # stored tests as before
    with pytest.raises(SpecError, match="--memory-mb must be from 16"):
        build_spec("t", TestOptions(new="random", base="chaser", memory_mb=4))
