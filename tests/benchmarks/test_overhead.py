"""tune bench's program costs: a real program (the knob's C build) played by the real referee;
the parts add up to the wall time and each is measured, not assumed."""
import math

from benchmarks.overhead import program_costs
from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
from ocean.timecontrol import TimeControl
from tests.programs.build import build_c


def test_a_program_games_costs_are_split_into_the_programs_the_labs_and_waiting(tmp_path):
    knob = build_c(tmp_path)
    bot = BotSpec("program", PROGRAM, {}, ProgramSpec(f"{knob} --skill 0.9 --seed {{game_seed}}"))
    costs = program_costs(bot, resolve_bot("random"), 3, TimeControl(50, 1000, 20.0), starts=3)
    assert costs["program_games"] == 6 and costs["program_turns_per_game"] > 1
    parts = costs["program_cpu_ms_per_game"] + costs["lab_cpu_ms_per_game"] + costs["waiting_ms_per_game"]
    assert math.isclose(parts, costs["wall_ms_per_game"], abs_tol=0.01)
    assert costs["program_cpu_ms_per_game"] > 0 and costs["lab_cpu_ms_per_game"] > 0
    assert costs["start_teardown_ms"] > 0 and costs["lab_cpu_us_per_turn"] > 0
