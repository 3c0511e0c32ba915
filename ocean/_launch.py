"""What a program's command line becomes before ``ocean._process`` starts it: the lab's own
``ocean`` found where the program's PATH lacks it, the program looked for first (inside the sandbox
a missing program would be a failure at its first answer, not one line at its start), and the
pidfd that tells the program's own exit from its output closing."""
from __future__ import annotations

import errno
import os
import shutil
import sys

__all__ = ["check_program", "open_pidfd", "own_ocean"]


def open_pidfd(pid: int) -> int | None:
    """A pidfd for *pid*, or None where the kernel or a sandbox refuses it."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def own_ocean(argv: list[str], env: dict | None) -> list[str]:
    """``ocean ...`` run by the lab whose own ``ocean`` is not on the program's PATH (a lab run
    from its virtualenv's bin without activating it): this lab's ``ocean``, not "not found"."""
    if argv[0] != "ocean" or shutil.which("ocean", path=(os.environ if env is None else env).get("PATH")):
        return argv
    own = os.path.join(os.path.dirname(sys.executable), "ocean")
    return [own, *argv[1:]] if os.access(own, os.X_OK) else [sys.executable, "-m", "ocean", *argv[1:]]


def check_program(argv: list[str], command: str, cwd: str | None, env: dict[str, str]) -> None:
    """FileNotFoundError/PermissionError (one line) for a program that is not there or cannot run."""
    program = argv[0]
    if "/" in program:
        path = program if os.path.isabs(program) else os.path.join(cwd or os.getcwd(), program)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, f"bot program not found: {program!r} (command {command!r})",
                                    program)
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, f"bot program is not executable: {program!r} (command {command!r})",
                                  program)
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(errno.ENOENT, f"bot program not found: {program!r} (command {command!r})", program)
