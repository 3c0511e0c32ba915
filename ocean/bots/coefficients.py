"""The tunable bot's coefficients: the one source of truth for their names, defaults,
bounds, scales and meaning, and their TOML files.

A coefficient set is handed to compiled code as a float64 vector in registry order
(``vector``); everything user-facing speaks in names.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

__all__ = ["Coefficient", "COEFFICIENTS", "NAMES", "ParamsError", "defaults", "validate", "toml_value",
           "coefficient_line", "vector",
           "from_vector", "load_params", "save_params", "params_toml"]


@dataclass(frozen=True)
class Coefficient:
    """One tunable number of the bot."""

    name: str
    default: float
    low: float
    high: float
    meaning: str
    log: bool = False  # sample on a log scale (both bounds > 0)
    integer: bool = False

    def describe_range(self) -> str:
        kind = "an integer" if self.integer else "a number"
        return f"{kind} in [{_fmt(self.low)}, {_fmt(self.high)}]"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# Damage is counted in lives; "expected" means over the tracker's candidate states.
COEFFICIENTS: tuple[Coefficient, ...] = (
    Coefficient("silence_cost", 0.45, 0.0, 3.0,
                "lives a SILENCE must be worth: its charge is the only escape from a known position"),
    Coefficient("surface_cost", 0.8, 0.0, 3.0,
                "cost of a SURFACE beyond the life it loses: the sector it reveals"),
    Coefficient("torpedo_hit_threshold", 0.42, 0.05, 1.5,
                "expected lives a TORPEDO fired after our move must take to be fired"),
    Coefficient("torpedo_hit_threshold_before", 0.6, 0.05, 1.5,
                "expected lives a TORPEDO fired before our move must take to be fired"),
    Coefficient("trigger_hit_threshold", 0.45, 0.05, 1.5,
                "expected lives a TRIGGER must take to be fired"),
    Coefficient("stealth_weight", 0.12, 0.0, 1.0,
                "value of each doubling of the cells the opponent can believe we are on"),
    Coefficient("space_weight", 1.5, 0.0, 5.0,
                "weight of discount**(free cells reachable): running out of room forces a SURFACE"),
    Coefficient("mine_danger_weight", 1.0, 0.0, 4.0,
                "weight of the expected lives lost to opponent mines on and around our path"),
    Coefficient("retaliation_weight", 0.6, 0.0, 2.0,
                "weight of the opponent's best expected TORPEDO damage against us next turn"),
    Coefficient("discount", 0.95, 0.8, 0.995,
                "per-turn discount of future damage and of the space still free"),
    Coefficient("mine_spacing", 3, 1, 8,
                "fewest cells (king moves) between two of our mines", integer=True),
    Coefficient("sonar_window", 0.25, 0.05, 0.5,
                "SONAR a sector holding between this share and one minus it of the opponent's cells"),
    Coefficient("engage_distance", 6, 2, 12,
                "beyond this distance to the opponent's likely cell we steer towards it", integer=True),
    Coefficient("approach_weight", 0.08, 0.0, 1.0,
                "value per cell of closing in on the opponent when farther than engage_distance"),
    Coefficient("wall_weight", 0.03, 0.0, 0.5,
                "value per island or edge next to the cell we move to (keeps the space in one piece)"),
    Coefficient("mine_priority", 2, 0, 3,
                "place of MINE in the order powers are charged (0 first, 3 last; TORPEDO, SILENCE, SONAR keep theirs)",
                integer=True),
)

NAMES: tuple[str, ...] = tuple(c.name for c in COEFFICIENTS)
_BY_NAME = {c.name: c for c in COEFFICIENTS}
INDEX = {name: i for i, name in enumerate(NAMES)}


class ParamsError(ValueError):
    """A coefficient set or file that cannot be used; the message is one line."""


def defaults() -> dict[str, float]:
    """The bot's default coefficients by name."""
    return {c.name: c.default for c in COEFFICIENTS}


def _check_value(c: Coefficient, value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParamsError(f"{where}{c.name} = {value!r} is not a number; expected {c.describe_range()}")
    value = float(value)
    if not math.isfinite(value) or value < c.low or value > c.high:
        raise ParamsError(f"{where}{c.name} = {_fmt(value)} is out of bounds; expected {c.describe_range()}")
    if c.integer and not value.is_integer():
        raise ParamsError(f"{where}{c.name} = {value!r} is not whole; expected {c.describe_range()}")
    return value


def validate(values: Mapping[str, object], *, partial: bool = False, where: str = "") -> dict[str, float]:
    """Check names, types and bounds; returns the full set (missing names take their defaults
    when ``partial``, else they are refused). ``where`` prefixes messages (e.g. a file name)."""
    prefix = f"{where}: " if where else ""
    for name in values:
        if name not in _BY_NAME:
            raise ParamsError(f"{prefix}unknown coefficient {name!r}; known: {', '.join(NAMES)}")
    out = {}
    for c in COEFFICIENTS:
        if c.name in values:
            out[c.name] = _check_value(c, values[c.name], prefix)
        elif partial:
            out[c.name] = float(c.default)
        else:
            raise ParamsError(f"{prefix}missing coefficient {c.name!r} ({c.describe_range()}; default {_fmt(c.default)})")
    return out


def vector(values: Mapping[str, float] | None = None) -> np.ndarray:
    """A full, validated set as the float64 vector compiled code reads (defaults if None)."""
    full = validate(values if values is not None else defaults())
    return np.array([full[name] for name in NAMES], dtype=np.float64)


def from_vector(vec: np.ndarray) -> dict[str, float]:
    """Names for a vector in registry order."""
    if len(vec) != len(NAMES):
        raise ParamsError(f"a coefficient vector has {len(NAMES)} entries, got {len(vec)}")
    return {name: (int(v) if _BY_NAME[name].integer else float(v)) for name, v in zip(NAMES, vec)}


def load_params(path: str | Path) -> dict[str, float]:
    """Read a coefficient file: a ``[coefficients]`` table holding every coefficient (other
    tables, such as ``[provenance]``, are kept for people and ignored here)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ParamsError(f"{path}: cannot read ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ParamsError(f"{path}: not valid TOML ({exc})") from None
    table = data.get("coefficients")
    if not isinstance(table, dict):
        raise ParamsError(f"{path}: no [coefficients] table; write one line 'name = value' per coefficient under it")
    return validate(table, where=str(path))


def params_toml(values: Mapping[str, float], provenance: Mapping[str, object] | None = None) -> str:
    """TOML text of a full coefficient set, each line with its meaning and range."""
    full = validate(values)
    lines = ["# Ocean of Code bot coefficients (play them with: ocean bot --params THIS_FILE)", ""]
    if provenance:
        lines.append("[provenance]")
        for key, value in provenance.items():
            lines.append(f"{key} = {toml_value(value)}")
        lines.append("")
    lines.append("[coefficients]")
    for c in COEFFICIENTS:
        lines.append(f"# {c.meaning}; {c.describe_range()}")
        lines.append(coefficient_line(c, full[c.name]))
    return "\n".join(lines) + "\n"


def coefficient_line(c: Coefficient, value: float) -> str:
    """``name = value`` as a coefficient file holds it (integers without a decimal point)."""
    return f"{c.name} = {int(value) if c.integer else repr(float(value))}"


def toml_value(value: object) -> str:
    """A TOML literal for a bool, number, string or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def save_params(values: Mapping[str, float], path: str | Path, provenance: Mapping[str, object] | None = None) -> None:
    """Write a full coefficient set as TOML (``load_params`` reads it back unchanged)."""
    Path(path).write_text(params_toml(values, provenance))
