"""The checks of a study file's ``[search]`` entries: a tuned coefficient's range against the
bot's registry (names, bounds, whole numbers, log scales, the defaults inside), a fixed value, and
a program's parameters against the placeholders of its command. Each raises ``ValueError`` with
one line naming the key; ``tuning.study.spec`` turns it into a ``SpecError`` (an ``entry`` is
its ``SearchRange``)."""
from __future__ import annotations

import math
from typing import Any

from ocean.bots import coefficients as registry
from ocean.bots.external import RESERVED, ProgramSpec

__all__ = ["coefficients_of", "check_fixed", "check_program_entry", "check_program_range", "check_program_reach",
           "check_range"]


def coefficients_of(policy: str) -> dict:
    return {c.name: c for c in registry.registry(policy)}


def check_program_entry(name: str, entry: Any) -> None:
    if not name.isidentifier():
        raise ValueError(f"parameter name {name!r} must be a plain name (letters, digits, _), as in {{{name}}}")
    if name in RESERVED:
        raise ValueError(f"{name!r} is filled in by the lab ({{{name}}}); give your parameter another name")
    if isinstance(entry, bool) or not isinstance(entry, (dict, int, float)):
        raise ValueError(f"{name} = {entry!r}: give a number (a fixed value) or a table "
                         "{low = .., high = .., integer = .., log = .., default = ..} (a tuned range)")
    if not isinstance(entry, dict) and not math.isfinite(entry):
        raise ValueError(f"{name} = {entry!r}: a fixed value must be finite (a number the program "
                         "can read)")
    if isinstance(entry, dict):
        for key in ("low", "high"):
            if key not in entry:
                raise ValueError(f"{name}: a program's parameter needs explicit bounds, e.g. "
                                 f"{name} = {{ low = 0.0, high = 1.0 }} (missing {key})")


def check_program_range(name: str, entry: Any) -> None:
    where = f"search.{name}"
    low, high = entry.low, entry.high
    for label, value in (("low", low), ("high", high)) + ((("default", entry.default),) if entry.default is not None
                                                           else ()):
        if not math.isfinite(value):
            raise ValueError(f"{where}.{label} must be a finite number")
        if entry.integer and not float(value).is_integer():
            raise ValueError(f"{where}.{label} = {value!r} must be whole: {name} is an integer")
    _check_order(name, low, high, entry.log)
    if entry.default is not None and not low <= entry.default <= high:
        raise ValueError(f"{where}.default = {_fmt(entry.default)} is outside [{_fmt(low)}, {_fmt(high)}]")


def check_program_reach(program: ProgramSpec, search: dict) -> None:
    """Every placeholder is declared, and every declared parameter reaches the program."""
    used = program.parameter_names()
    for name in sorted(used - set(search)):
        raise ValueError(f"bot: {{{name}}} has no value; declare it in [search], e.g. "
                         f"{name} = {{ low = 0.0, high = 1.0 }}, or give it a fixed value, e.g. {name} = 3")
    if not program.reads_all():
        for name in sorted(set(search) - used):
            raise ValueError(f"search.{name} never reaches the program: use {{{name}}} in bot.command or bot.env, "
                             f"or set bot.params_file = \"toml\" (or \"json\")")


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def check_range(name: str, entry: Any, policy: str) -> None:
    c = coefficients_of(policy)[name]
    low = c.low if entry.low is None else entry.low
    high = c.high if entry.high is None else entry.high
    where = f"search.{name}"
    for label, value in (("low", low), ("high", high)):
        if not math.isfinite(value) or value < c.low or value > c.high:
            raise ValueError(f"{where}.{label} = {_fmt(value)} is outside the coefficient's range; "
                             f"expected {c.describe_range()}")
        if c.integer and not float(value).is_integer():
            raise ValueError(f"{where}.{label} = {value!r} must be whole: {name} is an integer")
    _check_order(name, low, high, entry.log)
    # Trial 0 plays the bot's defaults, the reference every trial is compared with.
    if not low <= c.default <= high:
        raise ValueError(f"{where}: the range [{_fmt(low)}, {_fmt(high)}] must hold {policy}'s default "
                         f"{_fmt(c.default)} (trial 0 plays the defaults); widen it")


def _check_order(name: str, low: float, high: float, log: bool) -> None:
    """A range's bounds in order, and positive on a log scale."""
    if low >= high:
        raise ValueError(f"search.{name}: low ({_fmt(low)}) must be below high ({_fmt(high)}); "
                         f"to fix the value write {name} = {_fmt(low)}")
    if log and low <= 0:
        raise ValueError(f"search.{name}: a log scale needs low > 0 (got {_fmt(low)}); set low, e.g. low = 0.01")


def check_fixed(name: str, value: float, policy: str) -> None:
    try:
        registry.validate({name: value}, partial=True, policy=policy)
    except registry.ParamsError as exc:
        raise ValueError(f"search.{exc}") from None
