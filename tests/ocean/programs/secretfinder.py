#!/usr/bin/env python3
"""secretfinder: a program that looks for the lab's secrets, as a hostile opponent would.

It reads the environment and the command line of every process it can see (``/proc/*/environ``,
``/proc/*/cmdline``) for ``MARKER`` (the password the tests give the lab) and for the lab's
variable names, Ray's token files (``~/.ray/auth_token`` of every home it can list, and
``--home DIR``'s), and the local PostgreSQL (TCP to 127.0.0.1:5432, its Unix sockets). Also
counts the processes it sees. Then it reports, in one JSON line:

- ``--report crash`` (default): on stderr, and exits with code 3 before answering (the referee
  shows stderr's last line in its verdict);
- ``--report FILE``: appended to FILE (if it can write there), then it plays on as ``--then PROGRAM ARGS...``
  (``os.execv``), so a study can play it.
"""
import glob
import json
import os
import socket
import sys

MARKER = "Pw-s3cret-Xq9"
NAMES = ("OCEAN_STORAGE=", "PGPASSWORD=", "RAY_AUTH_TOKEN=", "AWS_SECRET_ACCESS_KEY=")


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return None


def find(home):
    found = []
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    own = str(os.getpid())
    for pid in pids:
        if pid == own:
            continue
        for what in ("environ", "cmdline"):
            text = _read(f"/proc/{pid}/{what}")
            if text and MARKER in text:
                found.append(f"{what} of pid {pid} (marker)")
            elif text and any(name in text for name in NAMES):
                found.append(f"{what} of pid {pid} (names)")
    homes = {os.path.expanduser("~"), "/root", *glob.glob("/home/*")}
    if home:
        homes.add(home)
    for folder in sorted(homes):
        token = os.path.join(folder, ".ray", "auth_token")
        if os.path.exists(token):
            found.append(f"{token} exists" + (" and is readable" if _read(token) is not None else ""))
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=2):
            found.append("TCP 127.0.0.1:5432 connected")
    except OSError:
        pass
    for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/tmp/.s.PGSQL.5432"):
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(2)
                sock.connect(path)
                found.append(f"socket {path} connected")
        except OSError:
            pass
    commands = [(_read(f"/proc/{p}/cmdline") or "").replace("\0", " ").strip() for p in pids]
    return {"found": found, "processes": len(pids), "commands": [c for c in commands if c][:6]}


def main(args):
    report, home, then = "crash", None, None
    while args:
        option = args.pop(0)
        if option == "--report":
            report = args.pop(0)
        elif option == "--home":
            home = args.pop(0)
        elif option == "--then":
            then, args = args, []
    result = find(home)
    line = json.dumps(result, separators=(",", ":"))
    if report == "crash" or then is None:
        # Short enough for the referee's last-line report (300 characters).
        print(json.dumps({"found": result["found"][:3], "n": len(result["found"]),
                          "processes": result["processes"]}, separators=(",", ":")), file=sys.stderr, flush=True)
        sys.exit(3)
    try:
        with open(report, "a") as fh:
            fh.write(line + "\n")
    except OSError:
        pass  # a read-only folder (``ocean panel add``'s fingerprint games): play on all the same
    os.execv(then[0], then)


if __name__ == "__main__":
    main(sys.argv[1:])
