"""A PostgreSQL server of the test's own (initdb into a temporary folder, its own port), for the
tests that stop and start the database under a running study: stopping the machine's server
would pull it from under every other test and every other user of the machine."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PrivatePostgres", "postgres_bin"]

_SERVER_USER = "postgres"  # initdb and postgres refuse to run as root


def postgres_bin() -> Path | None:
    """The folder holding initdb and pg_ctl (Debian keeps them off PATH), or None."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivatePostgres:
    """A throwaway cluster: ``start()``, ``stop()``, ``url(database)``, ``remove()``."""

    def __init__(self) -> None:
        bindir = postgres_bin()
        if bindir is None:
            raise RuntimeError("initdb not found (install the PostgreSQL server package)")
        self._bin = bindir
        self._as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="ocean-pg-"))
        if self._as_root:
            user = pwd.getpwnam(_SERVER_USER)
            os.chown(self.root, user.pw_uid, user.pw_gid)
        self.data = self.root / "data"
        self.port = _free_port()
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        kwargs = {}
        if self._as_root:
            user = pwd.getpwnam(_SERVER_USER)
            kwargs = dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
        done = subprocess.run([str(self._bin / tool), *args], capture_output=True, text=True, timeout=120,
                              cwd=self.root, **kwargs)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stderr.strip()[-500:]}")

    def start(self) -> None:
        """Start the server and wait until it accepts connections (no-op if running)."""
        if self.running():
            return
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "server.log"), "-w", "start")

    def stop(self) -> None:
        """Stop the server at once (``fast``: open connections are cut, as in an outage)."""
        if self.running():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        """A SQLAlchemy URL (trust auth ignores the password; tests use one to check it never leaks)."""
        secret = f":{password}" if password else ""
        return f"postgresql+psycopg://postgres{secret}@127.0.0.1:{self.port}/{database}"

    def remove(self) -> None:
        """Stop the server and delete its folder."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
