"""``ocean bot``'s lean path (``ocean._entry``) against the command line (``ocean.cli``'s ``bot``):
the same lines through the real referee for a bot whose name loads what the lean path leaves
out at start (a panel bot: the panels' file), the same one-line errors, and a start that
imports nothing a policy by name does not need (issue 49: a start's CPU, mostly imports)."""
from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from ocean import _aot
from ocean.bots.registry import POLICIES

# The command line itself, whatever its arguments: ``ocean.cli``'s app, never the lean path.
_CLI = [sys.executable, "-c", "from ocean.cli import app; app(prog_name='ocean')"]
_LEAN = [sys.executable, "-m", "ocean"]


@pytest.fixture(scope="module")
def v1_module():
    """tunable-v1's compiled module (hunter-v1 plays it), built here if ``ocean warmup`` has not."""
    kind = POLICIES["tunable-v1"]
    if _aot.load(kind) is None:
        _aot.build(kind)
    assert _aot.load(kind) is not None
    return kind


def _lines(command: list[str], seed: int, side: int) -> tuple[list, dict]:
    """Every line the program ``command`` prints in a game on ``seed``'s map against the
    in-process chaser, and the verdict (generous limits: lines are checked, not times)."""
    from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
    from ocean.players import open_player
    from ocean.referee import referee_players
    from ocean.timecontrol import TimeControl

    text = shlex.join(command)
    time = TimeControl(10000, 60000)
    me = open_player(BotSpec(text, PROGRAM, {}, ProgramSpec(text)), seed, time=time)
    other = open_player(resolve_bot("chaser"), seed)
    players = [me, other] if side == 0 else [other, me]
    try:
        played = referee_players(seed, players, time=time, keep_outputs=True)
    finally:
        for player in players:
            player.close()
    return played.outputs[side], played.verdict


@pytest.mark.parametrize("seed, side, args", [(51, 0, ["--name", "hunter-v1", "--seed", "3"]),
                                              (52, 1, ["--name=hunter", "--seed=-4"])])
def test_a_panel_bot_plays_the_command_lines_lines_on_the_lean_path(v1_module, seed, side, args):
    lean, verdict = _lines(_LEAN + ["bot", *args], seed, side)
    cli, verdict_cli = _lines(_CLI + ["bot", *args], seed, side)
    assert verdict["disqualified"] == [None, None] and verdict["turns"] > 10
    assert lean == cli and verdict == verdict_cli


def test_the_lean_path_says_what_the_command_line_says_in_one_line(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[coefficients\n")
    empty = tmp_path / "empty.toml"
    empty.write_text("bot = 'tunable'\n")
    cases = [["--params", str(tmp_path / "nofile.toml")], ["--params", str(broken)], ["--params", str(empty)],
             ["--name", "nobody"], ["--name", "huntr"], ["--name", "cmd:./mybot --depth 3"],
             ["--name", "tunable", "--params", str(empty)], ["--turn-ms", "0"]]
    for args in cases:
        lean = subprocess.run(_LEAN + ["bot", *args], input="", capture_output=True, text=True, timeout=300)
        cli = subprocess.run(_CLI + ["bot", *args], input="", capture_output=True, text=True, timeout=300)
        assert (lean.returncode, lean.stderr) == (cli.returncode, cli.stderr), args
        assert lean.returncode == 2 and len(lean.stderr.strip().splitlines()) == 1, (args, lean.stderr)
        assert lean.stdout == ""


def test_a_start_imports_only_what_a_policy_by_name_plays_with(v1_module):
    from ocean.maps import generate_map, map_rows

    init = "15 15 1\n" + "".join(row + "\n" for row in map_rows(generate_map(7)))
    left_out = ("numba", "llvmlite", "typer", "rich", "click", "ocean.cli", "ocean.bots.external",
                "ocean.timecontrol", "ocean.sandbox", "subprocess", "tomllib", "difflib",
                "shutil", "json")
    code = ("import sys\nfrom ocean._entry import fast_bot\nassert fast_bot(['--name', 'tunable-v1', '--seed', '2'])\n"
            f"print(sorted(m for m in {left_out!r} if m in sys.modules), file=sys.stderr)")
    lean = subprocess.run([sys.executable, "-c", code], input=init, capture_output=True, text=True, check=True)
    cli = subprocess.run(_CLI + ["bot", "--name", "tunable-v1", "--seed", "2"], input=init, capture_output=True,
                         text=True, check=True)
    assert lean.stderr.strip() == "[]"
    assert lean.stdout == cli.stdout and len(lean.stdout.split()) == 2
