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
from ocean.bots.panel import FingerprintError, check_fingerprint, reload_panels
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
    check_fingerprint(spec)  # unchanged: passes

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
        check_fingerprint(resolve_bot("knobby-v1"))


def test_a_program_that_is_not_deterministic_cannot_be_frozen(user_panels, tmp_path):
    wrapper = tmp_path / "dice.py"
    wrapper.write_text(
        "import random, subprocess, sys\n"
        f"sys.exit(subprocess.call([sys.executable, {str(HERE / 'knob.py')!r}, '--skill', '0.6', '--seed', "
        "str(random.SystemRandom().randrange(1 << 40))]))\n")
    added = _ocean("panel", "add", "dice-v1", "--command", f"{sys.executable} {wrapper}")
    assert added.returncode == 2, added.stdout
    assert "not deterministic" in added.stderr and "{game_seed}" in added.stderr
    assert not user_panels.exists()


@pytest.mark.parametrize("args, words", [
    (["--command", "./no-such-bot"], "bot program not found"),
    (["--command", "./x", "--params", "p.toml"], "one of the two"),
    (["--params", "p.toml", "--cwd", "."], "--cwd goes with --command"),
    (["--command", "./bot --depth {depth}"], "takes no parameters"),
    (["--command", "./bot", "--cwd", "/no/such/folder"], "is not a folder"),
])
def test_bad_program_panel_entries_are_one_line(user_panels, tmp_path, args, words):
    added = _ocean("panel", "add", "mine-v1", *args, cwd=tmp_path)
    assert added.returncode == 2
    assert words in added.stderr and len(added.stderr.strip().splitlines()) == 1, added.stderr
    assert not user_panels.exists()
