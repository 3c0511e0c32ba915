"""Bots: policies, their coefficients, external programs, and bots by name.

A bot is a ``BotSpec``: a policy (compiled kernel) plus, for the tunable policy, a full
coefficient set; or an external program (policy ``program``: a ``ProgramSpec`` and the values
of its parameters). Arenas, panels, studies and exports take either kind alike. ``resolve_bot`` takes a policy name (``random``, ``chaser``,
``tunable`` — the frozen v1 bot — or ``tunable-v2``, with their default coefficients), a frozen panel bot (``hunter-v1``, or
``hunter`` for its latest version), ``params:FILE`` (the tunable bot the file names,
``tunable`` if it names none, with that file's coefficients), or ``cmd:COMMAND`` (any program's
command line, e.g. one ``tune export --format args`` printed). ``panel(name)`` lists a named panel's bots.
A frozen in-process panel bot carries what it was frozen with (``Frozen``), which
``ocean.fingerprint.check_frozen`` checks before it plays.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ocean.bots import coefficients
from ocean.bots.registry import POLICIES
# Imported here, before ``panel`` (the function) below: importing the submodule later, anywhere,
# would set this package's ``panel`` to the module (ocean.bots.panel), shadowing the function.
from ocean.bots import panel as _panel_module  # noqa: F401  (light: TOML is read on first use)

if TYPE_CHECKING:
    import numpy as np

    from ocean.bots.external import ProgramSpec

# ``ocean bot`` resolves its bot before its first answer (1000 ms, on a busy machine too), and
# a policy by name needs neither the external programs' module (subprocesses, time controls)
# nor the panels' file: they load when a name needs them (``ProgramSpec`` on first access).
_LAZY = {"ProgramSpec": "ocean.bots.external"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ocean.bots' has no attribute {name!r}")

__all__ = ["BotSpec", "ProgramSpec", "Frozen", "PROGRAM", "CMD", "POLICIES", "BASELINE_BOTS", "bot_kind",
           "resolve_bot", "panel", "known_bot_names", "coefficients", "split_bot_names"]

BASELINE_BOTS = ("random", "chaser")
PROGRAM = "program"  # the policy of a bot that is an external program
CMD = "cmd:"  # the prefix of a bot given by its command line


@dataclass(frozen=True)
class Frozen:
    """What an in-process panel bot was frozen with: the ``fingerprint`` of its lines on fixed
    games, the ``coefficients_digest`` of its coefficients (bots frozen by ``ocean panel add``;
    None for the built-in ones, checked by their lines alone) and the file it comes from."""

    fingerprint: str
    coefficients_digest: str | None
    source: str


@dataclass(frozen=True)
class BotSpec:
    """A bot: an in-process policy with its coefficients, or an external program (``program``
    set, policy ``PROGRAM``) with the values of its parameters in ``params``."""

    name: str
    policy: str
    params: dict = field(default_factory=coefficients.defaults)
    program: ProgramSpec | None = None
    # A frozen in-process panel bot's marks (a program's are in ``program``). Not part of what
    # the bot is: two specs that play alike compare equal whether or not one carries them.
    frozen: Frozen | None = field(default=None, compare=False)

    @property
    def is_program(self) -> bool:
        return self.program is not None

    @property
    def kind(self) -> int:
        if self.program is not None:
            raise ValueError(f"bot {self.name!r} is an external program, not a compiled policy")
        return POLICIES[self.policy]

    def vector(self) -> np.ndarray:
        """Coefficients in registry order, as the kernels read them."""
        if self.program is not None:
            raise ValueError(f"bot {self.name!r} is an external program: it has no coefficient vector")
        policy = self.policy if self.policy in coefficients.TUNABLE_BOTS else coefficients.V1
        return coefficients.vector(self.params, policy)

    def with_params(self, params: dict, name: str | None = None) -> BotSpec:
        """The same bot with other parameter values (a trial of a study). A frozen bot keeps its
        frozen marks when the values are its own (a test's bot renamed for a batch: still checked
        wherever it plays); other values make another bot, which nothing froze."""
        frozen = self.frozen if dict(params) == dict(self.params) else None
        return BotSpec(name or self.name, self.policy, dict(params), self.program, frozen=frozen)


def known_bot_names() -> list[str]:
    """Every name ``resolve_bot`` takes, but ``params:FILE`` and ``cmd:COMMAND``."""
    from ocean.bots.panel import panel_bots

    return list(POLICIES) + list(panel_bots())


def split_bot_names(text: str) -> list[str]:
    """Comma-separated bot names, where a comma inside quotes ("..." or '...') does not split:
    ``hunter,cmd:"./mybot --w 1,2"``. The quotes stay; ``resolve_bot`` takes them off."""
    names, current, quote = [], [], None
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == ",":
            names.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if quote:
        raise ValueError(f"unbalanced {quote} in {text!r}: close the quotes around a command")
    names.append("".join(current).strip())
    return [n for n in names if n]


def _command_bot(command: str, cwd: str | None) -> BotSpec:
    """A bot given by its command line (``cmd:`` taken off): a program with no parameters,
    started in ``cwd`` (default: the current folder)."""
    from ocean.bots.external import RESERVED, ProgramSpec

    command = command.strip()
    if len(command) >= 2 and command[0] == command[-1] == '"':
        command = command[1:-1]
    try:
        program = ProgramSpec(command, cwd=os.path.abspath(os.path.expanduser(cwd or ".")))
    except ValueError as exc:
        raise ValueError(f"{CMD}{command}: {exc}") from None
    extra = program.placeholders() - set(RESERVED)
    if extra:
        raise ValueError(f"{CMD}{command}: a command bot takes no parameters: put values in place of "
                         f"{', '.join('{' + n + '}' for n in sorted(extra))} ({{game_seed}}, {{turn_ms}} "
                         "and {first_turn_ms} are filled in)")
    return BotSpec(command, PROGRAM, {}, program)


def resolve_bot(name: str, *, cwd: str | None = None) -> BotSpec:
    """A bot by name (see the module doc). ``cwd``: where a ``cmd:`` bot starts (default: the
    current folder). Raises ValueError with one line otherwise."""
    if name.startswith(CMD):
        return _command_bot(name[len(CMD):], cwd)
    if name.startswith("params:"):
        path = Path(name[len("params:"):])
        policy, params = coefficients.read_params_file(path)  # ParamsError is a ValueError
        return BotSpec(path.stem, policy, params)
    if name in POLICIES:
        return BotSpec(name, name, coefficients.defaults(name) if name in coefficients.TUNABLE_BOTS else
                       coefficients.defaults())
    from ocean.bots.panel import latest_version, panel_bots

    bots = panel_bots()
    full = name if name in bots else latest_version(name)
    if full is None:
        import difflib

        families = [n.rpartition("-v")[0] if n.rpartition("-v")[2].isdigit() else n for n in known_bot_names()]
        close = difflib.get_close_matches(name, list(dict.fromkeys(families + known_bot_names())), n=1, cutoff=0.6)
        raise ValueError(f"unknown bot {name!r}; " + (f"did you mean {close[0]!r}? " if close else "")
                         + f"choose one of: {', '.join(known_bot_names())}, params:FILE or cmd:COMMAND")
    bot = bots[full]
    if bot["policy"] == PROGRAM:
        return BotSpec(full, PROGRAM, {}, bot["program"])
    frozen = None if bot["fingerprint"] is None else Frozen(bot["fingerprint"], bot["coefficients_digest"],
                                                            bot["source"])
    return BotSpec(full, bot["policy"], dict(bot["params"]) if bot["params"] else coefficients.defaults(),
                   frozen=frozen)


def panel(name: str = "default") -> list[BotSpec]:
    """The bots of a named panel (ocean/data/panels.toml)."""
    from ocean.bots.panel import panel_members

    return [resolve_bot(member) for member in panel_members(name)]


def bot_kind(name: str) -> int:
    """Kernel id of a bot by name, with a one-line error naming the choices."""
    return resolve_bot(name).kind
