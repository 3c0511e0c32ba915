"""A bot that is an external program: how to start it and how its parameters reach it.

A program is described by a command template, an optional working directory, environment
templates and an optional parameters file. Templates hold ``{name}`` placeholders (``{{`` and
``}}`` for literal braces): a parameter's value, ``{game_seed}`` (the game's seed, so an author
can make a program deterministic), ``{params_file}`` (the path of the file the lab writes per
game), ``{turn_ms}`` and ``{first_turn_ms}`` (the time control the program is told, see
``ocean.timecontrol``; a parameters file holds them too). The command is split like a shell
would split it *before* values are put in, so a value can never add or split arguments, and it
runs without a shell.

A frozen panel program also carries what it was frozen with: its fingerprint, its time control
(it always plays with it, whatever the game's) and, for a program that is not reproducible,
the files whose content is its fingerprint.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ocean.timecontrol import DEFAULT_TIME, FIRST_TURN_MS_NAME, TURN_MS_NAME, TimeControl

__all__ = ["ProgramSpec", "GAME_SEED", "PARAMS_FILE", "RESERVED", "PARAMS_FILE_FORMATS", "format_value",
           "render_params_file", "absolute_cwd"]

GAME_SEED = "game_seed"
PARAMS_FILE = "params_file"
# Filled in by the lab for each game: no parameter may take one of these names.
RESERVED = (GAME_SEED, PARAMS_FILE, TURN_MS_NAME, FIRST_TURN_MS_NAME)
PARAMS_FILE_FORMATS = ("toml", "json")
_ENV_NAME_CHARS = set(string.ascii_letters + string.digits + "_")


def format_value(value: float | int) -> str:
    """A parameter value as a program reads it: integers without a decimal point, floats in
    the shortest form that reads back exactly."""
    if isinstance(value, bool):
        raise TypeError("a parameter value is a number, not a bool")
    return str(value) if isinstance(value, int) else repr(float(value))


def _fields(template: str, where: str) -> list[str]:
    """The placeholder names of ``template``; ValueError (one line) for a malformed one."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc} in {template!r} (write {{{{ and }}}} for literal braces)") from None
    names = []
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"{where}: placeholder {{{name}{'!' + conversion if conversion else ''}"
                             f"{':' + spec if spec else ''}}} in {template!r} must be a plain parameter name, "
                             "e.g. {aggression}")
        names.append(name)
    return names


def render_params_file(params: Mapping[str, float], fmt: str) -> str:
    """The parameters file a program reads: ``name = value`` lines (TOML) or a JSON object.
    (For a game the lab adds the time control told, ``turn_ms`` and ``first_turn_ms``.)"""
    if fmt == "json":
        return json.dumps({k: v for k, v in params.items()}, sort_keys=False) + "\n"
    return "".join(f"{k} = {format_value(v)}\n" for k, v in params.items())


@dataclass(frozen=True)
class ProgramSpec:
    """How to run one external bot program (see the module doc)."""

    command: str
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    params_file: str | None = None  # one of PARAMS_FILE_FORMATS, or None
    fingerprint: str | None = None  # for a frozen panel program: its behaviour hash (or its files' hash)
    time: TimeControl | None = None  # a frozen program's own time control; None: the game's
    deterministic: bool = True  # False: a frozen program whose lines vary; fingerprinted by ``files``
    files: tuple[str, ...] = ()  # absolute paths whose content is a nondeterministic program's fingerprint

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """ValueError (one line) for a command or environment the lab cannot run."""
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise ValueError(f"command {self.command!r} cannot be split like a shell would ({exc})") from None
        if not argv:
            raise ValueError("command is empty; give the program and its arguments, e.g. \"./mybot --fast\"")
        for arg in argv:
            _fields(arg, "command")
        for name, value in self.env:
            if not name or set(name) - _ENV_NAME_CHARS or name[0].isdigit():
                raise ValueError(f"env: {name!r} is not an environment variable name (letters, digits, _)")
            _fields(value, f"env.{name}")
        if self.params_file is not None and self.params_file not in PARAMS_FILE_FORMATS:
            raise ValueError(f"params_file = {self.params_file!r}; choose one of: {', '.join(PARAMS_FILE_FORMATS)}")
        if PARAMS_FILE in self.placeholders() and self.params_file is None:
            raise ValueError("the command or env uses {params_file} but params_file is not set; "
                             "add params_file = \"toml\" (or \"json\")")

    def placeholders(self) -> set[str]:
        """Every name used in ``{...}`` in the command and the environment."""
        names = set()
        for arg in shlex.split(self.command):
            names.update(_fields(arg, "command"))
        for name, value in self.env:
            names.update(_fields(value, f"env.{name}"))
        return names

    def parameter_names(self) -> set[str]:
        """Placeholders that are parameters (not one the lab fills in per game)."""
        return self.placeholders() - set(RESERVED)

    def reads_all(self) -> bool:
        """Whether every parameter reaches the program whatever its name (a parameters file)."""
        return self.params_file is not None

    def render(self, params: Mapping[str, float], game_seed: int, params_path: str | None = None,
               time: TimeControl = DEFAULT_TIME) -> tuple[list[str], dict[str, str]]:
        """(argv, extra environment) for one game. ``params_path``: where the parameters file
        was written (needed when ``params_file`` is set); ``time``: the time control the
        program is told (``{turn_ms}``, ``{first_turn_ms}``)."""
        values = {k: format_value(v) for k, v in params.items()}
        values[GAME_SEED] = str(int(game_seed))
        values.update(time.values())
        if params_path is not None:
            values[PARAMS_FILE] = params_path
        missing = self.placeholders() - set(values)
        if missing:
            raise ValueError(f"no value for placeholder(s) {', '.join(sorted(missing))} of {self.command!r}")
        argv = [arg.format_map(values) for arg in shlex.split(self.command)]
        env = {name: value.format_map(values) for name, value in self.env}
        return argv, env

    def display(self, params: Mapping[str, float] | None = None) -> str:
        """The command line as a person would type it, with ``params`` in place (the per-game
        placeholders, ``{game_seed}``, ``{params_file}``, ``{turn_ms}``, ``{first_turn_ms}``, stay)."""
        values = _Keep({k: format_value(v) for k, v in (params or {}).items()})
        return " ".join(_quote(arg.format_map(values)) for arg in shlex.split(self.command))

    def as_json(self) -> dict:
        return {"command": self.command, "cwd": self.cwd, "env": dict(self.env), "params_file": self.params_file,
                "fingerprint": self.fingerprint, "time": None if self.time is None else self.time.as_json(),
                "deterministic": self.deterministic, "files": list(self.files)}

    @classmethod
    def from_json(cls, data: Mapping) -> ProgramSpec:
        time = data.get("time")
        return cls(command=data["command"], cwd=data.get("cwd"), env=tuple((data.get("env") or {}).items()),
                   params_file=data.get("params_file"), fingerprint=data.get("fingerprint"),
                   time=None if time is None else TimeControl.from_json(time),
                   deterministic=data.get("deterministic", True), files=tuple(data.get("files") or ()))

    def time_for(self, game: TimeControl) -> TimeControl:
        """The time control this program plays with in a game of time control ``game``: its own
        if it was frozen with one (a frozen opponent stays the same opponent), enforced on the
        game's machine (``TimeControl.machine``), else the game's."""
        return game.for_program(self.time)

    def resolved_cwd(self) -> str | None:
        return None if self.cwd is None else os.path.abspath(self.cwd)


_PLAIN = re.compile(r"[\w@%+=:,./{}-]+")


def _quote(arg: str) -> str:
    """Quote an argument for a shell only where needed (placeholders' braces are fine)."""
    return arg if _PLAIN.fullmatch(arg) else shlex.quote(arg)


class _Keep(dict):
    """Leaves a placeholder without a value as it was."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def absolute_cwd(cwd: str | None, base: str | Path) -> str:
    """``cwd`` made absolute against ``base`` (``base`` itself when ``cwd`` is None)."""
    base = Path(base)
    path = base if cwd is None else (Path(cwd).expanduser() if Path(cwd).expanduser().is_absolute()
                                     else base / cwd)
    return str(path.resolve())
