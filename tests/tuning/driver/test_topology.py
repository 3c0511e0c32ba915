"""The docker-compose topology without Docker: a Ray head and a worker node started with
``ray start`` (token authentication on), a driver joining them with ``--ray-address``, and the
study stored in a real PostgreSQL database."""
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest

import textwrap

from tests.programs.build import HERE
from tests.tuning.cli.test_cli import TINY
from tests.tuning.processes import said

# A long drill: CI runs it (.ci/run), the README's test command leaves it out.
# Multi-node Ray clusters started with ray start (about 1 min).
pytestmark = pytest.mark.drill


KNOB = HERE / "knob.py"


RAY = os.path.join(os.path.dirname(sys.executable), "ray")  # the venv's own ray command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args, env):
    # its own process group, so the node and everything it spawned can be stopped together
    return subprocess.Popen([RAY, "start", *args, "--node-ip-address=127.0.0.1", "--num-cpus=1",
                             "--object-store-memory=100000000", "--block"],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


@contextlib.contextmanager
def two_nodes(worker_env: dict | None = None):
    """A head and a worker node (1 CPU each) on loopback; yields (address, env). ``worker_env``:
    extra environment of the worker node only (its Ray workers inherit it)."""
    port = _free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": uuid.uuid4().hex * 2,
           "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    temp = f"/tmp/rt-{uuid.uuid4().hex[:6]}"  # short: Ray's socket paths must stay under 108 bytes
    head = _start(["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}"], env)
    nodes = [head]
    try:
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        joined = False
        while time.monotonic() < deadline:
            status = subprocess.run([RAY, "status", f"--address={address}"], env=env, capture_output=True, text=True)
            if status.returncode == 0 and len(nodes) == 1:
                nodes.append(_start([f"--address={address}"], {**env, **(worker_env or {})}))
            if "/2.0 CPU" in status.stdout:
                joined = True
                break
            time.sleep(1)
        assert joined, "the worker node never joined the head"
        yield address, env
    finally:
        for proc in reversed(nodes):
            _stop(proc)
        subprocess.run(["rm", "-rf", temp])


@pytest.fixture
def ray_nodes():
    with two_nodes() as nodes:
        yield nodes


def test_a_driver_on_a_started_cluster_runs_a_study_into_postgres(ray_nodes, pg_url, tmp_path):
    address, env = ray_nodes
    (tmp_path / "tiny.toml").write_text(TINY)
    tune = [sys.executable, "-m", "tuning"]
    launched = subprocess.run([*tune, "launch", "tiny.toml", "--storage", pg_url, "--ray-address", address],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert launched.returncode == 0, launched.stderr[-3000:]
    assert "2 Ray CPUs" in launched.stderr  # the head's and the worker node's
    status = subprocess.run([*tune, "status", "tiny", "--json"], cwd=tmp_path, capture_output=True, text=True,
                            env={**env, "OCEAN_STORAGE": pg_url}, timeout=120)
    data = json.loads(status.stdout.strip().splitlines()[-1])
    assert data["trials"]["complete"] == 2 and data["games"]["train"] == 2 * 2 * 3 * 2
    assert data["storage"].startswith("postgresql+psycopg://")
    assert not (tmp_path / "studies").exists()  # nothing went to the default SQLite file
    from tuning.storage.records import GameRecord  # the games are in PostgreSQL, from workers on both nodes
    import sqlalchemy as sa

    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:
        games = conn.execute(sa.select(sa.func.count()).select_from(GameRecord)).scalar()
    engine.dispose()
    assert games == 24


def test_a_program_study_checks_every_node_and_names_the_one_missing_a_dependency(tmp_path):
    # The program runs everywhere but on the worker node, where a library it needs is missing
    # (simulated: the node's JAVA_HOME names a runtime that is not there, and the wrapper exits as
    # a loader would; JAVA_HOME is one of the few variables a program gets, sandboxed or not).
    wrapper = tmp_path / "mybot"
    wrapper.write_text("#!/bin/sh\n"
                       "if [ \"$JAVA_HOME\" = /opt/no-such-runtime ]; then "
                       "echo 'libknob.so: cannot open shared object file' >&2; exit 127; fi\n"
                       f"exec {sys.executable} {KNOB} \"$@\"\n")
    wrapper.chmod(0o755)
    (tmp_path / "s.toml").write_text(textwrap.dedent("""
        name = "nodes"
        n_trials = 2
        panel = ["random"]
        seed_bank = { start = 1, count = 2 }
        timeout_scale = 20
        [bot]
        command = "./mybot --skill {skill} --seed {game_seed}"
        [search]
        skill = { low = 0.9, high = 1.0 }
    """))
    tune = [sys.executable, "-m", "tuning"]
    storage = f"sqlite:///{tmp_path}/s.db"
    with two_nodes({"JAVA_HOME": "/opt/no-such-runtime"}) as (address, env):
        refused = subprocess.run([*tune, "launch", "s.toml", "--storage", storage, "--ray-address", address],
                                 cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2, refused.stderr[-2000:]
    lines = said(refused)
    assert len(lines) == 1 and "(Ray node " in lines[0] and "libknob.so: cannot open" in lines[0], lines
    assert "exit code 127" in lines[0] and "did not answer its first line" in lines[0]
    with two_nodes() as (address, env):  # both nodes sound: the study runs on both
        launched = subprocess.run([*tune, "launch", "s.toml", "--storage", storage, "--ray-address", address],
                                  cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert launched.returncode == 0, launched.stderr[-3000:]
    assert "2 Ray CPUs" in launched.stderr


def test_a_node_that_dies_during_the_program_check_is_left_out_and_the_study_runs_on(tmp_path):
    # The program kills its own worker node (every process of it, as a power cut would) when it
    # starts there: the node dies in the middle of the launch's program check. The check leaves the
    # dead node out (it plays no games) instead of stopping the launch with Ray's error.
    wrapper = tmp_path / "mybot"
    wrapper.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import os, signal, sys

        def parent(pid):
            return int(open(f"/proc/{{pid}}/stat").read().rpartition(")")[2].split()[1])

        if os.environ.get("JAVA_HOME") == "/opt/die-here":
            node, pid = None, os.getppid()
            while pid > 1 and node is None:  # up to the node's `ray start --block`
                cmd = open(f"/proc/{{pid}}/cmdline", "rb").read().split(bytes(1))
                node = pid if b"start" in cmd and b"--block" in cmd else None
                pid = parent(pid)
            victims = []
            for entry in os.listdir("/proc"):  # the node and everything it started, this program too
                p = int(entry) if entry.isdigit() else 0
                while p > 1 and p != node:
                    try:
                        p = parent(p)
                    except OSError:
                        p = 0
                if p == node and node is not None:
                    victims.append(int(entry))
            for p in sorted(victims, key=lambda v: v == os.getpid()):
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        os.execv(sys.executable, [sys.executable, "{KNOB}", *sys.argv[1:]])
        """))
    wrapper.chmod(0o755)
    (tmp_path / "s.toml").write_text(textwrap.dedent("""
        name = "dying"
        n_trials = 2
        panel = ["random"]
        seed_bank = { start = 1, count = 2 }
        timeout_scale = 20
        [bot]
        command = "./mybot --skill {skill} --seed {game_seed}"
        [search]
        skill = { low = 0.9, high = 1.0 }
    """))
    tune = [sys.executable, "-m", "tuning"]
    # The order to die travels in the node's JAVA_HOME (one of the variables a program gets); that
    # node runs its programs unsandboxed, as a sandboxed one could not see, let alone kill, them.
    with two_nodes({"JAVA_HOME": "/opt/die-here", "OCEAN_NO_SANDBOX": "1"}) as (address, env):
        launched = subprocess.run([*tune, "launch", "s.toml", "--storage", f"sqlite:///{tmp_path}/s.db",
                                   "--ray-address", address], cwd=tmp_path, env=env, capture_output=True, text=True,
                                  timeout=400)
        deadline = time.monotonic() + 60  # Ray's own view of its resources follows a node's death late
        while True:
            status = subprocess.run([RAY, "status", f"--address={address}"], env=env, capture_output=True,
                                    text=True)
            if "/1.0 CPU" in status.stdout or time.monotonic() > deadline:
                break
            time.sleep(2)
    assert launched.returncode == 0, launched.stderr[-3000:]
    assert "Traceback" not in launched.stderr and "2 complete" in launched.stderr + launched.stdout
    assert "/1.0 CPU" in status.stdout, status.stdout  # the worker node did die: the head's CPU is left
