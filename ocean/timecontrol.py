"""Time control: how long a program is told it has per answer, and what the referee enforces.

A program is told ``turn_ms`` (every answer) and ``first_turn_ms`` (the first one, its start
cell) through the placeholders ``{turn_ms}`` and ``{first_turn_ms}`` (ocean.bots.external); the
referee enforces those times multiplied by ``scale`` and by ``machine`` (a slower machine than
CodinGame's, a loaded one). ``machine`` is a property of the machine, not of a program: it also
stretches the limits of a frozen program, which keeps the times it was told and its own scale (its
time control is part of what was frozen). In-process bots ignore time: their search budgets count
work, never the clock.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from ocean.constants import FIRST_TURN_MS, MAX_TIME_SCALE, TURN_MS
from ocean.sandbox import DEFAULT_POLICY, SandboxPolicy

__all__ = ["TimeControl", "DEFAULT_TIME", "TURN_MS_NAME", "FIRST_TURN_MS_NAME", "from_old_limits"]

TURN_MS_NAME = "turn_ms"  # the placeholder names, as a program's command line or file reads them
FIRST_TURN_MS_NAME = "first_turn_ms"


@dataclass(frozen=True)
class TimeControl:
    """What a program is told (``turn_ms``, ``first_turn_ms``, whole milliseconds) and what is
    enforced (those times x ``scale`` x ``machine``). CodinGame's: 50 ms, 1000 ms, scale 1.
    ``machine``: how much slower or busier this machine is than CodinGame's, applied to every
    program of a game, frozen ones too (``for_program``). ``sandbox``: how every program of the
    game is run (``ocean.sandbox``: its memory limit, the sandbox required or not), like
    ``machine`` a property of the run, not of a program; it is neither compared nor stored."""

    turn_ms: int = TURN_MS
    first_turn_ms: int = FIRST_TURN_MS
    scale: float = 1.0
    machine: float = 1.0
    sandbox: SandboxPolicy = field(default=DEFAULT_POLICY, compare=False)

    def __post_init__(self) -> None:
        for name in (TURN_MS_NAME, FIRST_TURN_MS_NAME):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} = {value!r}: give a whole number of milliseconds, at least 1 "
                                 f"(CodinGame's: {TURN_MS_NAME} = {TURN_MS}, {FIRST_TURN_MS_NAME} = {FIRST_TURN_MS})")
        for name, what in (("scale", "time scale"), ("machine", "machine scale")):
            scale = getattr(self, name)
            if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) \
                    or not 0 < scale <= MAX_TIME_SCALE:
                raise ValueError(f"{what} = {scale!r}: give a number above 0 and at most {MAX_TIME_SCALE:g} "
                                 "(the limits enforced are the times told x this)")
            object.__setattr__(self, name, float(scale))

    @property
    def turn_limit_ms(self) -> int:
        """The limit the referee enforces on every answer after the first."""
        return max(1, round(self.turn_ms * self.scale * self.machine))

    @property
    def first_limit_ms(self) -> int:
        """The limit the referee enforces on the first answer."""
        return max(1, round(self.first_turn_ms * self.scale * self.machine))

    def scaled(self, factor: float) -> TimeControl:
        """The same times told, the limits ``factor`` times longer (capped at the largest scale)."""
        return TimeControl(self.turn_ms, self.first_turn_ms, min(MAX_TIME_SCALE, self.scale * factor), self.machine,
                           self.sandbox)

    def on_machine(self, machine: float) -> TimeControl:
        """The same time control enforced on a machine ``machine`` times slower (replacing this one's)."""
        return TimeControl(self.turn_ms, self.first_turn_ms, self.scale, machine, self.sandbox)

    def run_as(self, sandbox: SandboxPolicy) -> TimeControl:
        """The same time control, its programs run under ``sandbox``."""
        return TimeControl(self.turn_ms, self.first_turn_ms, self.scale, self.machine, sandbox)

    def for_program(self, own: TimeControl | None) -> TimeControl:
        """The time control a program plays with in a game of this time control: its ``own``
        (a frozen program's: it stays the same opponent) on this game's machine, else this one."""
        return self if own is None else own.on_machine(self.machine).run_as(self.sandbox)

    def values(self) -> dict[str, str]:
        """The placeholders' values: the times told, unscaled, as integers."""
        return {TURN_MS_NAME: str(self.turn_ms), FIRST_TURN_MS_NAME: str(self.first_turn_ms)}

    def as_json(self) -> dict:
        out = {TURN_MS_NAME: self.turn_ms, FIRST_TURN_MS_NAME: self.first_turn_ms, "scale": self.scale}
        if self.machine != 1.0:  # stored time controls keep their old form on a machine like CodinGame's
            out["machine"] = self.machine
        return out

    @classmethod
    def from_json(cls, data: Mapping, where: str = "time") -> TimeControl:
        """From ``as_json``'s form (a TOML table too); ValueError (one line) naming ``where``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where} must be a table {{ {TURN_MS_NAME} = 50, {FIRST_TURN_MS_NAME} = 1000, "
                             "scale = 1.0 }")
        unknown = set(data) - {TURN_MS_NAME, FIRST_TURN_MS_NAME, "scale", "machine"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; "
                             f"keys: {TURN_MS_NAME}, {FIRST_TURN_MS_NAME}, scale, machine")
        try:
            return cls(data.get(TURN_MS_NAME, TURN_MS), data.get(FIRST_TURN_MS_NAME, FIRST_TURN_MS),
                       data.get("scale", 1.0), data.get("machine", 1.0))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    def describe(self) -> str:
        """One line for people: ``50 ms a turn, 1000 ms the first (limits x2)``."""
        factors = [f"x{x:g}" for x in (self.scale,) if x != 1.0]
        factors += [f"x{self.machine:g} for this machine"] if self.machine != 1.0 else []
        scale = "" if not factors else f" (limits {' '.join(factors)}: {self.turn_limit_ms} and " \
                                       f"{self.first_limit_ms} ms)"
        return f"{self.turn_ms} ms a turn, {self.first_turn_ms} ms the first{scale}"


DEFAULT_TIME = TimeControl()  # CodinGame's


def from_old_limits(timeout: int | None, first_timeout: int | None, turn_ms: int,
                    first_turn_ms: int) -> tuple[int, int, float, list[str]]:
    """``ocean referee``'s old ``--timeout``/``--first-timeout`` (deprecated, kept hidden): they
    were the limits enforced, and programs were told nothing. Each becomes the time told with a
    scale of 1, so the limits stay the same: (turn_ms, first_turn_ms, scale, one warning line per
    old option naming its successor and the change of meaning). ValueError for a value below 1."""
    warnings = []
    for old, new, value, what in (("--timeout", "--turn-ms", timeout, "every later answer"),
                                  ("--first-timeout", "--first-turn-ms", first_timeout, "the first answer")):
        if value is None:
            continue
        if value < 1:
            raise ValueError(f"{old} is a whole number of milliseconds, at least 1, got {value}")
        warnings.append(f"{old} is deprecated and will go: it was the limit of {what}; {new} is now what the "
                        f"program is told, and --time-scale turns it into the limit; {old} {value} is played as "
                        f"{new} {value} --time-scale 1 (the same limit)")
    return (turn_ms if timeout is None else timeout, first_turn_ms if first_timeout is None else first_timeout,
            1.0, warnings)
