"""Security basics: a database password given at run time (URL option or environment) never
reaches the database, the logs, the console, exports or reports; nothing runs through a shell;
docker-compose keeps PostgreSQL private and Ray authenticated."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from tests.tuning.cli.test_cli import TINY

# A long drill: CI runs it (.ci/run), the README's test command leaves it out.
# A password through every command (about 20 s).
pytestmark = pytest.mark.drill


ROOT = Path(__file__).resolve().parents[3]
PASSWORD = f"Pw-{uuid.uuid4().hex[:12]}-secret"


@pytest.fixture
def role_url(pg_admin):
    """A role with a password owning a fresh database; the URL carries the password (the local
    pg_hba may trust 127.0.0.1 and not check it, but every place it could leak to gets it)."""
    role, db = f"ocean_sec_{uuid.uuid4().hex[:8]}", f"ocean_sec_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(pg_admin, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'"))
        conn.execute(sa.text(f'CREATE DATABASE "{db}" OWNER {role}'))
    url = sa.make_url(pg_admin).set(username=role, password=PASSWORD, database=db)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
            conn.execute(sa.text(f"DROP ROLE IF EXISTS {role}"))
        admin.dispose()


def _tune(*args, cwd, env=None):
    import os

    result = subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=300, env={**os.environ, **(env or {})})
    assert result.returncode == 0, (args, result.stderr[-2000:])
    return result.stdout + result.stderr


def _database_text(url: str) -> list[str]:
    """Every row of every table (ours and Optuna's, attributes included), as text."""
    engine = sa.create_engine(url)
    out = []
    try:
        with engine.connect() as conn:
            for table in sa.inspect(conn).get_table_names():
                out += [repr(tuple(row)) for row in conn.execute(sa.text(f'SELECT * FROM "{table}"'))]
    finally:
        engine.dispose()
    return out


def test_a_password_given_at_run_time_is_never_stored_printed_or_exported(role_url, ray_cluster, tmp_path,
                                                                          monkeypatch):
    import ray

    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    ray_args = ["--ray-address", ray_cluster]
    seen = []
    # the URL on the command line, then from the environment
    seen.append(_tune("launch", "tiny.toml", "--games", "4", "--storage", role_url, *ray_args, cwd=tmp_path))
    env = {"OCEAN_STORAGE": role_url}
    seen.append(_tune("resume", "tiny", "--trials", "3", *ray_args, cwd=tmp_path, env=env))
    seen.append(_tune("status", "tiny", cwd=tmp_path, env=env))
    seen.append(_tune("status", "tiny", "--json", cwd=tmp_path, env=env))
    seen.append(_tune("validate", "tiny", "--top", "1", "--games", "4", *ray_args, cwd=tmp_path, env=env))
    # 4 validation games show no gain: exported anyway, to see that no export holds the password
    seen.append(_tune("export", "tiny", "--out", "best.toml", "--allow-no-gain", cwd=tmp_path, env=env))
    seen.append(_tune("export", "tiny", "--format", "json", "--allow-no-gain", cwd=tmp_path, env=env))
    seen.append(_tune("export", "tiny", "--format", "cpp", "--out", "best.h", "--allow-no-gain", cwd=tmp_path,
                      env=env))
    listed = subprocess.run([sys.executable, "-m", "tuning", "--help"], capture_output=True, text=True, timeout=120)
    if re.search(r"\breport\b", listed.stdout):  # the report command, where this checkout has it
        report = subprocess.run([sys.executable, "-m", "tuning", "report", "tiny"], cwd=tmp_path, capture_output=True,
                                text=True, timeout=300, env={**__import__("os").environ, **env})
        assert report.returncode == 0 and (tmp_path / "report.html").exists(), report.stderr[-2000:]
        seen.append(report.stdout + report.stderr)  # the page itself is read with every file below

    masked = [text for text in seen if "***@" in text]
    assert masked, "the storage is shown, masked, somewhere"  # so the checks below look at real output
    for text in seen:
        assert PASSWORD not in text
    for path in tmp_path.rglob("*"):  # exports, logs, anything the commands wrote
        if path.is_file():
            assert PASSWORD not in path.read_text(errors="replace"), path
    rows = _database_text(role_url)
    assert any("ocean_spec" in row for row in rows) and any("silence_cost" in row for row in rows)
    assert not any(PASSWORD in row for row in rows)
    status = json.loads(seen[3].strip().splitlines()[-1])
    assert status["storage"].count("***") == 1
    # Ray keeps the command line of every driver that joined (its job table's "entrypoint",
    # shown by `ray list jobs` and the dashboard) and its own logs.
    entrypoints = [str(job.get("Entrypoint")) for job in ray._private.state.jobs()]
    assert any("--storage" in e and "****@" in e for e in entrypoints), entrypoints  # the launch above
    assert not any(PASSWORD in e for e in entrypoints)
    session = Path(ray._private.worker._global_node.get_session_dir_path())
    leaked = [p for p in session.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]
    assert leaked == []


def test_a_password_on_the_command_line_is_overwritten_where_ps_reads_it():
    url = f"postgresql+psycopg://lab:{PASSWORD}@db:5432/ocean"
    code = ("from tuning.storage.database import hide_passwords_in_argv as h; import sys; "
            "print(h()); print(open('/proc/self/cmdline', 'rb').read()); print(sys.argv)")
    out = subprocess.run([sys.executable, "-c", code, "--storage", url], capture_output=True, text=True,
                         timeout=120).stdout
    assert out.startswith("True") and PASSWORD not in out
    assert "lab:" + "*" * len(PASSWORD) + "@db:5432/ocean" in out


def test_no_code_of_ours_runs_a_shell():
    # External bot commands are split with shlex and executed directly (ocean/_process.py;
    # behaviour pinned by tests/ocean/test_process.py::test_no_shell_is_involved).
    offenders = []
    for path in [*ROOT.joinpath("ocean").rglob("*.py"), *ROOT.joinpath("tuning").rglob("*.py")]:
        if re.search(r"shell\s*=\s*True|os\.system\(|os\.popen\(", path.read_text()):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    assert "argv = shlex.split(command)" in (ROOT / "ocean" / "_process.py").read_text()


def test_a_bot_command_gets_its_arguments_verbatim_never_through_a_shell(tmp_path):
    from ocean._process import BotProcess

    marker = tmp_path / "pwned"
    with BotProcess(f"printf '%s\\n' $HOME ';' 'touch {marker}' '$(id)'") as bot:
        lines = [bot.read_line(5000) for _ in range(4)]
    assert lines == ["$HOME", ";", f"touch {marker}", "$(id)"]
    assert not marker.exists()


def test_compose_keeps_postgres_private_and_secrets_out_of_the_file():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    text = (ROOT / "docker-compose.yml").read_text()
    for name, service in compose["services"].items():
        assert not service.get("privileged"), name
        assert service.get("network_mode") != "host", name
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), (name, port)  # nothing on a public interface
            assert not str(port).endswith((":5432", ":6379", ":8265", ":10001")), (name, port)
    assert "ports" not in compose["services"]["postgres"]
    # Secrets only from the environment, required, never a default value in the file.
    assert re.search(r"POSTGRES_PASSWORD:-", text) is None and re.search(r"RAY_AUTH_TOKEN:-", text) is None
    assert "POSTGRES_HOST_AUTH_METHOD" not in text  # no trust authentication inside the network
    for name in ("ray-head", "ray-worker", "driver"):
        env = compose["services"][name]["environment"]
        # the token from a Compose secret (a file), never in a Ray process's environment
        assert env["RAY_AUTH_MODE"] == "token" and "RAY_AUTH_TOKEN" not in env, name
        assert env["RAY_AUTH_TOKEN_PATH"] == "/run/secrets/ray_token" and "ray_token" in compose["services"][name]["secrets"]
    assert compose["secrets"]["ray_token"] == {"environment": "RAY_AUTH_TOKEN"}
    assert compose["x-token-check"].startswith("${RAY_AUTH_TOKEN:?")  # required, no default
