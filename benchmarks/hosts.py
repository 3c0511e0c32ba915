"""A study across real hosts, on one machine: five Linux network namespaces on a private bridge.

Each host has its own address, its own loopback, its own private ``/tmp``, ``/dev/shm`` and home
(a mount namespace with tmpfs over them) and shares only the installed package, read-only (the
checkout and its virtualenv bound read-only; the compiled kernels copied into its home):

- ``db``      PostgreSQL of its own (initdb into its private /tmp, run as the postgres user,
              listening on its address only, password authentication);
- ``head``    the Ray head, token authentication, no CPUs;
- ``w1``, ``w2`` Ray worker nodes joined to the head's address, one CPU each;
- ``driver``  a Ray node without CPUs that runs ``tune launch`` and ``tune validate``.

Each host is also a process namespace (Ray finds "its" node among the processes it sees) with a
host name of its own. The bridge lives in a namespace of its own with no uplink and no host has a
default route: a packet can only go to another host of the drill (``SUBNET``).

First a study whose tuned bot is the example C program (studies/examples/mybot.c), built on the
driver host only, against a frozen copy of itself: ``tune check`` ships it to both worker hosts
and checks it there (the frozen copy's fingerprint), and its games are played there from the
shipped copy (``program_shipped``); then ``tune resume`` on w1, which never had the program's
folder, plays one more trial of it. Then the drill runs one small study of the in-process bot
twice, from the same study file and seeds, each in its own database: undisturbed, then
disturbed: every process of host ``w2`` is SIGKILLed while it plays a batch; host ``db`` is cut
off the bridge for ``DB_CUT_SECONDS`` and brought back; the driver is SIGKILLed and the study
resumed with ``tune resume`` from host ``w1``. Then it compares: trials
(states, parameters, values), every game row of every phase and ``tune validate``'s output must be
identical, no game lost, none stored twice.

    python -m benchmarks.hosts [--json] [--workdir DIR] [--no-program]

needs root (namespaces, mounts, a bridge); every namespace and process it made is removed at
the end, also on failure or Ctrl-C.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

__all__ = ["SUBNET", "ADDRESSES", "namespaces_problem", "Cluster", "HostsReport", "run_drill", "main"]

SUBNET = "10.46.46"  # a /24 that exists only on the drill's bridge
ADDRESSES = {"db": f"{SUBNET}.2", "head": f"{SUBNET}.3", "w1": f"{SUBNET}.4", "w2": f"{SUBNET}.5",
             "driver": f"{SUBNET}.6"}
WORKERS = ("w1", "w2")
RAY_PORT = 6379  # each host has its own ports: no clash with the machine's Redis
PG_PORT = 5432  # the same: the machine's own PostgreSQL is in another namespace
DB_CUT_SECONDS = 20.0
STUDY = "hosts"
REFERENCE_DB, DRILL_DB = "ocean_ref", "ocean_run"
_PREFIX = "ocean-hosts-"  # namespaces ocean-hosts-<pid>-<host>: a dead drill's are found by pid
_REPO = Path(__file__).resolve().parents[1]
_STEP_LIMIT = 600.0  # a step taking longer than this is hung (a guard, not a measure)


# --- can this machine do it ------------------------------------------------------------------------

def namespaces_problem() -> str | None:
    """Why the drill cannot run here (one line), or None."""
    if os.geteuid() != 0:
        return "needs root (network and mount namespaces, a bridge)"
    for tool in ("ip", "unshare", "nsenter", "runuser"):
        if shutil.which(tool) is None:
            return f"needs the {tool} command"
    if _pg_bin() is None:
        return "needs PostgreSQL's server programs (initdb, postgres: apt-get install postgresql)"
    probe = f"{_PREFIX}probe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip() or made.returncode}"
    try:
        mount = subprocess.run(["ip", "netns", "exec", probe, "unshare", "--mount", "--propagation", "private",
                                "sh", "-c", "mount -t tmpfs probe /mnt"], capture_output=True, text=True)
        if mount.returncode != 0:
            return f"cannot mount in a mount namespace: {mount.stderr.strip() or mount.returncode}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise DrillError(f"{' '.join(argv)}: {done.stderr.strip() or done.returncode}")
    return done


class DrillError(RuntimeError):
    """The drill could not set up or carry out a step (one line)."""


# --- the hosts -----------------------------------------------------------------------------------

_HOST_SETUP = r"""
set -e
# stage the shared files before tmpfs hides them (the checkout may live under /tmp or a home)
hostname "$OCEAN_HOST_NAME"
mount -t tmpfs -o size=16m,mode=755 ocean-stage /mnt
for i in $(seq 1 $#); do mkdir /mnt/$i; done
i=0; for p in "$@"; do i=$((i+1)); mount --bind "$p" /mnt/$i; mount -o remount,bind,ro /mnt/$i; done
if [ -d "$OCEAN_HOST_CACHE" ]; then mkdir /mnt/cache; mount --bind "$OCEAN_HOST_CACHE" /mnt/cache; fi
mount -t tmpfs -o mode=1777 ocean-tmp /tmp
mount -t tmpfs -o mode=1777 ocean-shm /dev/shm
mount -t tmpfs -o mode=700 ocean-home "$HOME"
i=0; for p in "$@"; do i=$((i+1)); mkdir -p "$p"; mount --move /mnt/$i "$p"; done
if [ -d /mnt/cache ]; then
    kernels="$HOME/.cache/ocean-lab/${OCEAN_HOST_CACHE##*/}"
    mkdir -p "$kernels" && cp -a /mnt/cache/. "$kernels/"
    umount /mnt/cache
fi
umount /mnt
echo ready
# PID 1 of the host: reaps every orphan, as a machine's init does
exec "$OCEAN_HOST_PYTHON" -c 'import os, time
while True:
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        time.sleep(1)'
"""


class Cluster:
    """The five hosts: namespaces, bridge, mount namespaces, and the processes started in them.
    A context manager: everything is removed on exit."""

    def __init__(self, workdir: Path, log: Callable[[str], None]) -> None:
        self.workdir = workdir
        self.log = log
        self.tag = f"{_PREFIX}{os.getpid()}"
        self.net = f"{self.tag}-net"
        self.anchors: dict[str, subprocess.Popen] = {}
        self.nodes: dict[str, subprocess.Popen] = {}  # host: its ray start --block
        self._init: dict[str, int] = {}
        self.token = secrets.token_hex(32)
        self.password = secrets.token_hex(16)
        self._made: list[str] = []

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    # setting up

    def __enter__(self) -> "Cluster":
        try:
            _remove_dead_drills()
            self._network()
            self._mounts()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _network(self) -> None:
        _run("ip", "netns", "add", self.net)
        self._made.append(self.net)
        _run("ip", "-n", self.net, "link", "add", "name", "br0", "type", "bridge")
        _run("ip", "-n", self.net, "link", "set", "br0", "up")
        for host, address in ADDRESSES.items():
            ns = self.ns(host)
            _run("ip", "netns", "add", ns)
            self._made.append(ns)
            _run("ip", "-n", self.net, "link", "add", "name", f"v-{host}", "type", "veth", "peer", "name", "eth0",
                 "netns", ns)
            _run("ip", "-n", self.net, "link", "set", f"v-{host}", "master", "br0", "up")
            _run("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
            _run("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
            _run("ip", "-n", ns, "link", "set", "eth0", "up")
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        self.log(f"network: bridge in namespace {self.net}, hosts " +
                 ", ".join(f"{h} {a}" for h, a in ADDRESSES.items()) + f" on {SUBNET}.0/24, no route out")

    def _mounts(self) -> None:
        shared = [_REPO]
        # the virtualenv, and the interpreter it points at (pyenv's lives in a home)
        for path in (Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()):
            if not any(path.is_relative_to(p) for p in shared):
                shared.append(path)
        shared = [str(p) for p in shared]
        from ocean._cache import cache_folder

        cache = cache_folder()  # the kernels ocean warmup compiled: copied, as a baked image has them
        for host in ADDRESSES:
            env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "OCEAN_HOST_CACHE": cache,
                   "OCEAN_HOST_PYTHON": sys.executable, "OCEAN_HOST_NAME": host}
            # a process namespace too: Ray finds "its" node by looking at the processes it sees
            proc = subprocess.Popen(["ip", "netns", "exec", self.ns(host), "unshare", "--mount", "--propagation",
                                     "private", "--pid", "--fork", "--mount-proc", "--uts", "sh", "-c", _HOST_SETUP,
                                     "ocean-host", *shared],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            self.anchors[host] = proc
            line = proc.stdout.readline().strip()
            if line != "ready":
                raise DrillError(f"host {host} did not come up: {proc.stderr.read().strip()[-300:]}")
        self.log(f"hosts: private /tmp, /dev/shm and home each; {', '.join(shared)} shared read-only")

    # running things on a host

    def env(self, host: str, extra: dict | None = None) -> dict:
        """The environment of a process on ``host``: nothing of this machine's but the basics."""
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TERM", "OPENBLAS_CORETYPE",
                                                             "OPENBLAS_L2_SIZE")}
        return {**keep, "PATH": f"{Path(sys.executable).parent}:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
                "TMPDIR": "/tmp", "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
                "RAY_AUTH_TOKEN": self.token, "PYTHONDONTWRITEBYTECODE": "1", **(extra or {})}

    def popen(self, host: str, argv: list[str], *, env: dict | None = None, log: str | None = None,
              stdin=subprocess.DEVNULL, user: str | None = None, cwd: str = "/tmp") -> subprocess.Popen:
        """Start ``argv`` on ``host`` (its own session); output to ``workdir/log`` (or piped)."""
        # (nsenter's --wd opens the folder before it enters the host: the machine's, not the host's)
        prefix = ["nsenter", "-t", str(self.init(host)), "-m", "-n", "-p", "-u", "--"]
        if user:
            prefix += ["runuser", "-u", user, "--"]
        out = open(self.workdir / log, "ab") if log else subprocess.PIPE
        try:
            variables = [f"{k}={v}" for k, v in (env or self.env(host)).items()]
            return subprocess.Popen([*prefix, "env", "-i", "-C", cwd, *variables, *argv], stdin=stdin, stdout=out,
                                    stderr=subprocess.STDOUT if log else subprocess.PIPE, start_new_session=True)
        finally:
            if log:
                out.close()

    def run(self, host: str, argv: list[str], *, input: str | None = None, user: str | None = None,
            env: dict | None = None, timeout: float = _STEP_LIMIT, check: bool = True,
            cwd: str = "/tmp") -> subprocess.CompletedProcess:
        """Run ``argv`` on ``host`` to its end; its output (a failure is one line)."""
        proc = self.popen(host, argv, env=env, stdin=subprocess.PIPE, user=user, cwd=cwd)
        try:
            out, err = proc.communicate(input=(input or "").encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            proc.wait()
            raise DrillError(f"on {host}: {' '.join(argv[:3])} ... still running after {timeout:.0f} s") from None
        done = subprocess.CompletedProcess(argv, proc.returncode, out.decode(errors="replace"),
                                           err.decode(errors="replace"))
        if check and done.returncode != 0:
            tail = (done.stderr.strip() or done.stdout.strip())[-800:]
            raise DrillError(f"on {host}: {' '.join(argv[:4])} ... exited {done.returncode}: {tail}")
        return done

    def init(self, host: str) -> int:
        """The pid (here) of ``host``'s PID 1."""
        if host not in self._init:
            children = Path(f"/proc/{self.anchors[host].pid}/task/{self.anchors[host].pid}/children").read_text()
            self._init[host] = int(children.split()[0])
        return self._init[host]

    def pids(self, host: str) -> list[int]:
        """Every process of ``host`` (by its network namespace)."""
        return [int(p) for p in _run("ip", "netns", "pids", self.ns(host), check=False).stdout.split()]

    def kill_host(self, host: str) -> int:
        """SIGKILL every process of ``host``, as a power cut would; how many."""
        killed = 0
        for _ in range(5):  # a process forking while we kill: look again
            pids = self.pids(host)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        return killed

    def cut(self, host: str, cut: bool) -> None:
        """Take ``host``'s cable out of the bridge (``cut``), or put it back."""
        _run("ip", "-n", self.net, "link", "set", f"v-{host}", "down" if cut else "up")

    def close(self) -> None:
        """Kill every process of every host, delete the namespaces (their mounts go with their
        processes)."""
        for ns in reversed(self._made):
            for _ in range(10):
                pids = [int(p) for p in _run("ip", "netns", "pids", ns, check=False).stdout.split()]
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.2)
        for proc in self.anchors.values():
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for ns in reversed(self._made):
            _run("ip", "netns", "del", ns, check=False)
        self._made.clear()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _remove_dead_drills() -> None:
    """Namespaces left by a drill that was SIGKILLed (its pid is gone): removed with their processes."""
    listed = _run("ip", "netns", "list", check=False).stdout.split("\n")
    for line in listed:
        name = line.split(" ")[0]
        if not name.startswith(_PREFIX):
            continue
        pid = name[len(_PREFIX):].split("-")[0]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        for p in _run("ip", "netns", "pids", name, check=False).stdout.split():
            try:
                os.kill(int(p), signal.SIGKILL)
            except ProcessLookupError:
                pass
        _run("ip", "netns", "del", name, check=False)


# --- the services ----------------------------------------------------------------------------------

def start_database(c: Cluster) -> None:
    """PostgreSQL on host db: a private data directory, its address only, passwords required."""
    bin_ = _pg_bin()
    address = ADDRESSES["db"]
    c.run("db", ["sh", "-c", "mkdir -p /tmp/pg && chown postgres: /tmp/pg && umask 077 && "
                             "cat > /tmp/pg/pw && chown postgres: /tmp/pg/pw"], input=c.password)
    c.run("db", [str(bin_ / "initdb"), "-D", "/tmp/pg/data", "-U", "postgres", "--pwfile=/tmp/pg/pw",
                 "--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"],
          user="postgres", env=c.env("db", {"LANG": "C.UTF-8"}))
    c.run("db", ["sh", "-c", f"echo 'host all all {SUBNET}.0/24 scram-sha-256' >> /tmp/pg/data/pg_hba.conf"],
          user="postgres")
    c.popen("db", [str(bin_ / "postgres"), "-D", "/tmp/pg/data", "-c", f"listen_addresses={address}",
                   "-c", "unix_socket_directories=/tmp/pg", "-c", f"port={PG_PORT}"],
            user="postgres", log="db-postgres.log")
    env = c.env("db", {"PGPASSWORD": c.password})
    deadline = time.monotonic() + 60
    while c.run("db", ["pg_isready", "-q", "-h", address, "-p", str(PG_PORT)], check=False).returncode != 0:
        if time.monotonic() > deadline:
            raise DrillError(f"PostgreSQL on db did not start (files: {c.workdir}/db-postgres.log)")
        time.sleep(0.5)
    sql = [f"CREATE ROLE tuner LOGIN PASSWORD '{c.password}'", f"CREATE DATABASE {REFERENCE_DB} OWNER tuner",
           f"CREATE DATABASE {DRILL_DB} OWNER tuner"]
    c.run("db", ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", "/tmp/pg", "-U", "postgres",
                 *(a for s in sql for a in ("-c", s))], env=env)
    c.log(f"db: PostgreSQL on {address}:{PG_PORT} (password auth), databases {REFERENCE_DB} and {DRILL_DB}")


def storage_url(c: Cluster, database: str) -> str:
    return f"postgresql+psycopg://tuner:{c.password}@{ADDRESSES['db']}:{PG_PORT}/{database}"


def ray_address() -> str:
    return f"{ADDRESSES['head']}:{RAY_PORT}"


def _ray(c: Cluster, host: str, args: list[str]) -> subprocess.Popen:
    proc = c.popen(host, ["ray", "start", *args, f"--node-ip-address={ADDRESSES[host]}",
                          "--object-store-memory=100000000", "--disable-usage-stats", "--block"],
                   log=f"{host}-ray.log")
    c.nodes[host] = proc
    return proc


def start_ray(c: Cluster) -> None:
    """The head (no CPUs), one CPU on each worker host, the driver host a node without CPUs."""
    _ray(c, "head", ["--head", f"--port={RAY_PORT}", "--num-cpus=0", "--include-dashboard=false"])
    _wait_ray(c, "the head", lambda out: "Resources" in out)
    for host in (*WORKERS, "driver"):
        _ray(c, host, [f"--address={ray_address()}", f"--num-cpus={1 if host in WORKERS else 0}"])
        time.sleep(1)  # nodes registering at once can fail to join on a loaded machine
    _wait_ray(c, "the worker hosts", lambda out: f"/{float(len(WORKERS))} CPU" in out
              and out.count("node_") >= 4)
    c.log(f"head: Ray on {ray_address()} with token authentication, no CPUs; w1, w2 one CPU each; driver "
          f"a node without CPUs")


def _wait_ray(c: Cluster, what: str, ok: Callable[[str], bool], timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        status = c.run("driver" if "worker" in what else "head", ["ray", "status", f"--address={ray_address()}"],
                       check=False, timeout=60)
        if status.returncode == 0 and ok(status.stdout):
            return
        for host, node in c.nodes.items():
            if node.poll() is not None:
                tail = (c.workdir / f"{host}-ray.log").read_text(errors="replace").strip()[-300:]
                raise DrillError(f"the Ray node on {host} stopped (exit {node.returncode}): {tail}")
        if time.monotonic() > deadline:
            raise DrillError(f"{what} did not come up in {timeout:.0f} s (logs in {c.workdir}): "
                             f"{(status.stdout + status.stderr).strip()[-300:]}")
        time.sleep(2)


# --- the study --------------------------------------------------------------------------------------

def study_toml(*, n_trials: int, pairs: int, batch_pairs: int) -> str:
    """The drill's study: the chaos drills' (random sampler, no pruning: the games needed are
    known), storage and cluster named by the environment as in studies/cluster.toml."""
    from benchmarks.chaos import chaos_study_toml

    text = chaos_study_toml(STUDY, n_trials=n_trials, pairs=pairs, batch_pairs=batch_pairs)
    head, _, rest = text.partition("\n")
    return f'{head}\nstorage = "${{OCEAN_STORAGE}}"\nray_address = "${{OCEAN_RAY_ADDRESS}}"\n{rest}'


def _study_env(c: Cluster, host: str, database: str) -> dict:
    return c.env(host, {"OCEAN_STORAGE": storage_url(c, database), "OCEAN_RAY_ADDRESS": ray_address()})


def _tune(c: Cluster, host: str, database: str, args: list[str], log: str) -> subprocess.Popen:
    return c.popen(host, ["tune", *args], env=_study_env(c, host, database), log=log)


def _wait(proc: subprocess.Popen, what: str, c: Cluster, log: str) -> None:
    try:
        code = proc.wait(timeout=_STEP_LIMIT)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        raise DrillError(f"{what} still running after {_STEP_LIMIT:.0f} s (output: {c.workdir / log})") from None
    if code != 0:
        tail = (c.workdir / log).read_text(errors="replace").strip()[-800:]
        raise DrillError(f"{what} exited {code}: {tail}")


def _digest(c: Cluster, database: str) -> dict:
    """What the study stored in ``database`` (read on host db through its own socket)."""
    out = c.run("db", [sys.executable, "-m", "benchmarks.hosts", "--digest", database],
                env=c.env("db", {"OCEAN_STORAGE": storage_url(c, database).replace(
                    f"@{ADDRESSES['db']}:{PG_PORT}/{database}", f"@/{database}?host=/tmp/pg")}),
                timeout=180, cwd=str(_REPO))
    return json.loads(out.stdout.strip().splitlines()[-1])


def _print_digest(database: str) -> None:
    """``--digest``: the study's trials and every game row, as JSON (run on host db)."""
    import sqlalchemy as sa

    from benchmarks.chaos import _optuna_storage, duplicate_rows
    from tuning.storage.records import GameRecord as G

    url = os.environ["OCEAN_STORAGE"]
    out: dict = {"trials": {}, "rows": {}, "duplicates": 0}
    engine = sa.create_engine(url)
    try:
        if "ocean_games" in sa.inspect(engine).get_table_names():
            key = (G.trial, G.phase, G.opponent, G.seed, G.side)
            skip = {"id", "study", "created_at", "duration", "seconds", "worker", "host"}
            content = [col for col in G.__table__.columns if col.name not in skip
                       and col.name not in {"trial", "phase", "opponent", "seed", "side"}
                       and not col.name.endswith(("_seconds", "_ms"))]
            with engine.connect() as conn:
                for row in conn.execute(sa.select(*key, *content).where(G.study == STUDY)):
                    out["rows"][json.dumps(list(row[:5]))] = [repr(v) for v in row[5:]]
            out["duplicates"] = duplicate_rows(url, STUDY)
    finally:
        engine.dispose()
    if out["rows"]:
        storage = _optuna_storage(url)
        try:
            for t in storage.get_all_trials(storage.get_study_id_from_name(STUDY), deepcopy=False):
                out["trials"][t.number] = [t.state.name, t.params, t.value]
        finally:
            storage.engine.dispose()
    print(json.dumps(out))


def _train_rows(digest: dict) -> int:
    return sum(1 for k in digest["rows"] if json.loads(k)[1] == "train")


# --- the program study ------------------------------------------------------------------------------

PROGRAM_STUDY = "hostsc"
_BOT_DIR = "/root/mybot"  # on the driver host only: its private home
_PROGRAM_TOML = f"""\
name = "{PROGRAM_STUDY}"
storage = "${{OCEAN_STORAGE}}"
ray_address = "${{OCEAN_RAY_ADDRESS}}"
n_trials = 2
trials_in_flight = 2
panel = ["mybotc-v1", "hunter-v1"]   # the same C program, frozen: its fingerprint is checked on each node
seed_bank = {{ start = 1, count = 1000 }}
games_per_opponent = 4
batch_pairs = 1
timeout_scale = 4.0

[time]
turn_ms = 5

[bot]
command = "./mybot --fire_probability {{fire_probability}} --approach {{approach}} --silence_below {{silence_below}} --rollouts 16 --seed {{game_seed}}"

[search]
fire_probability = {{ low = 0.0, high = 1.0, default = 0.9 }}
approach = {{ low = -2.0, high = 2.0, default = 0.0 }}
silence_below = {{ low = 0, high = 100, integer = true, default = 0 }}

[sampler]
kind = "random"
seed = 1

[pruning]
enabled = false

[validation]
seeds = {{ start = 1000000, count = 10 }}
games = 2
top_k = 1
"""


def program_study(c: Cluster) -> dict:
    """The example C bot (studies/examples/mybot.c), built on the driver host only, tuned against
    a frozen copy of itself: shipped to both worker hosts, checked there, played there."""
    source = (_REPO / "studies" / "examples" / "mybot.c").read_text()
    c.run("driver", ["sh", "-c", f"mkdir -p {_BOT_DIR} && cat > {_BOT_DIR}/mybot.c && "
                                 f"cc -O2 -o {_BOT_DIR}/mybot {_BOT_DIR}/mybot.c -lm"], input=source)
    c.run("driver", ["sh", "-c", f"cat > {_BOT_DIR}/{PROGRAM_STUDY}.toml"], input=_PROGRAM_TOML)
    env = _study_env(c, "driver", REFERENCE_DB)
    c.run("driver", ["ocean", "panel", "add", "mybotc-v1", "--command",
                     "./mybot --seed {game_seed} --turn-ms {turn_ms} --rollouts 16", "--cwd", _BOT_DIR,
                     "--turn-ms", "5"], env=env, cwd=_BOT_DIR)
    check = c.run("driver", ["tune", "check", f"{PROGRAM_STUDY}.toml", "--json"], env=env, cwd=_BOT_DIR)
    checked = json.loads(check.stdout.strip().splitlines()[-1])
    checked_on = sorted(h for h in WORKERS for n in checked["nodes"]
                        if f"at {ADDRESSES[h]})" in n["node"] and not n["problems"])
    c.log(f"program study: mybot.c built on host driver only; tune check shipped it "
          f"({', '.join(repr(x['program']) for x in checked['shipped'])}: {checked['shipped'][0]['files']} files) "
          f"and checked it on {', '.join(checked_on) or 'no worker host'}" if checked["shipped"] else
          "program study: tune check shipped nothing")
    log = "program-launch.log"
    _wait(_tune(c, "driver", REFERENCE_DB, ["launch", f"{_BOT_DIR}/{PROGRAM_STUDY}.toml"], log),
          "the program study's launch", c, log)
    games = _count_games(c, REFERENCE_DB, PROGRAM_STUDY)
    landed = {}
    for host in WORKERS:  # the shipped copy, unpacked on the worker host; the driver's folder is not there
        found = c.run(host, ["sh", "-c", f"test ! -e {_BOT_DIR} && find /tmp/tune-programs-0 -name mybot -type f"],
                      check=False)
        landed[host] = found.returncode == 0 and bool(found.stdout.strip())
    c.log(f"program study: {games} games stored, played on the worker hosts from the shipped copy "
          f"(unpacked on {', '.join(h for h, ok in landed.items() if ok) or 'none'})")
    # one more trial, driven from w1, where the program's folder does not exist: the driver ships
    # the copy the nodes hold
    log = "program-resume.log"
    _wait(_tune(c, "w1", REFERENCE_DB, ["resume", PROGRAM_STUDY, "--trials", "3", "--ray-address", ray_address()],
                log), "the program study's resume on w1", c, log)
    more = _count_games(c, REFERENCE_DB, PROGRAM_STUDY) - games
    c.log(f"program study resumed on w1 (no program folder there): one more trial, {more} more games")
    return {"games": games + more, "checked_on": checked_on, "landed": landed, "resumed_elsewhere": more > 0,
            "shipped": bool(checked["shipped"]) and games > 0 and any(landed.values())
            and checked_on == sorted(WORKERS)}


def _count_games(c: Cluster, database: str, study: str) -> int:
    return int(c.run("db", ["psql", "-tA", "-h", "/tmp/pg", "-U", "tuner", "-d", database, "-c",
                            f"SELECT count(*) FROM ocean_games WHERE study = '{study}'"],
                     env=c.env("db", {"PGPASSWORD": c.password})).stdout.strip())


# --- the drill ------------------------------------------------------------------------------------

@dataclass
class HostsReport:
    """The figures of a drill; ``ok`` when every guarantee held."""

    hosts: int = len(ADDRESSES)
    identical: bool = False
    lost: int = 0
    duplicates: int = 0
    program_shipped: bool = False  # the C program ran on worker hosts from shipped files, checked on both
    program_games: int = 0
    program_checked_on: list[str] = field(default_factory=list)
    program_resumed_elsewhere: bool = False  # its study carried on from w1, which never had its folder
    faults: list[str] = field(default_factory=list)
    trials: int = 0
    games: int = 0
    validated_best: str = ""
    differences: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (self.identical and self.lost == 0 and self.duplicates == 0 and not self.problems
                and set(self.faults) >= {"worker_host_killed", "database_cut", "driver_moved"})


def _compare(got: dict, want: dict) -> list[str]:
    out = []
    if got["trials"] != want["trials"]:
        out.append(f"trials differ: {got['trials']} vs {want['trials']}")
    missing = set(want["rows"]) - set(got["rows"])
    extra = set(got["rows"]) - set(want["rows"])
    changed = [k for k in set(got["rows"]) & set(want["rows"]) if got["rows"][k] != want["rows"][k]]
    if missing or extra or changed:
        out.append(f"game rows differ: {len(missing)} missing, {len(extra)} extra, {len(changed)} with other results")
    return out


def _best_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if "best" in line and line.startswith("at ")), "")


class _Drill:
    def __init__(self, c: Cluster, report: HostsReport, *, n_trials: int, pairs: int, batch_pairs: int) -> None:
        self.c, self.r = c, report
        self.toml = study_toml(n_trials=n_trials, pairs=pairs, batch_pairs=batch_pairs)
        self.needed = n_trials * 2 * 2 * pairs  # two opponents, two games a map

    def write_study(self) -> None:
        # the study file exists on the driver host only, like a user's checkout
        self.c.run("driver", ["sh", "-c", f"mkdir -p /root/study && cat > /root/study/{STUDY}.toml"], input=self.toml)

    def undisturbed(self) -> tuple[dict, str]:
        c = self.c
        t0 = time.monotonic()
        log = "reference-launch.log"
        _wait(_tune(c, "driver", REFERENCE_DB, ["launch", f"/root/study/{STUDY}.toml"], log), "the reference launch",
              c, log)
        validate = self.validate("driver", REFERENCE_DB, "reference-validate.log")
        c.log(f"undisturbed run: {self.needed} training games, launch and validate in {time.monotonic() - t0:.0f} s; "
              f"{_best_line(validate)}")
        return _digest(c, REFERENCE_DB), validate

    def validate(self, host: str, database: str, log: str) -> str:
        _wait(_tune(self.c, host, database, ["validate", STUDY, "--ray-address", ray_address()], log),
              f"tune validate on {host}", self.c, log)
        return (self.c.workdir / log).read_text(errors="replace")

    def _stored(self) -> int:
        return _train_rows(_digest(self.c, DRILL_DB)) if self._exists else 0

    def disturbed(self) -> tuple[dict, str]:
        c = self.c
        self._exists = False
        log = "drill-launch.log"
        driver = _tune(c, "driver", DRILL_DB, ["launch", f"/root/study/{STUDY}.toml"], log)
        snapshots: list[dict] = []
        # 1. host w2 dies with everything on it while it plays a batch
        deadline = time.monotonic() + _STEP_LIMIT
        while not self._busy("w2"):
            if driver.poll() is not None or time.monotonic() > deadline:
                raise DrillError(f"w2 never played a batch before the study ended (output: {c.workdir / log})")
            time.sleep(0.05)
        killed = c.kill_host("w2")
        self._exists = True
        c.log(f"fault 1: killed every process of host w2 ({killed}) in the middle of a batch")
        self.r.faults.append("worker_host_killed")
        # 2. the database goes off the bridge for a while, once games are being stored again
        base = self._progress(driver, 1, log)
        snapshots.append(_digest(c, DRILL_DB))
        c.cut("db", True)
        c.log(f"fault 2: host db cut off the bridge for {DB_CUT_SECONDS:.0f} s ({base} games stored)")
        time.sleep(DB_CUT_SECONDS)
        c.cut("db", False)
        self.r.faults.append("database_cut")
        c.log("db back on the bridge")
        # 3. the driver dies; the study goes on from another host
        stored = self._progress(driver, base + 1, log)
        _kill_group(driver.pid)
        driver.wait()
        snapshots.append(_digest(c, DRILL_DB))
        c.log(f"fault 3: killed the driver on host driver ({stored} games stored); tune resume {STUDY} on host w1")
        log = "drill-resume.log"
        _wait(_tune(c, "w1", DRILL_DB, ["resume", STUDY, "--ray-address", ray_address()], log), "tune resume on w1",
              c, log)
        self.r.faults.append("driver_moved")
        validate = self.validate("w1", DRILL_DB, "drill-validate.log")
        final = _digest(c, DRILL_DB)
        for snap in snapshots:
            self.r.lost += sum(1 for k, v in snap["rows"].items() if final["rows"].get(k) != v)
        return final, validate

    def _busy(self, host: str) -> bool:
        """Whether a Ray worker of ``host`` is playing a batch of the study now."""
        for pid in self.c.pids(host):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ray::play_batch"):
                return True
        return False

    def _progress(self, driver: subprocess.Popen, at_least: int, log: str) -> int:
        """Wait until ``at_least`` training games are stored, the study not finished yet."""
        deadline = time.monotonic() + _STEP_LIMIT
        while True:
            stored = self._stored()
            if stored >= self.needed or driver.poll() is not None:
                raise DrillError(f"the study ended before the next fault ({stored} of {self.needed} games stored; "
                                 f"make its trials longer); output: {self.c.workdir / log}")
            if stored >= at_least:
                return stored
            if time.monotonic() > deadline:
                raise DrillError(f"no progress: {stored} games stored (output: {self.c.workdir / log})")
            time.sleep(0.5)


def run_drill(workdir: Path, *, n_trials: int = 4, pairs: int = 300, batch_pairs: int = 50, programs: bool = True,
              log: Callable[[str], None] = lambda line: None) -> HostsReport:
    """Build the hosts, run the study undisturbed and disturbed, compare; remove everything."""
    start = time.monotonic()
    report = HostsReport()
    _warm_kernels(log)
    with Cluster(workdir, log) as c:
        start_database(c)
        start_ray(c)
        if programs:
            shipped = program_study(c)
            report.program_shipped = shipped["shipped"]
            report.program_games = shipped["games"]
            report.program_checked_on = shipped["checked_on"]
            report.program_resumed_elsewhere = shipped["resumed_elsewhere"]
        drill = _Drill(c, report, n_trials=n_trials, pairs=pairs, batch_pairs=batch_pairs)
        drill.write_study()
        reference, ref_validate = drill.undisturbed()
        final, validate = drill.disturbed()
        report.trials = len(final["trials"])
        report.games = len(final["rows"])
        report.duplicates = final["duplicates"]
        report.validated_best = _best_line(validate)
        report.differences = _compare(final, reference)
        if _best_line(validate) != _best_line(ref_validate) or not report.validated_best:
            report.differences.append(f"validated best differs: {_best_line(validate)!r} vs "
                                      f"{_best_line(ref_validate)!r}")
        report.lost += len(set(reference["rows"]) - set(final["rows"]))
        report.identical = not report.differences
    report.seconds = round(time.monotonic() - start, 1)
    return report


def _warm_kernels(log: Callable[[str], None]) -> None:
    """Compile the kernels once here (``ocean warmup``): each host gets a copy, as from a baked image."""
    t0 = time.monotonic()
    subprocess.run([str(Path(sys.executable).parent / "ocean"), "warmup"], check=True, capture_output=True)
    log(f"kernels compiled ({time.monotonic() - t0:.0f} s)")


# --- command line ----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.hosts``: exit 0 when every guarantee held."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.hosts", description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object, last line")
    p.add_argument("--trials", type=int, default=4, help="trials of the drill study (default 4)")
    p.add_argument("--pairs", type=int, default=300, help="maps per opponent (2 games each; default 300)")
    p.add_argument("--batch-pairs", type=int, default=50, help="maps per Ray task (default 50)")
    p.add_argument("--workdir", type=Path, help="keep the hosts' logs here")
    p.add_argument("--no-program", action="store_true", help="leave out the C program's study")
    p.add_argument("--digest", metavar="DATABASE", help=argparse.SUPPRESS)  # run on host db by the drill
    a = p.parse_args(argv)
    if a.digest:
        _print_digest(a.digest)
        return 0
    if min(a.trials, a.pairs, a.batch_pairs) < 1:
        p.error("--trials, --pairs and --batch-pairs must be >= 1")
    problem = namespaces_problem()
    if problem:
        print(f"python -m benchmarks.hosts: {problem}", file=sys.stderr)
        return 2
    workdir = a.workdir or Path(tempfile.mkdtemp(prefix="ocean-hosts-"))
    workdir.mkdir(parents=True, exist_ok=True)

    def log(line: str) -> None:
        print(line, file=sys.stderr if a.json else sys.stdout, flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt  # SIGTERM cleans up as Ctrl-C does

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        report = run_drill(workdir, n_trials=a.trials, pairs=a.pairs, batch_pairs=a.batch_pairs,
                           programs=not a.no_program, log=log)
    except KeyboardInterrupt:
        print("interrupted: every host, namespace and process of the drill removed", file=sys.stderr)
        return 130
    except DrillError as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        if a.json:
            print(json.dumps({"ok": False, "error": str(exc)}))
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    for d in report.differences:
        log(f"DIFFERENT: {d}")
    log(f"{report.trials} trials, {report.games} games; lost {report.lost}, stored twice {report.duplicates}; "
        f"{'identical to' if report.identical else 'NOT identical to'} the undisturbed run; faults: "
        f"{', '.join(report.faults)}; {'ok' if report.ok else 'FAILED'} in {report.seconds:.0f} s; logs in {workdir}")
    if a.json:
        print(json.dumps({**asdict(report), "ok": report.ok}))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
