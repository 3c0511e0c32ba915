"""Programs run sandboxed as CodinGame runs them (issue 45): a program that looks for the lab's
secrets finds none, its helpers die with its game, and one that allocates 2 GB is disqualified
for memory. Real bwrap, real subprocesses, real ``ocean referee`` and ``ocean arena``; the same
checks without the sandbox show the finder is not blind."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ocean._process import BotClosed, BotProcess
from ocean._cache import _root
from ocean.sandbox import SandboxPolicy, SandboxUnavailable, unavailable_reason, wrap

PROGRAMS = Path(__file__).parent / "programs"
FINDER = PROGRAMS / "secretfinder.py"
MARKER = "Pw-s3cret-Xq9"  # the finder's marker (secretfinder.MARKER)
PY = sys.executable


@pytest.fixture(autouse=True)
def _bwrap():
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"no sandbox here: {reason}")


def _lab_env(home: Path, **extra) -> dict:
    """The lab's environment holding secrets: a password database URL, PGPASSWORD, Ray's token,
    and a home with Ray's token file in it."""
    (home / ".ray").mkdir(parents=True, exist_ok=True)
    (home / ".ray" / "auth_token").write_text(MARKER)
    return {**os.environ, "HOME": str(home), "NUMBA_CACHE_DIR": _root(),
            "OCEAN_STORAGE": f"postgresql+psycopg://postgres:{MARKER}@127.0.0.1:5432/postgres",
            "PGPASSWORD": MARKER, "RAY_AUTH_TOKEN": MARKER, "AWS_SECRET_ACCESS_KEY": MARKER, **extra}


def _ocean(args: list[str], env: dict, cwd: Path) -> dict:
    result = subprocess.run([PY, "-m", "ocean", *args], capture_output=True, text=True, env=env, cwd=cwd,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _reports(reasons: list[str]) -> list[dict]:
    """The finder's reports: the JSON on stderr's last line, in each crash reason."""
    out = []
    for reason in reasons:
        assert "crashed, exit code 3; stderr: " in reason, reason
        out.append(json.loads(reason.split("stderr: ", 1)[1].rsplit(" (official reason", 1)[0]))
    return out


def _finder(home: Path) -> str:
    return f"{PY} {FINDER} --home {home}"


def test_a_refereed_program_finds_no_secret_and_sees_no_process_of_the_lab(tmp_path):
    home = tmp_path / "home"
    env = _lab_env(home)
    cmd = _finder(home)
    verdict = _ocean(["referee", "--seed", "3", "--p0", cmd, "--p1", cmd, "--json", "--time-scale", "20"], env,
                     tmp_path)
    reports = _reports(verdict["disqualified"])
    assert len(reports) == 2
    for report in reports:
        assert report["n"] == 0, report
        assert report["processes"] <= 3, report  # bwrap's init, the program (and its own children)


def test_without_the_sandbox_the_finder_finds_what_it_can_reach(tmp_path):
    # The control: the same program finds Ray's token file in the lab's home (and PostgreSQL, when
    # it runs here), so its empty reports above are the sandbox's doing. Even then the parent's
    # start-up environment no longer holds the secrets (ocean.progenv.hide_own_secrets).
    home = tmp_path / "home"
    env = _lab_env(home, OCEAN_NO_SANDBOX="1")
    verdict = _ocean(["referee", "--seed", "3", "--p0", _finder(home), "--p1", _finder(home), "--json",
                      "--time-scale", "20"], env, tmp_path)
    for report in _reports(verdict["disqualified"]):
        assert report["n"] >= 1, report
        assert not any(f.startswith("environ of") and f.endswith("(marker)") for f in report["found"]), report
        assert report["processes"] > 3, report


def test_an_arena_program_finds_no_secret(tmp_path):
    home = tmp_path / "home"
    env = _lab_env(home)
    result = subprocess.run([PY, "-m", "ocean", "arena", "--bots", f"cmd:{_finder(home)},random", "--games", "2",
                             "--workers", "1", "--time-scale", "20", "--json"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    reasons = [r for r in _strings(json.loads(text.strip().splitlines()[-1])) if "crashed, exit code 3" in r]
    assert reasons, text[-2000:]
    for report in _reports(reasons):
        assert report["n"] == 0 and report["processes"] <= 3, report


def _strings(value):
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _running(mark: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if mark in cmdline:
                found.append(int(pid))
    return found


HELPER = ("import subprocess, sys\n"
          "subprocess.Popen(['sleep', sys.argv[1]], start_new_session=True)\n"
          "print('started', flush=True)\n"
          "sys.stdin.readline()\n")


def test_a_helper_in_a_new_session_is_gone_when_the_game_ends(tmp_path):
    mark = f"{7000 + os.getpid() % 1000}.{time.monotonic_ns() % 1000}"  # a sleep of our own
    with BotProcess([PY, "-c", HELPER, mark], cwd=str(tmp_path)) as proc:
        assert proc.read_line(60_000) == "started"
        # It runs, in another session (its command line shows in /proc a moment after its start).
        deadline = time.monotonic() + 10
        while not _running(f"sleep {mark}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_running(f"sleep {mark}")) == 1
    deadline = time.monotonic() + 10
    while _running(f"sleep {mark}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(f"sleep {mark}")


def test_a_helper_is_gone_after_an_ocean_referee_game(tmp_path):
    mark = f"{8000 + os.getpid() % 1000}.{time.monotonic_ns() % 1000}"
    script = tmp_path / "helper.py"
    script.write_text(HELPER)
    cmd = f"{PY} {script} {mark}"
    subprocess.run([PY, "-m", "ocean", "referee", "--seed", "3", "--p0", cmd, "--p1", cmd, "--json",
                    "--time-scale", "20"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    time.sleep(0.5)
    assert not _running(f"sleep {mark}")


HOG = "import sys\nsys.stdin.readline()\nb = bytearray(2 * 1024 ** 3)\nprint('7 7', flush=True)\n"


def test_a_program_that_allocates_2_gb_is_disqualified_for_memory(tmp_path):
    script = tmp_path / "hog.py"
    script.write_text(HOG)
    cmd = f"{PY} {script}"
    verdict = _ocean(["referee", "--seed", "3", "--p0", cmd, "--p1", cmd, "--json", "--time-scale", "20"],
                     dict(os.environ), tmp_path)
    for reason in verdict["disqualified"]:
        assert reason.startswith("out of memory, over its memory limit of 768 MB: crashed"), reason


def test_the_memory_limit_is_a_setting(tmp_path):
    # 100 MB is below what the allocation needs, 4 GB above: the same program fails and succeeds.
    code = "import sys\nsys.stdin.readline()\nb = bytearray(300 * 1024 ** 2)\nprint('ok', flush=True)\n"
    with BotProcess([PY, "-c", code], sandbox=SandboxPolicy(memory_mb=100), stderr_tail=4096) as small:
        small.send(["go"])
        with pytest.raises(BotClosed):
            small.read_line(60_000)
        assert small.out_of_memory() == "over its memory limit of 100 MB"
    with BotProcess([PY, "-c", code], sandbox=SandboxPolicy(memory_mb=4096), stderr_tail=4096) as big:
        big.send(["go"])
        assert big.read_line(60_000) == "ok" and big.out_of_memory() == ""


def test_the_folder_is_read_only_unless_asked_and_tmp_and_home_are_private(tmp_path):
    code = ("import os, sys\n"
            "for path in ('out.txt', '/tmp/x', os.path.expanduser('~/y')):\n"
            "    try:\n"
            "        open(path, 'w').write('x'); print('wrote', path, flush=True)\n"
            "    except OSError as exc:\n"
            "        print('refused', path, flush=True)\n")
    with BotProcess([PY, "-c", code], cwd=str(tmp_path)) as proc:
        lines = [proc.read_line(60_000) for _ in range(3)]
    assert lines == ["refused out.txt", "wrote /tmp/x", "wrote /home/program/y"]
    assert not (tmp_path / "out.txt").exists()
    with BotProcess([PY, "-c", code], cwd=str(tmp_path), sandbox=SandboxPolicy(writable_folder=True)) as proc:
        assert proc.read_line(60_000) == "wrote out.txt"
    assert (tmp_path / "out.txt").read_text() == "x"


def test_a_program_has_no_network_and_an_environment_built_from_nothing(tmp_path):
    code = ("import json, os, socket\n"
            "try:\n"
            "    socket.create_connection(('127.0.0.1', 5432), timeout=2); net = 'connected'\n"
            "except OSError as exc:\n"
            "    net = 'refused'\n"
            "print(json.dumps({'net': net, 'env': sorted(os.environ)}), flush=True)\n")
    with BotProcess([PY, "-c", code], env={"PATH": os.environ["PATH"], "BOT_LEVEL": "3"}) as proc:
        seen = json.loads(proc.read_line(60_000))
    assert seen["net"] == "refused"
    assert set(seen["env"]) <= {"PATH", "BOT_LEVEL", "HOME", "TMPDIR", "PWD", "LC_CTYPE"}, seen["env"]


def test_a_required_sandbox_that_cannot_start_refuses_in_one_line_and_else_the_lab_says_so_once(tmp_path):
    # A machine without bwrap: a PATH holding only what the programs below need.
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "true").symlink_to(shutil.which("true"))
    code = ("from ocean._process import BotProcess\n"
            "from ocean.sandbox import SandboxPolicy, SandboxUnavailable\n"
            "try:\n"
            "    BotProcess(['true'], sandbox=SandboxPolicy(required=True))\n"
            "except SandboxUnavailable as exc:\n"
            "    print(exc)\n"
            "for _ in range(3):\n"
            "    BotProcess(['true']).close()\n")
    env = {k: v for k, v in os.environ.items() if k != "OCEAN_NO_SANDBOX"}
    result = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**env, "PATH": str(tools)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("the sandbox is required but cannot start here: bwrap is not installed "
                                     "(apt-get install bubblewrap)")
    # Not required: the programs run, and the lab says so once, in one line naming what they reach.
    warnings = [line for line in result.stderr.splitlines() if "WITHOUT a sandbox" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: programs run WITHOUT a sandbox: bwrap is not "
                                                         "installed"), result.stderr
    assert "sees the lab's processes" in warnings[0] and "reaches the network" in warnings[0]
    # Turned off on purpose (OCEAN_NO_SANDBOX): no warning.
    quiet = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120,
                           env={**env, "OCEAN_NO_SANDBOX": "1"})
    assert quiet.returncode == 0 and "WITHOUT" not in quiet.stderr, quiet.stderr
    assert quiet.stdout.strip() == "the sandbox is required but cannot start here: OCEAN_NO_SANDBOX is set"


def test_wrap_is_a_function_of_the_command_its_folder_and_environment(tmp_path):
    argv, env = wrap(["./bot", "--seed", "3"], str(tmp_path), {"PATH": "/usr/bin"}, SandboxPolicy(memory_mb=512))
    assert argv[0].endswith("bwrap") and argv[-3:] == ["./bot", "--seed", "3"]
    assert any(argv[i:i + 3] == ["--ro-bind", str(tmp_path), str(tmp_path)] for i in range(len(argv)))
    assert any(f"ulimit -d {512 * 1024} " in word for word in argv)
    assert env == {"PATH": "/usr/bin", "HOME": "/home/program", "TMPDIR": "/tmp"}
    assert issubclass(SandboxUnavailable, PermissionError)  # callers report it as a program that cannot start
    writable, _ = wrap(["./bot"], str(tmp_path), {}, SandboxPolicy(writable_folder=True))
    assert any(writable[i:i + 3] == ["--bind", str(tmp_path), str(tmp_path)] for i in range(len(writable)))


def test_a_sandboxed_program_loads_the_labs_kernels_from_its_read_only_cache(tmp_path):
    """A program running the lab's own kernels (``ocean bot``) sees the lab's cache read-only:
    it loads what the lab compiled instead of compiling every kernel again (over a minute per
    game start), and writes nothing there."""
    import numpy as np

    from ocean._cache import cache_folder
    from ocean._jit import copy_into

    copy_into(np.zeros(3), np.ones(3))  # compiled (or loaded) and saved by the lab, unsandboxed
    before = sorted(p.name for p in Path(cache_folder()).rglob("*"))
    code = ("import numpy as np\n"
            "from ocean._jit import copy_into\n"
            "copy_into(np.zeros(3), np.ones(3))\n"
            "print(copy_into.stats.cache_hits.most_common(), copy_into.stats.cache_misses.most_common(), flush=True)\n")
    with BotProcess([PY, "-c", code], cwd=str(tmp_path), stderr_tail=4096) as proc:
        line = proc.read_line(300_000)
    hits, misses = line.split("] [")
    assert "float64" in hits and misses == "]", line
    assert sorted(p.name for p in Path(cache_folder()).rglob("*")) == before
