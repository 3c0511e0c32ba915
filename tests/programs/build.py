"""Build the knob test bots (knob.c, Knob.java) and name the command of each of the three.

Each helper returns a command string for ``ocean.referee.referee_game`` (``shlex`` syntax)."""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

__all__ = ["HERE", "build_c", "build_java", "python_command"]

HERE = Path(__file__).resolve().parent


def _run(argv: list[str], what: str) -> None:
    try:
        result = subprocess.run(argv, capture_output=True, text=True)
    except OSError as exc:
        raise RuntimeError(f"{what}: cannot run {argv[0]}: {exc}") from None
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {result.returncode}):\n{result.stderr.strip()}")


def build_c(dest: Path) -> str:
    """Compile knob.c into ``dest``; returns the absolute path of the binary."""
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    binary = dest / "knob"
    _run(["cc", "-O2", "-Wall", "-o", str(binary), str(HERE / "knob.c"), "-lm"], "cc knob.c")
    return str(binary)


def build_thinker(dest: Path) -> str:
    """Compile thinker.c into ``dest``; returns the absolute path of the binary."""
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    binary = dest / "thinker"
    _run(["cc", "-O2", "-Wall", "-o", str(binary), str(HERE / "thinker.c")], "cc thinker.c")
    return str(binary)


def build_java(dest: Path) -> str:
    """Compile Knob.java into ``dest``; returns ``java -cp <dest> Knob``."""
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    _run(["javac", "-d", str(dest), str(HERE / "Knob.java")], "javac Knob.java")
    return f"java -cp {shlex.quote(str(dest))} Knob"


def python_command() -> str:
    """``<this interpreter> <abs path of knob.py>``."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'knob.py'))}"
