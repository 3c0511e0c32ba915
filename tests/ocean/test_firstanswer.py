"""``ocean bot``'s fast first answer: the policy compiled ahead of time (``ocean._aot``) and
served without the command line (``ocean._entry``) plays exactly the lines of the path of
before (Numba's kernels behind ``ocean.cli``), as real programs under the referee; it imports no
Numba; every other use of the ``ocean`` command still goes to the command line. The same for
``tunable-v4`` with ``--turn-ms``: its clocked search's kernels are in its module too."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ocean import _aot
from ocean._entry import _bot_options
from ocean.bots import resolve_bot
from ocean.bots.registry import POLICIES


def _ocean(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def tunable_module():
    """The tunable bot's module, built here if ``ocean warmup`` has not (about a minute, once
    per version of the package)."""
    kind = POLICIES["tunable"]
    if _aot.load(kind) is None:
        _aot.build(kind)
    assert _aot.load(kind) is not None
    return kind


@pytest.fixture(scope="module")
def v4_module():
    """tunable-v4's module, its clocked search's kernels included (built here if ``ocean warmup
    --all`` has not: a few minutes, once per version of the package)."""
    kind = POLICIES["tunable-v4"]
    if _aot.load(kind) is None:
        _aot.build(kind)
    assert _aot.load(kind) is not None
    return kind


def _game_lines(seed: int, args: list[str], side: int) -> tuple[list, dict]:
    """Every line ``python -m ocean bot ARGS`` prints in a game on ``seed``'s map, playing
    ``side`` against the in-process chaser (deterministic), with generous limits."""
    from ocean.bots import PROGRAM, BotSpec, ProgramSpec
    from ocean.players import open_player
    from ocean.referee import referee_players
    from ocean.timecontrol import TimeControl

    command = " ".join([sys.executable, "-m", "ocean", "bot", *args])
    time = TimeControl(10000, 60000)  # the tests check lines, not times (ocean bench --first-answer does)
    me = open_player(BotSpec(command, PROGRAM, {}, ProgramSpec(command)), seed, time=time)
    other = open_player(resolve_bot("chaser"), seed)
    players = [me, other] if side == 0 else [other, me]
    try:
        played = referee_players(seed, players, time=time, keep_outputs=True)
    finally:
        for player in players:
            player.close()
    return played.outputs[side], played.verdict


@pytest.mark.parametrize("seed, side, args", [(41, 0, []), (42, 1, ["--seed", "5"]), (43, 0, ["--seed", "-7"]),
                                              (44, 1, ["--params", "{params}", "--seed", "9"])])
def test_the_compiled_bot_plays_the_same_lines_as_before(tunable_module, tmp_path, seed, side, args, unsandboxed):
    # Unsandboxed: the path of before (--no-aot) loads Numba's kernels, and Numba refuses a cache
    # it cannot write (the sandbox shows the lab's read-only): it would compile them for a minute.
    from ocean.bots import coefficients as C

    params = C.defaults()
    params["stealth_weight"] = 0.9  # a coefficient file, as from `tune export`
    C.save_params(params, tmp_path / "best.toml", provenance={"study": "test"})
    args = [a.format(params=tmp_path / "best.toml") for a in args]
    fast, verdict = _game_lines(seed, args, side)
    before, verdict_before = _game_lines(seed, args + ["--no-aot"], side)
    assert verdict["disqualified"] == [None, None] and verdict["turns"] > 10
    assert fast == before and verdict == verdict_before


def test_the_fast_path_answers_without_numba_or_the_command_line(tunable_module):
    from ocean.maps import generate_map, map_rows

    init = "15 15 0\n" + "".join(row + "\n" for row in map_rows(generate_map(3)))
    code = ("import sys\nfrom ocean._entry import fast_bot\nassert fast_bot(['--seed', '2'])\n"
            "print(sorted(m for m in ('numba', 'llvmlite', 'typer', 'rich', 'ocean.cli') if m in sys.modules), "
            "file=sys.stderr)")
    fast = subprocess.run([sys.executable, "-c", code], input=init, capture_output=True, text=True, check=True)
    before = _ocean("bot", "--seed", "2", "--no-aot", input=init, check=True)
    assert fast.stderr.strip() == "[]"
    assert fast.stdout == before.stdout and len(fast.stdout.split()) == 2


def _first_turns(code: str, seed: int = 3) -> subprocess.CompletedProcess:
    """Run ``code`` (a program's fast path) on map ``seed``'s init lines and one turn's input
    (the start cell read back from the first answer is not needed: the shadow takes the cell
    the turn line gives)."""
    from ocean.maps import generate_map, map_rows

    init = "15 15 0\n" + "".join(row + "\n" for row in map_rows(generate_map(seed)))
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdin.write(init)
    proc.stdin.flush()
    x, y = proc.stdout.readline().split()
    out, err = proc.communicate(f"{x} {y} 6 6 3 4 6 3\nNA\nNA\n", timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, f"{x} {y}\n{out}", err)


def test_the_clocked_v4_answers_on_the_fast_path_without_numba(v4_module):
    code = ("import sys\nfrom ocean._entry import fast_bot\n"
            "assert fast_bot(['--name', 'tunable-v4', '--turn-ms', '50', '--seed', '2'])\n"
            "print(sorted(m for m in ('numba', 'llvmlite', 'typer', 'rich', 'ocean.cli') if m in sys.modules), "
            "file=sys.stderr)")
    played = _first_turns(code)
    assert played.returncode == 0 and played.stderr.strip() == "[]"
    start, line = played.stdout.splitlines()
    assert len(start.split()) == 2 and line.split()[0] in ("MOVE", "SILENCE", "SURFACE", "TORPEDO", "TRIGGER")


@pytest.mark.parametrize("seed, side, args", [
    (45, 0, ["--name", "tunable-v4", "--seed", "3"]),
    (46, 1, ["--params", "{params}", "--seed", "8"]),
])
def test_the_clocked_v4_on_the_fast_path_plays_the_budgets_lines(v4_module, tmp_path, seed, side, args,
                                                                unsandboxed):  # --no-aot: see above
    """Told far more time than its budget needs, the clock never stops the search: the module's
    clocked search plays the lines of the turn kernel through Numba (the in-process search)."""
    from ocean.bots import coefficients as C

    params = C.defaults("tunable-v4")
    params["iterations"] = 24  # a coefficient file, as from `tune export`
    C.save_params(params, tmp_path / "v4.toml", provenance={"study": "test"}, policy="tunable-v4")
    args = [a.format(params=tmp_path / "v4.toml") for a in args]
    clocked, verdict = _game_lines(seed, args + ["--turn-ms", "100000"], side)
    kernel, verdict_kernel = _game_lines(seed, args + ["--no-aot"], side)
    assert verdict["disqualified"] == [None, None] and verdict["turns"] > 10
    assert clocked == kernel and verdict == verdict_kernel


@pytest.mark.parametrize("args, expected", [
    ([], {"--seed": 0}),
    (["--name", "tunable-v4", "--turn-ms", "50"], {"--name": "tunable-v4", "--turn-ms": 50, "--seed": 0}),
    (["--turn-ms", "0"], None), (["--turn-ms", "x"], None),
    (["--name", "hunter", "--seed", "-3"], {"--name": "hunter", "--seed": -3}),
    (["--params=best.toml"], {"--params": "best.toml", "--seed": 0}),
    (["--help"], None), (["--seed"], None), (["--seed", "x"], None), (["--no-aot"], None),
    (["--name", "a", "--params", "b"], None), (["--name", "a", "--name", "b"], None),
])
def test_only_the_bots_own_options_skip_the_command_line(args, expected):
    assert _bot_options(args) == expected


def test_the_command_line_still_answers_everything_else():
    assert "bot" in _ocean("--help", check=True).stdout
    assert "--params" in _ocean("bot", "--help", check=True).stdout
    wrong = _ocean("bot", "--name", "nobody", input="")
    assert wrong.returncode == 2 and "unknown bot 'nobody'" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1


def test_the_benchmark_pairs_each_start_with_the_path_of_before(tunable_module):
    import json

    out = _ocean("bench", "--first-answer", "--games", "2", "--json", check=True, timeout=600)
    figures = json.loads(out.stdout.splitlines()[-1])
    assert figures["starts"] == 2 and figures["ahead_of_time_module"] is True and figures["same_start_cells"]
    for key in ("first_answer", "second_answer", "before_first_answer", "cpu_ms", "before_cpu_ms"):
        assert 0 < figures[key]["min_ms"] <= figures[key]["median_ms"] <= figures[key]["p99_ms"] <= figures[key]["max_ms"]
    assert figures["median_ratio_to_before"] > 0


def test_modules_are_kept_per_cpu_and_for_a_named_cpu_by_its_name(monkeypatch):
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    host = _aot.module_path(3)
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")  # the Docker image's kernels: for any x86-64 CPU
    generic = _aot.module_path(3)
    assert host != generic and "aot-cpu-generic" in generic and "aot-cpu-" not in host
