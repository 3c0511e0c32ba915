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


def test_a_cache_of_another_user_is_refused_in_one_line(tmp_path, monkeypatch):
    cache = tmp_path / "theirs"
    cache.mkdir()
    os.chown(cache, 12345, 12345) if os.getuid() == 0 else pytest.skip("needs root to give a folder away")
    monkeypatch.setenv(shipping.ENV_PROGRAM_CACHE, str(cache))
    with pytest.raises(TuningError, match="is not a folder of this user's"):
        shipping.cache_root()
