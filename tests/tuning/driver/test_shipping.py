"""A program's folder packed on the driver and unpacked on a node (``tuning.driver.shipping``),
without Ray: the zip's bytes handed over directly; real files, real programs."""
import os
import shlex
import subprocess
import sys

import pytest

from ocean.bots.external import ProgramSpec
from tuning.driver import shipping
from tuning.driver.shipping import Shipment, moved, pack, unpacked
from tuning.errors import TuningError


def _bot_folder(root):
    """A program's folder: a script, data beside it, and what never travels."""
    folder = root / "mybot"
    (folder / "data").mkdir(parents=True)
    (folder / "bot.sh").write_text("#!/bin/sh\npwd\n")
    (folder / "bot.sh").chmod(0o755)
    (folder / "data" / "weights.txt").write_text("1 2 3\n")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "study.db").write_bytes(b"\0" * 1000)
    (folder / "logs").mkdir()  # empty: the program writes there
    return folder


def _land(program, data, digest, monkeypatch, cache):
    monkeypatch.setenv(shipping.ENV_PROGRAM_CACHE, str(cache))
    shipping._landed.clear()
    home = unpacked(Shipment(digest, "ref", 0, 0), fetch=lambda ref: data)
    return home, moved(program, os.path.join(home, "tree"))


def test_a_folder_packs_to_the_same_bytes_and_unpacks_where_the_program_starts_from_it(tmp_path, monkeypatch):
    folder = _bot_folder(tmp_path)
    extra = tmp_path / "elsewhere" / "book.bin"  # named by an absolute path, outside the folder
    extra.parent.mkdir()
    extra.write_bytes(b"opening book")
    program = ProgramSpec(f"./bot.sh --book {extra} --seed {{game_seed}}", cwd=str(folder))
    digest, data, size, files = pack(program)
    assert (digest, data) == pack(program)[:2]  # deterministic: the same files, the same zip
    assert files == 3 and size == len("#!/bin/sh\npwd\n") + len("1 2 3\n") + len("opening book")
    home, there = _land(program, data, digest, monkeypatch, tmp_path / "node")
    assert home == str(tmp_path / "node" / digest)
    assert there.cwd == os.path.join(home, "tree", str(folder).lstrip("/"))
    assert not os.path.exists(os.path.join(there.cwd, ".git")) and not os.path.exists(
        os.path.join(there.cwd, "study.db"))
    argv = shlex.split(there.command)
    assert argv[0] == "./bot.sh" and argv[2] == os.path.join(home, "tree", str(extra).lstrip("/"))
    assert argv[3:] == ["--seed", "{game_seed}"]  # placeholders stay placeholders
    assert open(argv[2], "rb").read() == b"opening book"
    assert os.listdir(os.path.join(there.cwd, "logs")) == []  # an empty folder travels too
    out = subprocess.run([argv[0]], cwd=there.cwd, capture_output=True, text=True, check=True)  # still executable
    assert out.stdout.strip() == there.cwd


def test_the_node_software_never_travels_and_relative_paths_stay(tmp_path):
    folder = _bot_folder(tmp_path)
    program = ProgramSpec(f"{shlex.quote(sys.executable)} /usr/bin/env bot.sh data/weights.txt", cwd=str(folder))
    _, data, _, files = pack(program)
    assert files == 2  # the interpreter and /usr/bin/env are the node's own
    there = moved(program, str(tmp_path / "nowhere"))
    assert there.command == program.command  # nothing shipped is named by an absolute path


def test_a_folder_over_the_limit_is_one_line_naming_it_and_its_size(tmp_path, monkeypatch):
    folder = _bot_folder(tmp_path)
    (folder / "big.bin").write_bytes(os.urandom(300_000))
    monkeypatch.setenv(shipping.ENV_SHIP_LIMIT, "0.2")
    with pytest.raises(TuningError) as err:
        pack(ProgramSpec("./bot.sh", cwd=str(folder)), who="program 'mine'")
    text = str(err.value)
    assert "\n" not in text and str(folder) in text and "0.3 MB" in text and "0.2 MB" in text
    assert shipping.ENV_SHIP_LIMIT in text
    monkeypatch.setenv(shipping.ENV_SHIP_LIMIT, "lots")
    with pytest.raises(TuningError, match="is not a size"):
        shipping.ship_limit_bytes()


def test_an_unpack_killed_midway_leaves_scratch_the_next_one_removes(tmp_path, monkeypatch):
    folder = _bot_folder(tmp_path)
    program = ProgramSpec("./bot.sh", cwd=str(folder))
    digest, data, _, _ = pack(program)
    cache = tmp_path / "node"
    cache.mkdir(mode=0o700)
    dead = subprocess.Popen(["true"])
    dead.wait()
    scratch = cache / f".unpacking-{digest}-{dead.pid}-abc"  # a worker that died mid-unpack
    (scratch / "tree").mkdir(parents=True)
    (scratch / "tree" / "half").write_text("x")
    home, there = _land(program, data, digest, monkeypatch, cache)
    assert not scratch.exists()
    assert sorted(os.listdir(cache)) == [digest]
    assert open(os.path.join(there.cwd, "data", "weights.txt")).read() == "1 2 3\n"
    shipping._landed.clear()  # another process of the node: the copy is there, nothing fetched
    assert unpacked(Shipment(digest, "ref", 0, 0), fetch=lambda ref: pytest.fail("fetched twice")) == home


def test_a_frozen_program_files_fingerprint_is_the_same_from_the_shipped_copy(tmp_path, monkeypatch):
    from ocean.fingerprint import files_fingerprint

    folder = _bot_folder(tmp_path)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"cache")
    files = (str(folder / "bot.sh"), str(folder))  # a folder named whole keeps even what a cwd skips
    program = ProgramSpec("./bot.sh", cwd=str(folder), fingerprint=files_fingerprint(files), deterministic=False,
                          files=files)
    digest, data, _, _ = pack(program)
    _, there = _land(program, data, digest, monkeypatch, tmp_path / "node")
    assert all(f.startswith(str(tmp_path / "node")) for f in there.files)
    assert files_fingerprint(there.files) == program.fingerprint


def test_a_cache_that_is_not_this_users_own_folder_is_refused_in_one_line(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")  # a link planted where the cache goes
    monkeypatch.setenv(shipping.ENV_PROGRAM_CACHE, str(tmp_path / "link"))
    with pytest.raises(TuningError, match="is not a folder of this user's; remove it or set TUNE_PROGRAM_CACHE"):
        shipping.cache_root()


def test_a_program_whose_folder_is_missing_is_one_line(tmp_path):
    with pytest.raises(TuningError) as err:
        pack(ProgramSpec("./bot", cwd=str(tmp_path / "gone")), who="program 'mine'")
    assert str(err.value) == (f"program 'mine': its folder {tmp_path / 'gone'} does not exist on this machine "
                              "(the driver's), so it cannot be shipped to the cluster's nodes")


def test_a_node_gives_back_the_newest_copy_it_holds_of_a_program(tmp_path, monkeypatch):
    folder = _bot_folder(tmp_path)
    program = ProgramSpec("./bot.sh", cwd=str(folder))
    key = shipping.program_key(program)
    monkeypatch.setenv(shipping.ENV_PROGRAM_CACHE, str(tmp_path / "node"))
    assert shipping.held_copy(key) is None
    digest, data, size, files = pack(program)
    shipping._landed.clear()
    unpacked(Shipment(digest, "ref", size, files), fetch=lambda ref: data, key=key)
    same_files = shipping.program_key(ProgramSpec("./bot.sh --fast", cwd=str(folder)))  # another bot, one copy
    unpacked(Shipment(digest, "ref", size, files), fetch=lambda ref: pytest.fail("fetched twice"), key=same_files)
    assert shipping.held_copy(same_files)[1:] == (digest, data)
    (folder / "data" / "weights.txt").write_text("4 5 6\n")  # the program changed, shipped again
    newer, data2, _, _ = pack(program)
    unpacked(Shipment(newer, "ref", size, files), fetch=lambda ref: data2, key=key)
    when, held, back = shipping.held_copy(key)
    assert (held, back) == (newer, data2)
    assert shipping._digest_of(back) == (newer, size, files)  # the driver checks the copy is as shipped
    assert shipping.held_copy(shipping.program_key(ProgramSpec("./other", cwd=str(folder)))) is None


def test_a_frozen_program_is_checked_from_its_shipped_copy_and_a_changed_copy_refused(tmp_path, monkeypatch,
                                                                                      ray_cluster):
    import dataclasses

    import ray

    from ocean.bots import PROGRAM, BotSpec
    from ocean.fingerprint import program_fingerprint
    from tests.programs.build import HERE
    from tuning.driver.programs import check_on_this_node

    folder = tmp_path / "knob"
    folder.mkdir()
    (folder / "knob.py").write_bytes((HERE / "knob.py").read_bytes())
    program = ProgramSpec(f"{shlex.quote(sys.executable)} knob.py --skill 0.8 --seed {{game_seed}}", cwd=str(folder))
    fingerprint, _ = program_fingerprint(BotSpec("knob", PROGRAM, {}, program))
    frozen = BotSpec("knob-v1", PROGRAM, {}, dataclasses.replace(program, fingerprint=fingerprint))
    monkeypatch.setenv(shipping.ENV_PROGRAM_CACHE, str(tmp_path / "node"))
    shipping._landed.clear()

    def shipped():
        digest, data, size, files = pack(frozen.program)
        return {shipping.program_key(frozen.program): Shipment(digest, ray.put(data), size, files)}

    assert check_on_this_node([frozen], None, shipped()) == []
    (digest,) = os.listdir(tmp_path / "node")
    assert any(n.startswith("checked-") for n in os.listdir(tmp_path / "node" / digest))  # the node's workers skip it
    # the copy a node gets plays otherwise (as another runtime would make it): refused, naming the node
    knob = (folder / "knob.py").read_text()
    changed = knob.replace('skill = skill_value(given["--skill"], "--skill")', "skill = 0.3")
    assert changed != knob
    (folder / "knob.py").write_text(changed)
    (problem,) = check_on_this_node([frozen], None, shipped())
    assert problem.startswith("node ") and "panel program 'knob-v1'" in problem
    assert "plays differently than when it was frozen" in problem and "\n" not in problem


def test_a_node_that_joins_later_checks_the_tuned_programs_runtime_not_the_trials_values(tmp_path, monkeypatch):
    from ocean.bots import PROGRAM, BotSpec
    from tuning.driver.programs import check_shipped

    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.sh").write_text("#!/bin/sh\nexit 3\n")  # these values break it at once: the trial's problem
    (folder / "bot.sh").chmod(0o755)
    monkeypatch.setenv(shipping.ENV_PROGRAM_CACHE, str(tmp_path / "node"))
    shipping._landed.clear()
    for command, found in (("./bot.sh --x {x}", []), ("no-such-vm-here bot.sh --x {x}", ["needs 'no-such-vm-here'"])):
        spec = BotSpec("trial-3", PROGRAM, {"x": 9}, ProgramSpec(command, cwd=str(folder)))
        digest, data, size, files = pack(spec.program)
        home = unpacked(Shipment(digest, None, size, files), fetch=lambda ref: data)
        here = BotSpec(spec.name, PROGRAM, spec.params, moved(spec.program, os.path.join(home, "tree")))
        problems = check_shipped([here])
        assert len(problems) == len(found) and all(f in p for f, p in zip(found, problems)), problems
