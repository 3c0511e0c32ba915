"""Programs on a real Ray cluster of ``ray start`` nodes (``tuning.driver.shipping``): a worker
node plays a program from the copy shipped to it, not from the driver's folder (``tune check``,
``tune test``, ``tune plan``'s pilot, then a batch with the folder gone); and a node without the
program's runtime refuses in one line naming it, before a study and mid-study."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from tests.programs.build import HERE
from tests.tuning.driver.test_topology import two_nodes
from tests.tuning.processes import said

# Multi-node Ray clusters started with ray start (about 1 min each): CI runs them (.ci/run).
pytestmark = pytest.mark.drill

KNOB = HERE / "knob.py"

# A driver of its own (Ray reads its token when imported): ships the program, takes the original
# folder away, then plays a batch on the node whose program cache is ``want_cache``.
_DRIVER = textwrap.dedent("""
    import json, os, sys
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    from ocean.bots import PROGRAM, BotSpec, resolve_bot
    from ocean.bots.external import ProgramSpec
    from tuning.driver.programs import check_programs
    from tuning.driver.shipping import shipments_for
    from tuning.driver.worker import frozen_bot_problem, play_batch_task

    address, command, folder, want_cache, check = sys.argv[1:6]
    ray.init(address=address, log_to_driver=False)
    spec = BotSpec("mine", PROGRAM, {"skill": 0.9}, ProgramSpec(command, cwd=folder))
    if check == "check":
        check_programs([spec])  # ships, and checks on every node
    shipments = shipments_for([spec])
    os.rename(folder, folder + ".gone")  # from now on the program exists only as shipped copies
    if check == "check":  # a driver without the folder (another host) takes the copy the nodes hold
        import tuning.driver.shipping as shipping
        shipping._made.clear()
        again = shipping.shipments_for([spec], fresh=True)
        assert [s.digest for s in again.values()] == [s.digest for s in shipments.values()], (again, shipments)
        shipments = again

    @ray.remote(num_cpus=1)
    def cache():
        return os.environ.get("TUNE_PROGRAM_CACHE")

    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    on = lambda n: NodeAffinitySchedulingStrategy(n, soft=False)
    (node,) = [n for n in nodes if ray.get(cache.options(scheduling_strategy=on(n)).remote()) == want_cache]
    try:
        result = ray.get(play_batch_task.options(scheduling_strategy=on(node)).remote(
            {"skill": 0.9}, resolve_bot("random"), [1, 2], 0, "train", spec, None, None, None, True,
            shipments=shipments))
    except ray.exceptions.RayError as exc:
        print(json.dumps({"refused": frozen_bot_problem(exc)}))
    else:
        print(json.dumps({"games": len(result.rows), "errors": [r["a_error"] for r in result.rows if r["a_error"]],
                          "nodes": len(nodes), "shipped": len(shipments)}))
""")


STUDY = textwrap.dedent("""
    name = "shipped"
    n_trials = 2
    panel = ["random"]
    seed_bank = {{ start = 1, count = 2 }}
    timeout_scale = 20
    [bot]
    command = "{command} --skill {{skill}} --seed {{game_seed}}"
    cwd = "mybot"
    [search]
    skill = {{ low = 0.9, high = 1.0 }}
""")


def _bot(folder, runner: str):
    """A program's folder: knob.py beside a wrapper that runs it with ``runner``, from its cwd
    (a copy of the wrapper kept beside the folder, for its size)."""
    folder.mkdir()
    (folder / "knob.py").write_bytes(KNOB.read_bytes())
    wrapper = folder / "mybot"
    wrapper.write_text(f"#!/bin/sh\nexec {runner} knob.py \"$@\"\n")
    wrapper.chmod(0o755)
    (folder.parent / "mybot.sh").write_bytes(wrapper.read_bytes())
    return folder


def _tune(env, cwd, *args):
    return subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def _runtime(tmp_path):
    """A runtime found on the PATH (as java or node are): ``knobvm`` runs a Python program."""
    bin_dir = tmp_path / "runtime" / "bin"
    bin_dir.mkdir(parents=True)
    vm = bin_dir / "knobvm"
    vm.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    vm.chmod(0o755)
    return bin_dir


def _drive(address, env, command, folder, cache, check="check"):
    driver = subprocess.run([sys.executable, "-c", _DRIVER, address, command, str(folder), str(cache), check],
                            env=env, capture_output=True, text=True, timeout=300)
    assert driver.returncode == 0, driver.stderr[-3000:]
    return json.loads(driver.stdout.strip().splitlines()[-1])


def test_a_worker_node_plays_a_program_from_its_shipped_copy(tmp_path, monkeypatch):
    folder = _bot(tmp_path / "mybot", sys.executable)
    monkeypatch.setenv("TUNE_PROGRAM_CACHE", str(tmp_path / "head-cache"))
    worker_cache = tmp_path / "worker-cache"
    (tmp_path / "s.toml").write_text(STUDY.format(command="./mybot"))
    with two_nodes({"TUNE_PROGRAM_CACHE": str(worker_cache)}) as (address, env):
        checked = _tune(env, tmp_path, "check", "s.toml", "--ray-address", address, "--json")
        # tune test: two command-line bots from the same folder, shipped as one copy
        knob = 'cmd:"./mybot --skill {skill} --seed {game_seed}"'
        tested = _tune(env, tmp_path, "test", "knobs", "--new", knob.replace("{skill}", "0.95"), "--base",
                       knob.replace("{skill}", "0.3"), "--cwd", "mybot", "--max-games", "8", "--batch-pairs", "1",
                       "--time-scale", "20", "--ray-address", address, "--storage",
                       f"sqlite:///{tmp_path}/t.db", "--json")
        planned = _tune(env, tmp_path, "plan", "s.toml", "--pilot-pairs", "2", "--ray-address", address, "--json")
        out = _drive(address, env, "./mybot --skill {skill} --seed {game_seed}", folder, worker_cache)
    assert planned.returncode == 0, planned.stderr[-2000:]
    pilot = json.loads(planned.stdout.strip().splitlines()[-1])  # the pilot's games, played from shipped copies
    assert pilot["source"] == "pilot" and pilot["games_measured"] == 2 * 2 and pilot["disqualified_share"] == 0.0
    assert tested.returncode == 0, tested.stderr[-2000:]
    assert json.loads(tested.stdout.strip().splitlines()[-1])["games"] == 8
    assert checked.returncode == 0, checked.stderr[-2000:]
    data = json.loads(checked.stdout.strip().splitlines()[-1])
    assert data["ok"] and data["shipped"] == [{"program": "program", "files": 2,
                                               "bytes": len(KNOB.read_bytes()) + len((folder.parent / "mybot.sh"
                                                                                      ).read_bytes())}]
    assert len(data["nodes"]) == 2 and all(n["problems"] == [] for n in data["nodes"])
    assert out == {"games": 4, "errors": [], "nodes": 2, "shipped": 1}  # played with the original gone
    assert not folder.exists()
    for cache in (tmp_path / "head-cache", worker_cache):  # unpacked once on each node, and checked there
        (digest,) = os.listdir(cache)
        shipped = cache / digest / "tree" / str(folder).lstrip("/")
        assert sorted(os.listdir(shipped)) == ["knob.py", "mybot"]
        assert any(name.startswith("checked-") for name in os.listdir(cache / digest))
        assert len(os.listdir(cache / digest / "programs")) == 3  # the study's bot and the test's two


def test_a_node_without_the_programs_runtime_refuses_in_one_line_naming_it(tmp_path, monkeypatch):
    folder = _bot(tmp_path / "mybot", "knobvm")
    runtime = _runtime(tmp_path)
    bare_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{runtime}:{bare_path}")  # the head node (and the driver) have it
    monkeypatch.setenv("TUNE_PROGRAM_CACHE", str(tmp_path / "head-cache"))
    worker_cache = tmp_path / "worker-cache"
    (tmp_path / "s.toml").write_text(STUDY.format(command="knobvm knob.py"))
    storage = f"sqlite:///{tmp_path}/s.db"
    with two_nodes({"TUNE_PROGRAM_CACHE": str(worker_cache), "PATH": bare_path}) as (address, env):
        checked = _tune(env, tmp_path, "check", "s.toml", "--ray-address", address)
        refused = _tune(env, tmp_path, "launch", "s.toml", "--storage", storage, "--ray-address", address)
        # a node that joins mid-study refuses at its first game just the same (the start check skipped)
        mid = _drive(address, env, "knobvm knob.py --skill {skill} --seed {game_seed}", folder, worker_cache,
                     check="skip")
    assert checked.returncode == 2 and checked.stderr.count("\n") == 1, checked.stderr[-2000:]
    verdicts = sorted(line.rsplit(": ", 1)[1] for line in checked.stdout.splitlines() if line.startswith("node "))
    assert verdicts == ["1 problem(s)", "ok"], checked.stdout  # the head has the runtime, the worker not
    assert checked.stdout.splitlines()[0].startswith("shipped program 'program': 2 files")
    assert refused.returncode == 2, refused.stderr[-2000:]
    lines = said(refused)
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for line in (lines[0][len("error: "):], mid["refused"]):
        assert re.match(r"node \S+ \(Ray node [0-9a-f]{8} at [0-9.]+\): ", line), line  # host (Ray node, address)
        assert "the study's program 'knobvm knob.py --skill" in line and "\n" not in line
        assert "needs 'knobvm', which is not on this node's PATH" in line
