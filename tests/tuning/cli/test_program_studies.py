"""Studies that tune external programs, end to end through ``tune`` as a user runs it: real
programs in three languages built here (tests/programs: knob.py, knob.c, Knob.java), the
session's real Ray, SQLite and the real local PostgreSQL.

The knob's one parameter, ``skill``, is the chance it does not surface needlessly each turn:
near 1 it beats ``random``, lower it loses lives. Its Python build can be told to crash, print
garbage or stall above a threshold of ``skill`` (a parameter that breaks the program)."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
import tomllib

import pytest
import sqlalchemy as sa

from benchmarks.chaos import DriverProcess, compare_digests, duplicate_rows, inconsistent_trials, read_digest
from tests.programs.build import HERE, build_c, build_java
from tests.tuning.processes import last_json, run_tune, said

# A long drill: CI runs it (.ci/run), the README's test command leaves it out.
# Program studies end to end on SQLite and PostgreSQL (about 1.5 min).
pytestmark = pytest.mark.drill


PY = sys.executable
GUARD = 300  # seconds a subprocess may take before it counts as hung (a guard, not a measurement)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("built")
    return {"c": build_c(folder / "c"), "java": build_java(folder / "java"), "py": f"{PY} {HERE / 'knob.py'}"}


def _study(name: str, command: str, *, search: str = "skill = { low = 0.9, high = 1.0, default = 0.9 }",
           panel: str = '["random", "chaser"]', trials: int = 4, extra_bot: str = "", validation_panel: str = "",
           count: int = 4) -> str:
    return textwrap.dedent(f"""
        name = "{name}"
        n_trials = {trials}
        trials_in_flight = 2
        panel = {panel}
        seed_bank = {{ start = 10, count = {count} }}
        batch_pairs = 2
        timeout_scale = 20

        [bot]
        command = {json.dumps(command)}
        {extra_bot}

        [search]
        {search}

        [sampler]
        kind = "random"
        seed = 4

        [pruning]
        enabled = false

        [validation]
        seeds = {{ start = 900000, count = 8 }}
        games = 4
        top_k = 2
        {validation_panel}
    """)


def _tune(tmp_path, *args, check=True, storage=None):
    storage = storage or f"sqlite:///{tmp_path}/study.db"
    return run_tune(*args, "--storage", storage, cwd=tmp_path, check=check, timeout=GUARD)


def _one_line_error(result) -> str:
    assert result.returncode == 2, result.stderr[-2000:]
    lines = said(result)
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    return lines[0]


def test_python_program_tuned_on_sqlite_a_breaking_parameter_fails_its_trial_only(tmp_path, ray_cluster):
    # Above skill 0.95 the program crashes on its third turn: those trials fail with the first
    # error shown; the others complete; the study goes on to its target.
    command = f"{PY} knob.py --skill {{skill}} --seed {{game_seed}} --flaw crash --flaw-above 0.95"
    (tmp_path / "knob.toml").write_text(_study("pyknob", command, extra_bot=f'cwd = "{HERE}"', trials=6))
    launched = _tune(tmp_path, "launch", "knob.toml", "--ray-address", ray_cluster)
    from tuning.storage.handle import open_study

    handle = open_study("pyknob", f"sqlite:///{tmp_path}/study.db")
    try:
        trials = handle.trials()
        assert len(trials) == 6
        broken = {t.number for t in trials if t.params["skill"] > 0.95}
        failed = {t.number for t in trials if t.state.name == "FAIL"}
        assert broken and failed == broken and len(broken) < 6
        for t in trials:
            if t.number in failed:
                assert t.user_attrs["error"].startswith("the program was disqualified in ")
                assert "crashed, exit code 3 (official reason: Timeout!)" in t.user_attrs["error"]
            else:
                assert t.state.name == "COMPLETE" and t.user_attrs["games"] == 2 * 4 * 2
        assert f"trial {min(broken)} failed: the program was disqualified" in launched.stderr
    finally:
        handle.close()
    status = last_json(_tune(tmp_path, "status", "pyknob", "--json"))
    assert status["program"] == command and status["trials"]["failed"] == len(broken)
    dq = status["disqualifications"]
    assert set(dq) == {"random", "chaser"} and all(d["bot"] > 0 and d["opponent"] == 0 for d in dq.values())
    assert "exit code 3" in dq["random"]["first_bot_error"]
    shown = _tune(tmp_path, "status", "pyknob").stdout
    assert "disqualified vs random: study bot" in shown and "tunes the program:" in shown
    _tune(tmp_path, "report", "pyknob", "--out", "report.html")
    page = (tmp_path / "report.html").read_text()
    assert 'id="disqualifications"' in page and "exit code 3" in page and "tunes the program" in page


def test_c_program_with_a_mixed_panel_and_held_out_opponents_on_postgres(tmp_path, ray_cluster, pg_url, programs,
                                                                           user_panels):
    # The panel mixes an in-process bot, a frozen program (the Java knob) and a params: file; the
    # validation adds opponents never trained against, a program among them.
    from ocean.bots import coefficients

    # frozen with the study's limits x20 (a JVM starting on a loaded machine): they play with them
    frozen = subprocess.run([PY, "-m", "ocean", "panel", "add", "javaknob-v1", "--time-scale", "20", "--command",
                             f"{programs['java']} --skill 0.96 --seed {{game_seed}}"],
                            capture_output=True, text=True, env={**os.environ}, timeout=GUARD)
    assert frozen.returncode == 0, frozen.stderr
    frozen = subprocess.run([PY, "-m", "ocean", "panel", "add", "pyknob-v1", "--time-scale", "20", "--command",
                             f"{programs['py']} --skill 0.99 --seed {{game_seed}}"],
                            capture_output=True, text=True, env={**os.environ}, timeout=GUARD)
    assert frozen.returncode == 0, frozen.stderr
    coefficients.save_params({**coefficients.defaults(), "silence_cost": 2.0}, tmp_path / "mine.toml")
    study = _study("cknob", f"{programs['c']} --seed {{game_seed}}", trials=3,
                   panel='["random", "javaknob-v1", "params:mine.toml"]',
                   extra_bot='env = { KNOB_SKILL = "{skill}" }',
                   validation_panel='panel = ["chaser", "pyknob-v1"]')
    (tmp_path / "c.toml").write_text(study)
    _tune(tmp_path, "launch", "c.toml", "--ray-address", ray_cluster, storage=pg_url)
    validated = _tune(tmp_path, "validate", "cknob", "--ray-address", ray_cluster, storage=pg_url)
    assert "held-out opponents" in validated.stdout
    status = last_json(_tune(tmp_path, "status", "cknob", "--json", storage=pg_url))
    assert status["trials"]["complete"] == 3 and status["held_out_panel"] == ["chaser", "pyknob-v1"]
    best = status["best"]
    assert best["validated"] and best["held_out_score"] is not None
    assert 0.0 <= best["held_out_low"] <= best["held_out_score"] <= best["held_out_high"] <= 1.0
    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:
        opponents = {r[0] for r in conn.execute(sa.text("SELECT DISTINCT opponent FROM ocean_games "
                                                        "WHERE phase = 'train'"))}
        validated_against = {r[0] for r in conn.execute(sa.text("SELECT DISTINCT opponent FROM ocean_games "
                                                                "WHERE phase = 'validate'"))}
    engine.dispose()
    assert opponents == {"random", "javaknob-v1", "mine"}
    assert validated_against == opponents | {"chaser", "pyknob-v1", "head-to-head"}  # and the best against the defaults

    _tune(tmp_path, "report", "cknob", "--out", "report.html", storage=pg_url)
    page = (tmp_path / "report.html").read_text()
    assert "pyknob-v1 (held out)" in page and "best against held-out opponents" in page

    # every export format, read back
    exports = {fmt: _tune(tmp_path, "export", "cknob", "--format", fmt, "--allow-no-gain", storage=pg_url).stdout
               for fmt in ("args", "env", "toml", "json", "cpp")}
    skill = best["params"]["skill"]
    assert shlex.split(exports["args"]) == [programs["c"], "--seed", "{game_seed}"]
    assert exports["env"] == f"KNOB_SKILL={skill!r}\n"
    parsed = tomllib.loads(exports["toml"])
    assert parsed["parameters"] == {"skill": skill} and parsed["provenance"]["study"] == "cknob"
    assert parsed["provenance"]["held_out_panel"] == ["chaser", "pyknob-v1"]
    assert json.loads(exports["json"])["parameters"] == {"skill": skill}
    header = tmp_path / "params.hpp"
    header.write_text(exports["cpp"])
    main = tmp_path / "main.cpp"
    main.write_text('#include <cstdio>\n#include "params.hpp"\n'
                    'int main() { std::printf("%.17g\\n", ocean_params::skill); }\n')
    subprocess.run(["g++", "-std=c++17", "-o", str(tmp_path / "show"), str(main)], check=True, cwd=tmp_path)
    shown = subprocess.run([str(tmp_path / "show")], capture_output=True, text=True, check=True).stdout
    assert float(shown) == skill


def test_java_program_reads_its_parameters_from_the_file_the_lab_writes(tmp_path, ray_cluster, programs):
    study = _study("javaknob", f"{programs['java']} --params-file {{params_file}} --seed {{game_seed}}",
                   trials=2, count=2, extra_bot='params_file = "json"', panel='["random"]')
    (tmp_path / "j.toml").write_text(study)
    _tune(tmp_path, "launch", "j.toml", "--ray-address", ray_cluster)
    status = last_json(_tune(tmp_path, "status", "javaknob", "--json"))
    assert status["trials"]["complete"] == 2 and status["games"]["train"] == 2 * 2 * 2
    assert all(d["bot"] == 0 for d in status["disqualifications"].values())
    # the file really carried the values: the default (0.9) and a drawn skill play different games
    from tuning.storage.handle import open_study

    handle = open_study("javaknob", f"sqlite:///{tmp_path}/study.db")
    try:
        rows = {t: [(g.seed, g.side, g.winner, g.turns) for g in handle.games.games(trial=t, phase="train")]
                for t in (0, 1)}
    finally:
        handle.close()
    assert rows[0] != rows[1]


def test_a_frozen_opponent_that_changed_stops_launch_and_resume_with_one_line(tmp_path, ray_cluster, programs,
                                                                              user_panels):
    import shutil

    folder = tmp_path / "opponent"
    folder.mkdir()
    shutil.copy(HERE / "knob.py", folder / "knob.py")
    added = subprocess.run([PY, "-m", "ocean", "panel", "add", "rival-v1", "--time-scale", "20", "--command",
                            f"{PY} knob.py --skill 0.97 --seed {{game_seed}}", "--cwd", str(folder)],
                           capture_output=True, text=True, env={**os.environ}, timeout=GUARD)
    assert added.returncode == 0, added.stderr
    (tmp_path / "s.toml").write_text(_study("vs-rival", f"{programs['c']} --skill {{skill}} --seed {{game_seed}}",
                                            panel='["rival-v1"]', trials=2, count=2))
    _tune(tmp_path, "launch", "s.toml", "--trials", "1", "--ray-address", ray_cluster)
    (folder / "knob.py").write_text((folder / "knob.py").read_text().replace(
        "def main(", "def _unused():\n    pass\n\n\ndef main(", 1).replace("skill = 0.5", "skill = 0.5", 1))
    # same program, same lines: still accepted
    _tune(tmp_path, "resume", "vs-rival", "--trials", "1", "--ray-address", ray_cluster)
    # another program behind the same command: refused by name, nothing played against it
    (folder / "knob.py").write_text("import sys\nprint('7 7')\n")
    before = last_json(_tune(tmp_path, "status", "vs-rival", "--json"))["games"]["train"]
    line = _one_line_error(_tune(tmp_path, "resume", "vs-rival", "--trials", "2", "--ray-address", ray_cluster,
                                 check=False))
    assert "rival-v1" in line and "plays differently than when it was frozen" in line and "node" in line
    assert last_json(_tune(tmp_path, "status", "vs-rival", "--json"))["games"]["train"] == before
    (folder / "knob.py").unlink()
    line = _one_line_error(_tune(tmp_path, "resume", "vs-rival", "--trials", "2", "--ray-address", ray_cluster,
                                 check=False))
    assert "rival-v1" in line


def test_a_missing_program_or_interpreter_is_one_line_before_anything_is_stored(tmp_path, ray_cluster):
    (tmp_path / "m.toml").write_text(_study("missing", "./no-such-bot --skill {skill}"))
    line = _one_line_error(_tune(tmp_path, "launch", "m.toml", "--ray-address", ray_cluster, check=False))
    assert "node" in line and "cannot start" in line and "no-such-bot" in line
    (tmp_path / "n.toml").write_text(_study("silent", f"{PY} -c 'import sys; sys.exit(1)' {{skill}}"))
    line = _one_line_error(_tune(tmp_path, "launch", "n.toml", "--ray-address", ray_cluster, check=False))
    assert "did not answer its first line" in line and "exit code 1" in line


def test_driver_killed_with_program_games_in_flight_then_resumed_matches_an_undisturbed_run(
        tmp_path, ray_cluster, programs):
    name = "killed"
    study = _study(name, f"{programs['c']} --skill {{skill}} --seed {{game_seed}}", trials=4, count=6)
    ref_dir, run_dir = tmp_path / "ref", tmp_path / "run"
    for folder in (ref_dir, run_dir):
        folder.mkdir()
        (folder / "s.toml").write_text(study)
    _tune(ref_dir, "launch", "s.toml", "--ray-address", ray_cluster)
    reference = read_digest(f"sqlite:///{ref_dir}/study.db", name)
    assert len(reference.states) == 4 and set(reference.states.values()) == {"COMPLETE"}

    url = f"sqlite:///{run_dir}/study.db"
    env = {**os.environ, "OCEAN_STORAGE": url, "PYTHONUNBUFFERED": "1"}
    driver = DriverProcess(["launch", "s.toml", "--ray-address", ray_cluster], cwd=run_dir, env=env, index=0)
    deadline = time.monotonic() + GUARD
    while len(read_digest(url, name).rows) < 8:  # some batches stored, others in flight
        assert driver.poll() is None, driver.stderr()[-2000:]
        assert time.monotonic() < deadline, "no games stored"
        time.sleep(0.05)
    os.killpg(driver.pid, signal.SIGKILL)  # the driver and the programs it started
    driver.proc.wait()
    stored = read_digest(url, name).rows
    _tune(run_dir, "resume", name, "--ray-address", ray_cluster)
    after = read_digest(url, name)
    assert all(after.rows[key] == content for key, content in stored.items())  # nothing finished is lost
    assert duplicate_rows(url, name) == 0
    assert inconsistent_trials(after, ["random", "chaser"]) == []
    assert compare_digests(after, reference) == []  # a deterministic program: the undisturbed study


def test_tune_bench_plays_process_games_on_one_and_two_ray_workers(tmp_path, programs):
    result = run_tune("bench", "--program", f"{programs['c']} --skill 1 --seed {{game_seed}}", "--pairs", "4",
                      "--batch-pairs", "2", "--opponent", "random", "--repeats", "1", "--json", cwd=tmp_path,
                      timeout=GUARD)
    figures = last_json(result)
    assert figures["program"].startswith(programs["c"]) and figures["games"] == 8
    assert figures["ray_1_worker_games_per_s"] > 0 and figures["ray_2_workers_games_per_s"] > 0
    turns = figures["player_turns_1_2"]
    assert turns[0] == turns[1] > 0 and figures["disqualified_games_1_2"] == [0, 0]
    assert "storage_seconds_per_trial" not in figures
