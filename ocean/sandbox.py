"""The sandbox a program runs in, as CodinGame runs it: bubblewrap (``bwrap``) when it can start.

Every program the lab starts (``ocean._process.BotProcess``) goes through :func:`wrap`: a function
of (argv, cwd, env, policy) that returns the command line to execute. With ``bwrap`` the program
gets

- its own PID namespace (it sees no process of the lab's, and every process it starts, a helper
  in a new session too, dies with it: ``--unshare-pid`` and ``--die-with-parent``), and its own
  IPC and host name;
- no network (``--unshare-net``: a loopback of its own, so no TCP to the lab's PostgreSQL, Redis
  or Ray);
- the machine's folders read-only, with the places where the lab keeps secrets or sockets hidden
  behind empty private folders (:data:`HIDDEN`: ``/tmp``, ``/var/tmp``, ``/run``, ``/dev/shm``,
  ``/root``, ``/home``, ``/var/lib``, ``/var/run``, and the lab's own home), a private writable
  ``/tmp`` and home (``HOME=/home/program``), its own folder (``cwd``) and the files its command
  names read-only (writable with ``SandboxPolicy.writable_folder``), the lab's own install (for a
  program that runs ``ocean bot``) and Numba's cache read-only;
- no capability when the lab runs as root (``--cap-drop ALL``).

With or without ``bwrap`` a program gets a memory limit (CodinGame's 768 MB by default): an
rlimit on its data (``RLIMIT_DATA``: heap and private writable
memory; a JVM's large address-space reservation does not count, so JVMs run), set by a
``/bin/sh`` that then becomes the program, and an environment built from nothing
(``ocean.progenv``).

Where ``bwrap`` is missing or cannot make namespaces, programs run without the sandbox (unless
the policy requires it: :class:`SandboxUnavailable`), and the lab says so once, in one line
(:func:`warn_once`): such a program sees the lab's processes, reads what the lab's user can read,
writes where it can write and reaches the network.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["SandboxPolicy", "SandboxUnavailable", "DEFAULT_POLICY", "CODINGAME_MEMORY_MB", "HIDDEN",
           "PROGRAM_HOME", "wrap", "unavailable_reason", "status_line", "warn_once", "is_out_of_memory"]

CODINGAME_MEMORY_MB = 768  # CodinGame's memory limit for a bot
MAX_MEMORY_MB = 65536
PROGRAM_HOME = "/home/program"  # the private home inside the sandbox
# Folders hidden behind an empty private tmpfs: where a lab keeps sockets (PostgreSQL's in /run
# or /tmp, Ray's session in /tmp/ray), tokens (~/.ray/auth_token, ~/.pgpass, ~/.ssh) and data
# (/var/lib/postgresql). What a program needs of them is bound back in, read-only.
HIDDEN = ("/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm", "/root", "/home", "/var/lib")
_BWRAP_HINT = "apt-get install bubblewrap"


class SandboxUnavailable(PermissionError):
    """The sandbox is required (``SandboxPolicy.required``) but cannot start on this machine."""


@dataclass(frozen=True)
class SandboxPolicy:
    """How programs are run: ``memory_mb`` (their memory limit; CodinGame's 768 by default),
    ``required`` (refuse to run a program without the sandbox) and ``writable_folder`` (a
    program may write to its own folder; read-only by default)."""

    memory_mb: int = CODINGAME_MEMORY_MB
    required: bool = False
    writable_folder: bool = False

    def __post_init__(self) -> None:
        m = self.memory_mb
        if isinstance(m, bool) or not isinstance(m, int) or not 16 <= m <= MAX_MEMORY_MB:
            raise ValueError(f"memory_mb = {m!r}: give a whole number of megabytes from 16 to {MAX_MEMORY_MB} "
                             f"(CodinGame's: {CODINGAME_MEMORY_MB})")
        for name in ("required", "writable_folder"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} = {getattr(self, name)!r}: give true or false")

    def describe(self) -> str:
        """One line for people."""
        parts = [f"memory {self.memory_mb} MB"]
        if self.required:
            parts.append("sandbox required")
        if self.writable_folder:
            parts.append("program folders writable")
        return ", ".join(parts)


DEFAULT_POLICY = SandboxPolicy()


def unavailable_reason() -> str | None:
    """None when the sandbox starts on this machine, else why not (one phrase): ``OCEAN_NO_SANDBOX``
    set (read at each call), else what a ``bwrap`` with the options every program gets said
    when it ran ``true`` (tried once per process)."""
    if os.environ.get("OCEAN_NO_SANDBOX"):
        return "OCEAN_NO_SANDBOX is set"
    return _probe()


@functools.lru_cache(maxsize=1)
def _probe() -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"bwrap is not installed ({_BWRAP_HINT})"
    true = shutil.which("true") or "/bin/true"
    try:
        done = subprocess.run([bwrap, *_namespace_options(), "--ro-bind", "/", "/", "--proc", "/proc",
                               "--dev", "/dev", true], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot start ({exc})"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap cannot make its namespaces ({lines[-1] if lines else f'exit code {done.returncode}'})"
    return None


def status_line() -> str:
    """What a program can reach on this machine, in one line (``tune plan`` shows it)."""
    reason = unavailable_reason()
    if reason is None:
        return ("programs run sandboxed (bwrap): their own processes only, no network, the machine's folders "
                "read-only without the lab's homes, /tmp and /run, an environment built from nothing")
    return (f"programs run WITHOUT a sandbox: {reason}; a program sees the lab's processes, reads what your user "
            "can read, writes where it can write and reaches the network (only its environment is cleaned "
            "and its memory limited)")


_warned = False


def warn_once() -> None:
    """Say once per process, on stderr, that programs run without the sandbox (nothing if it runs,
    nor when ``OCEAN_NO_SANDBOX`` turned it off on purpose)."""
    global _warned
    if _warned or os.environ.get("OCEAN_NO_SANDBOX") or unavailable_reason() is None:
        return
    _warned = True
    print(f"warning: {status_line()}", file=sys.stderr, flush=True)


def _namespace_options() -> list[str]:
    options = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--die-with-parent"]
    if os.geteuid() == 0:
        options += ["--cap-drop", "ALL"]  # root inside keeps no capability over the machine
    return options


def _launcher(policy: SandboxPolicy, ready_fd: int | None) -> list[str]:
    """A shell that sets the memory limit (RLIMIT_DATA, soft and hard) and no core files, writes
    one byte to ``ready_fd`` (the sandbox is up: the program's clock may start) and becomes the
    program (``exec``)."""
    ready = "" if ready_fd is None else f"printf . >/proc/self/fd/{int(ready_fd)}; "
    script = f"ulimit -c 0; ulimit -d {policy.memory_mb * 1024} || exit 125; {ready}exec \"$@\""
    return ["/bin/sh", "-c", script, "sh"]


def _under_hidden(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in _hidden_roots())


@functools.lru_cache(maxsize=1)
def _hidden_roots() -> tuple[str, ...]:
    roots = [p for p in HIDDEN if os.path.isdir(p) and not os.path.islink(p)]
    home = os.path.expanduser("~")
    if home not in ("/", "") and os.path.isdir(home) and os.path.realpath(home) not in ("/", "/usr"):
        real = os.path.realpath(home)
        if not any(real == r or real.startswith(r + "/") for r in roots):
            roots.append(real)
    return tuple(roots)


@functools.lru_cache(maxsize=1)
def _lab_paths() -> tuple[str, ...]:
    """What a program running the lab itself (``ocean bot``) needs: the Python install and
    virtualenv, the package's folder and Numba's cache (read-only)."""
    import ocean
    from ocean._cache import _root

    paths = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix),
             os.path.realpath(os.path.dirname(os.path.dirname(ocean.__file__))),
             os.path.realpath(os.path.dirname(sys.executable)), os.path.realpath(_root())}
    return tuple(sorted(p for p in paths if os.path.exists(p)))


def _command_paths(argv: list[str], cwd: str, env: dict[str, str]) -> list[str]:
    """The files the command names (the program, files among its words), the folder of an
    interpreter found on the PATH and the paths the environment names, as real paths."""
    found = []
    first = argv[0]
    if "/" not in first:
        which = shutil.which(first, path=env.get("PATH"))
        if which:
            found += [which, os.path.dirname(os.path.realpath(which))]
    for word in argv:
        if not word or word.startswith("-") and "=" not in word:
            continue
        word = word.split("=", 1)[1] if word.startswith("-") else word
        path = word if os.path.isabs(word) else os.path.join(cwd, word)
        if "/" in word or os.path.exists(path):
            if os.path.exists(path):
                found.append(path)
    # A path the environment names (the bot's env: a parameters file; VIRTUAL_ENV, JAVA_HOME).
    for name, value in env.items():
        if name not in ("HOME", "TMPDIR", "PWD") and os.path.isabs(value) and os.path.exists(value):
            found.append(value)
    return [os.path.realpath(p) for p in found]


def wrap(argv: list[str], cwd: str | None, env: dict[str, str], policy: SandboxPolicy = DEFAULT_POLICY,
         ready_fd: int | None = None) -> tuple[list[str], dict[str, str]]:
    """The command line and environment to start ``argv`` in ``cwd`` with ``env`` under
    ``policy``: inside bwrap when it starts here (see the module doc), else as it is, with its
    memory limit either way; right before the program itself starts, one byte is written to
    ``ready_fd`` if given (a pipe passed to the child). Raises :class:`SandboxUnavailable` (one
    line) when the policy requires the sandbox and it cannot start."""
    limited = _launcher(policy, ready_fd)
    reason = unavailable_reason()
    if reason is not None:
        if policy.required:
            raise SandboxUnavailable(f"the sandbox is required but cannot start here: {reason}")
        warn_once()
        return [*limited, *argv], env
    cwd = os.path.realpath(cwd or os.getcwd())
    options = ["bwrap", *_namespace_options(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for hidden in _hidden_roots():
        options += ["--tmpfs", hidden]
    options += ["--dir", PROGRAM_HOME, "--chdir", cwd]
    shown: list[tuple[str, str]] = []
    home = os.path.realpath(os.path.expanduser("~"))
    for path in {*_lab_paths(), *_command_paths(argv, cwd, env)}:
        # What is in the program's folder is seen through it (writable with it, if it is); a
        # folder that is or holds the lab's home is never shown (its tokens, its .pgpass).
        if _under_hidden(path) and not (path == cwd or path.startswith(cwd + "/")) \
                and not (os.path.isdir(path) and (home == path or home.startswith(path + "/"))):
            shown.append(("--ro-bind", path))
    shown.append(("--bind" if policy.writable_folder else "--ro-bind", cwd))
    # Parents before children: a later bind over a folder already bound stays visible inside it.
    for how, path in sorted(shown, key=lambda item: (item[1].count("/"), item[1])):
        options += [how, path, path]
    if home != "/" and (home == cwd or home.startswith(cwd + "/")):
        # The program's folder holds the lab's home: its dot files and folders (Ray's token,
        # .pgpass, .ssh, .aws, ...) stay hidden; what the lab runs from there is shown again.
        masked = _home_dot_entries(home)
        for hiding, top in masked:
            options += [*hiding, top]
        for how, path in sorted(shown, key=lambda item: (item[1].count("/"), item[1])):
            if any(path == top or path.startswith(top + "/") for _, top in masked):
                options += [how, path, path]
    inner = {**env, "HOME": PROGRAM_HOME, "TMPDIR": "/tmp"}
    return [shutil.which("bwrap") or "bwrap", *options[1:], "--", *limited, *argv], inner


def _home_dot_entries(home: str) -> list[tuple[list[str], str]]:
    """(bwrap options, path) hiding each dot entry of ``home``: an empty folder over a folder,
    an empty file over a file."""
    hidden: list[tuple[list[str], str]] = []
    try:
        names = sorted(os.listdir(home))
    except OSError:
        return hidden
    for name in names:
        path = os.path.join(home, name)
        if not name.startswith(".") or os.path.islink(path):
            continue
        if os.path.isdir(path):
            hidden.append((["--tmpfs"], path))
        elif os.path.isfile(path):
            hidden.append((["--ro-bind", "/dev/null"], path))
    return hidden


def is_out_of_memory(stderr_tail: str) -> bool:
    """Whether a program's last words say an allocation failed (Python's MemoryError, C++'s
    bad_alloc, Java's OutOfMemoryError, malloc's ENOMEM, ...): under its memory limit, the
    limit is why it crashed."""
    text = stderr_tail.lower()
    return any(mark in text for mark in _OOM_MARKS)


_OOM_MARKS = ("memoryerror", "bad_alloc", "outofmemoryerror", "out of memory", "cannot allocate memory",
              "memory allocation", "failed to allocate", "allocation failed", "memory exhausted",
              "could not allocate", "insufficient memory", "not enough memory")
