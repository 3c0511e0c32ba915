"""External programs as frozen panel bots: `ocean panel add NAME --command` fingerprints a
program by its lines on fixed games; the name then works in arenas (and studies) like any bot,
and a program that changed, vanished or is not deterministic is refused with one line."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from ocean.bots import resolve_bot
from ocean.bots.panel import reload_panels
from ocean.fingerprint import FingerprintError, check_frozen
from tests.programs.build import HERE


def _ocean(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True,
                          env={**os.environ}, cwd=cwd, timeout=600)




@pytest.fixture
def knob_copy(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(HERE / "knob.py", folder / "knob.py")
    return folder


def test_a_program_frozen_by_name_plays_in_the_arena_next_to_in_process_bots(user_panels, knob_copy):
    command = f"{sys.executable} knob.py --skill 0.97 --seed {{game_seed}}"
    added = _ocean("panel", "add", "knobby-v1", "--command", command, "--cwd", str(knob_copy),
                   "--style", "the knob at 0.97", "--panel", "mine")
    assert added.returncode == 0, added.stderr
    assert "fingerprint" in added.stdout and "knobby-v1 frozen" in added.stdout
    listed = json.loads(_ocean("panel", "list", "--json").stdout.strip().splitlines()[-1])
    entry = listed["bots"]["knobby-v1"]
    assert entry["policy"] == "program" and entry["command"] == command and entry["cwd"] == str(knob_copy)
    assert listed["panels"]["mine"] == ["knobby-v1"]
    reload_panels()
    spec = resolve_bot("knobby")
    assert spec.is_program and spec.program.fingerprint == entry["fingerprint"]
    check_frozen(spec)  # unchanged: passes

    arena = _ocean("arena", "--bots", "knobby-v1,random,chaser", "--games", "4", "--json")
    assert arena.returncode == 0, arena.stderr
    report = json.loads(arena.stdout.strip().splitlines()[-1])
    assert report["statistics"]["knobby-v1"]["games"] == 8
    assert report["matrix"]["knobby-v1"]["random"]["score"] > 0.5


def test_a_program_that_changed_or_vanished_is_refused_by_name(user_panels, knob_copy):
    command = f"{sys.executable} knob.py --skill 0.97 --seed {{game_seed}}"
    assert _ocean("panel", "add", "knobby-v1", "--command", command, "--cwd", str(knob_copy)).returncode == 0
    # The author rewrites the bot behind the same command: another bot entirely.
    for name in ("walker.py", "_cg.py"):
        shutil.copy(HERE.parent / "ocean" / "programs" / name, knob_copy / name)
    (knob_copy / "knob.py").write_text((knob_copy / "walker.py").read_text())
    arena = _ocean("arena", "--bots", "knobby-v1,random", "--games", "2")
    assert arena.returncode == 2 and len(arena.stderr.strip().splitlines()) == 1, arena.stderr
    assert "knobby-v1" in arena.stderr and "plays differently than when it was frozen" in arena.stderr
    (knob_copy / "knob.py").unlink()
    reload_panels()
    with pytest.raises(FingerprintError, match="knobby-v1"):
        check_frozen(resolve_bot("knobby-v1"))


def _dice(folder):
    """A program whose lines vary between runs (unseeded randomness), reading a data folder."""
    (folder / "data").mkdir()
    (folder / "data" / "weights.txt").write_text("1 2 3\n")
    wrapper = folder / "dice.py"
    wrapper.write_text(
        "import random, subprocess, sys\n"
        "open('data/weights.txt').read()\n"
        f"sys.exit(subprocess.call([sys.executable, {str(HERE / 'knob.py')!r}, '--skill', '0.6', '--seed', "
        "str(random.SystemRandom().randrange(1 << 40))]))\n")
    return wrapper


def test_a_program_that_is_not_deterministic_cannot_be_frozen(user_panels, tmp_path):
    wrapper = _dice(tmp_path)
    added = _ocean("panel", "add", "dice-v1", "--command", f"{sys.executable} dice.py", "--cwd", str(tmp_path))
    assert added.returncode == 2, added.stdout
    assert "not deterministic" in added.stderr and "{game_seed}" in added.stderr and "--nondeterministic" in added.stderr
    assert not user_panels.exists()
    assert wrapper.exists()


def test_a_program_that_is_not_reproducible_is_frozen_by_the_files_it_runs(user_panels, tmp_path):
    wrapper = _dice(tmp_path)
    command = f"{sys.executable} dice.py"
    added = _ocean("panel", "add", "dice-v1", "--command", command, "--cwd", str(tmp_path), "--nondeterministic",
                   "--files", "data")
    assert added.returncode == 0, added.stderr
    assert "dice.py" in added.stdout and "data" in added.stdout
    listed = json.loads(_ocean("panel", "list", "--json").stdout.strip().splitlines()[-1])["bots"]["dice-v1"]
    assert listed["deterministic"] is False
    assert str(wrapper) in listed["files"] and str(tmp_path / "data") in listed["files"]
    arena = _ocean("arena", "--bots", "dice-v1,random", "--games", "4", "--json")
    assert arena.returncode == 0, arena.stderr
    assert json.loads(arena.stdout.strip().splitlines()[-1])["statistics"]["dice-v1"]["games"] == 4
    for path, change in ((wrapper, "# a new version\n"), (tmp_path / "data" / "weights.txt", "4\n")):
        original = path.read_text()
        path.write_text(original + change)
        refused = _ocean("arena", "--bots", "dice-v1,random", "--games", "2")
        assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert "dice-v1" in refused.stderr and "runs other files than when it was frozen" in refused.stderr
        path.write_text(original)
    wrapper.unlink()
    reload_panels()
    with pytest.raises(FingerprintError, match="dice-v1.*cannot start"):
        check_frozen(resolve_bot("dice-v1"))


def test_a_frozen_program_plays_with_its_own_time_control_whatever_the_arenas(user_panels, tmp_path, unsandboxed):
    log = tmp_path / "told.log"
    busy = HERE.parent / "ocean" / "programs" / "busy.py"
    command = f"{sys.executable} {busy} --turn-ms {{turn_ms}} --first-turn-ms {{first_turn_ms}} --share 0 --log {log}"
    added = _ocean("panel", "add", "busy-v1", "--command", command, "--turn-ms", "30", "--first-turn-ms", "500",
                   "--time-scale", "4")
    assert added.returncode == 0, added.stderr
    assert "30 ms a turn, 500 ms the first (limits x4" in added.stdout
    listed = json.loads(_ocean("panel", "list", "--json").stdout.strip().splitlines()[-1])["bots"]["busy-v1"]
    assert listed["time"] == {"turn_ms": 30, "first_turn_ms": 500, "scale": 4.0}
    log.unlink()
    arena = _ocean("arena", "--bots", "busy-v1,random", "--games", "2", "--turn-ms", "5", "--json")
    assert arena.returncode == 0, arena.stderr
    told = [json.loads(line) for line in log.read_text().splitlines()]
    # its fingerprint checked (8 games), then the arena's 2 games: told its own time control throughout
    assert len(told) == 8 + 2 and {(t["turn_ms"], t["first_turn_ms"]) for t in told} == {(30, 500)}


@pytest.mark.parametrize("args, words", [
    (["--command", "./no-such-bot"], "bot program not found"),
    (["--command", "./x", "--params", "p.toml"], "one of the two"),
    (["--params", "p.toml", "--cwd", "."], "--cwd goes with --command"),
    (["--command", "./bot --depth {depth}"], "takes no parameters"),
    (["--command", "./bot", "--files", "x"], "--files goes with --nondeterministic"),
    (["--params", "p.toml", "--nondeterministic"], "--nondeterministic goes with --command"),
    (["--command", "./bot", "--turn-ms", "0"], "--turn-ms"),
    (["--command", "./bot", "--cwd", "/no/such/folder"], "is not a folder"),
])
def test_bad_program_panel_entries_are_one_line(user_panels, tmp_path, args, words):
    added = _ocean("panel", "add", "mine-v1", *args, cwd=tmp_path)
    assert added.returncode == 2
    assert words in added.stderr and len(added.stderr.strip().splitlines()) == 1, added.stderr
    assert not user_panels.exists()


def test_a_process_checks_a_frozen_program_once_unless_asked_afresh(user_panels, knob_copy):
    command = f"{sys.executable} knob.py --skill 0.9 --seed {{game_seed}}"
    assert _ocean("panel", "add", "onceknob-v1", "--command", command, "--cwd", str(knob_copy)).returncode == 0
    reload_panels()
    spec = resolve_bot("onceknob-v1")
    check_frozen(spec)
    (knob_copy / "knob.py").write_text("import sys\nprint('7 7')\n")
    check_frozen(spec)  # a worker checks each frozen bot once: the answer is kept
    with pytest.raises(FingerprintError, match="onceknob-v1"):
        check_frozen(spec, fresh=True)  # before a study starts or resumes: checked again
