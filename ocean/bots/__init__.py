"""Bots: policies, their coefficients, external programs, and bots by name.

A bot is a ``BotSpec``: a policy (compiled kernel) plus, for the tunable policy, a full
coefficient set; or an external program (policy ``program``: a ``ProgramSpec`` and the values
of its parameters). Arenas, panels, studies and exports take either kind alike. ``resolve_bot`` takes a policy name (``random``, ``chaser``,
``tunable`` — the frozen v1 bot — or ``tunable-v2``, with their default coefficients), a frozen panel bot (``hunter-v1``, or
``hunter`` for its latest version), or ``params:FILE`` (the tunable bot the file names,
``tunable`` if it names none, with that file's coefficients). ``panel(name)`` lists a named panel's bots.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ocean.bots import coefficients
from ocean.bots.registry import POLICIES
from ocean.bots.external import ProgramSpec
from ocean.bots.panel import latest_version, panel_bots, panel_members

__all__ = ["BotSpec", "ProgramSpec", "PROGRAM", "POLICIES", "BASELINE_BOTS", "bot_kind", "resolve_bot", "panel",
           "known_bot_names", "coefficients"]

BASELINE_BOTS = ("random", "chaser")
PROGRAM = "program"  # the policy of a bot that is an external program


@dataclass(frozen=True)
class BotSpec:
    """A bot: an in-process policy with its coefficients, or an external program (``program``
    set, policy ``PROGRAM``) with the values of its parameters in ``params``."""

    name: str
    policy: str
    params: dict = field(default_factory=coefficients.defaults)
    program: ProgramSpec | None = None

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
        """The same bot with other parameter values (a trial of a study)."""
        return BotSpec(name or self.name, self.policy, dict(params), self.program)


def known_bot_names() -> list[str]:
    """Every name ``resolve_bot`` takes, but ``params:FILE``."""
    return list(POLICIES) + list(panel_bots())


def resolve_bot(name: str) -> BotSpec:
    """A bot by name (see the module doc). Raises ValueError with one line otherwise."""
    if name.startswith("params:"):
        path = Path(name[len("params:"):])
        policy, params = coefficients.read_params_file(path)  # ParamsError is a ValueError
        return BotSpec(path.stem, policy, params)
    if name in POLICIES:
        return BotSpec(name, name, coefficients.defaults(name) if name in coefficients.TUNABLE_BOTS else
                       coefficients.defaults())
    bots = panel_bots()
    full = name if name in bots else latest_version(name)
    if full is None:
        raise ValueError(f"unknown bot {name!r}; choose one of: {', '.join(known_bot_names())}, or params:FILE")
    bot = bots[full]
    if bot["policy"] == PROGRAM:
        return BotSpec(full, PROGRAM, {}, bot["program"])
    return BotSpec(full, bot["policy"], dict(bot["params"]) if bot["params"] else coefficients.defaults())


def panel(name: str = "default") -> list[BotSpec]:
    """The bots of a named panel (ocean/data/panels.toml)."""
    return [resolve_bot(member) for member in panel_members(name)]


def bot_kind(name: str) -> int:
    """Kernel id of a bot by name, with a one-line error naming the choices."""
    return resolve_bot(name).kind
