"""A program never sees the lab's secrets (issue 32, item 6; issue 45): its environment is built
from nothing (PATH, HOME, locale, ...: ``ocean.progenv.PASSED``) plus its bot's ``env``.
Checked with a real program that dumps its environment, run through ``ocean referee`` and
``ocean arena`` with ``OCEAN_STORAGE`` holding a password URL; the program writes its dump
outside its folder, so these run without the sandbox (``OCEAN_NO_SANDBOX``: the environment is
built the same way; tests/ocean/test_sandbox.py checks the sandbox)."""
import json
import os
import subprocess
import sys
from pathlib import Path

from ocean.progenv import is_secret, program_environment

ENVDUMP = Path(__file__).parent / "programs" / "envdump.py"
PASSWORD = "Pw-s3cret-Xq9"
SECRETS = {
    "OCEAN_STORAGE": f"postgresql+psycopg://lab:{PASSWORD}@db.example:5432/ocean",
    "RAY_ADDRESS": "10.0.0.1:6379", "PGPASSWORD": PASSWORD, "AWS_SECRET_ACCESS_KEY": PASSWORD,
    "GITHUB_TOKEN": PASSWORD, "GH_TOKEN": PASSWORD, "MY_API_KEY": PASSWORD, "SOME_URL": f"redis://:{PASSWORD}@r:6379",
    "DSN": f"host=db user=lab password={PASSWORD}", "GOOGLE_APPLICATION_CREDENTIALS": "/keys/lab.json",
}


def _lab_env() -> dict:
    return {**os.environ, **SECRETS, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "OCEAN_NO_SANDBOX": "1"}


def _check(env: dict) -> None:
    text = json.dumps(env)
    assert PASSWORD not in text and "db.example" not in text, sorted(env)
    assert not set(env) & set(SECRETS), sorted(set(env) & set(SECRETS))
    assert env["PATH"] == os.environ["PATH"] and env["HOME"] == os.environ["HOME"] and env["LANG"] == "C.UTF-8"
    assert set(env) <= {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "VIRTUAL_ENV",
                        "JAVA_HOME", "PYTHONPATH", "NUMBA_CPU_NAME", "OCEAN_PANELS", "NUMBA_CACHE_DIR", "LC_CTYPE",
                        "LC_ALL", "PWD"}, sorted(env)  # PWD: the launching shell's


def test_secrets_are_removed_and_what_a_program_needs_stays():
    env = program_environment({"BOT_LEVEL": "3"}, base={**SECRETS, "PATH": "/usr/bin", "HOME": "/home/u",
                                                         "LANG": "C", "LC_ALL": "C", "TMPDIR": "/tmp", "KEYBOARD": "us",
                                                         "PWD": "/work", "OCEAN_PANELS": "/p.toml"})
    assert env == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C", "LC_ALL": "C", "TMPDIR": "/tmp",
                   "OCEAN_PANELS": "/p.toml", "BOT_LEVEL": "3"}  # KEYBOARD, PWD: not passed
    assert is_secret("DATABASE", "postgresql://u:pw@h/db") and not is_secret("DATABASE", "postgresql://u@h/db")


def _run_with_secrets(args: list[str], dump: Path) -> None:
    """``python -m ocean ARGS`` with the lab's secrets in its environment: it succeeds, and each
    of the two programs it starts dumped an environment holding none of them."""
    result = subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, env=_lab_env(),
                            timeout=120)
    assert result.returncode == 0, result.stderr
    envs = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(envs) == 2
    for env in envs:
        _check(env)


def test_a_refereed_program_does_not_see_the_database_password(tmp_path):
    dump = tmp_path / "env.jsonl"
    cmd = f"{sys.executable} {ENVDUMP} {dump}"
    _run_with_secrets(["referee", "--seed", "3", "--p0", cmd, "--p1", cmd, "--json", "--time-scale", "20"], dump)


def test_a_cmd_bot_in_the_arena_does_not_see_the_database_password(tmp_path):
    dump = tmp_path / "env.jsonl"
    _run_with_secrets(["arena", "--bots", f"cmd:{sys.executable} {ENVDUMP} {dump},random", "--games", "2",
                       "--workers", "1", "--time-scale", "20", "--json"], dump)


def test_the_lab_blanks_its_secrets_in_its_own_proc_environ_and_still_reads_them():
    # A program run without the sandbox can read /proc/PID/environ of the lab's processes (the
    # environment they were started with): the lab blanks its secrets there, and keeps them.
    code = ("import os, subprocess\n"
            "from ocean.progenv import hide_own_secrets\n"
            "names = hide_own_secrets()\n"
            "raw = open('/proc/self/environ', 'rb').read()\n"
            "child = subprocess.run(['sh', '-c', 'printf %s \"$PGPASSWORD\"'], capture_output=True, text=True).stdout\n"
            "print(sorted(n for n in names if n in ('PGPASSWORD', 'OCEAN_STORAGE')), "
            f"{PASSWORD!r}.encode() in raw, os.environ['PGPASSWORD'] == {PASSWORD!r}, child == {PASSWORD!r}, "
            "b'LANG=C.UTF-8' in raw)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PGPASSWORD": PASSWORD, "OCEAN_STORAGE": SECRETS["OCEAN_STORAGE"],
                                 "LANG": "C.UTF-8"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['OCEAN_STORAGE', 'PGPASSWORD'] False True True True"


def test_rays_processes_get_no_secret_of_the_lab(monkeypatch):
    from ocean.progenv import secrets_kept_from_ray

    for name, value in {**SECRETS, "OCEAN_PANELS": "/p.toml", "OCEAN_CPU_LOCKS": "/tmp/locks",
                        "RAY_AUTH_MODE": "token"}.items():
        monkeypatch.setenv(name, value)
    with secrets_kept_from_ray() as held:
        during = dict(os.environ)
    assert PASSWORD not in json.dumps(during) and "db.example" not in json.dumps(during)
    # Ray's own variables stay (Ray needs them), and the lab's settings without a password
    assert {"RAY_ADDRESS", "RAY_AUTH_MODE", "OCEAN_PANELS", "OCEAN_CPU_LOCKS"} <= set(during)
    assert {"OCEAN_STORAGE", "PGPASSWORD", "GITHUB_TOKEN", "DSN"} <= set(held)
    assert os.environ["PGPASSWORD"] == PASSWORD and os.environ["OCEAN_STORAGE"] == SECRETS["OCEAN_STORAGE"]
