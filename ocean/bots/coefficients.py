"""The tunable bots' coefficients: the one source of truth for their names, defaults,
bounds, scales and meaning, and their TOML files.

One registry per generation of the tunable bot: ``COEFFICIENTS`` (the v1 bot, policies
``tunable`` and ``tunable-v1``; frozen with it), ``COEFFICIENTS_V2`` (policy ``tunable-v2``;
frozen with it) and ``COEFFICIENTS_V3`` (policy ``tunable-v3``); the bot registry
(``bots.registry``) says which policy reads which, so a new bot's registry may live in its
own package. Functions take ``policy`` (default: the v1 bot). A coefficient set is handed
to compiled code as a float64 vector in registry order, padded with zeros to ``VECTOR_SIZE``
so both players' vectors stack whatever their bots (``vector``); everything user-facing
speaks in names. A coefficient file says which bot it was tuned for (``bot = "tunable-v2"``);
a file that does not say is a v1 file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import numpy as np

from ocean.bots import registry as _policies

__all__ = ["Coefficient", "COEFFICIENTS", "COEFFICIENTS_V2", "COEFFICIENTS_V3", "NAMES", "ParamsError", "V1", "V2", "V3",
           "TUNABLE_BOTS",
           "VECTOR_SIZE", "slots", "registry", "names", "defaults", "validate", "toml_value", "coefficient_line",
           "vector", "read_params_file", "save_params", "params_toml"]

V1 = "tunable"  # the policy a coefficient file without a ``bot`` key plays (the frozen v1 bot)
V2 = "tunable-v2"
V3 = "tunable-v3"
VECTOR_SIZE = 64  # every coefficient vector's length (registries are shorter; the rest is 0)


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


def slots(coefficients: tuple[Coefficient, ...]) -> dict[str, int]:
    """A bot's coefficient registry as its compiled code reads it: each name's slot in the
    vector (registry order). A registry longer than ``VECTOR_SIZE`` cannot be handed over."""
    assert len(coefficients) <= VECTOR_SIZE, f"{len(coefficients)} coefficients; a vector holds {VECTOR_SIZE}"
    return {c.name: i for i, c in enumerate(coefficients)}


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
INDEX = {name: i for i, name in enumerate(NAMES)}  # the frozen v1 bot's slots

# v2's own defaults for the numbers it shares with v1, chosen with those of the new coefficients
# (torpedo_ready_value, plausible_wall_weight) by measurement: each moved alone, 2,000 games
# against a tuned v1, kept when it gained; 0.475 before (maps 5000..5499), 0.624 after (maps
# 6000..6999) (docs/benchmarks.md, "v2 with weighted opponent states and measured defaults").
_V2_DEFAULTS = {"trigger_hit_threshold": 0.68, "engage_distance": 9, "approach_weight": 0.0}
_SHARED_V2 = {c.name: replace(c, default=_V2_DEFAULTS.get(c.name, c.default))
              for c in COEFFICIENTS if c.name not in ("torpedo_hit_threshold_before",)}
# The v2 bot (ocean/bots/v2/): the v1 numbers it still reads (same names, same meaning; one
# TORPEDO threshold for every place in the line), then the numbers that were hidden constants
# of v1, then what is new.
COEFFICIENTS_V2: tuple[Coefficient, ...] = tuple(_SHARED_V2.values()) + (
    Coefficient("opponent_unready_factor", 0.35, 0.0, 1.0,
                "share of the retaliation feared while the opponent's TORPEDO cannot be charged yet"),
    Coefficient("retaliation_radius", 6, 2, 10,
                "the opponent retaliates if it is within this many cells (Manhattan) of where we end", integer=True),
    Coefficient("exact_retaliation_cells", 24, 4, 80,
                "the opponent's best shot is computed exactly up to this many cells it believes we are on",
                integer=True),
    Coefficient("retaliation_estimate", 5.0, 1.0, 12.0,
                "beyond exact_retaliation_cells the opponent's best shot takes this / cells lives"),
    Coefficient("space_horizon", 60, 10, 120,
                "free cells counted by the room-left flood fill (discount**room is the room penalty)", integer=True),
    Coefficient("kill_bonus", 2.0, 0.0, 6.0,
                "lives a TORPEDO is worth beyond its damage per unit of probability that it kills the opponent"),
    Coefficient("life_lead_weight", 0.15, 0.0, 1.0,
                "per life of lead, more fear of retaliation (ahead: play safe; behind: take risks)"),
    Coefficient("torpedo_ready_value", 0.6, 0.0, 1.5,
                "lives a charged TORPEDO kept at the end of our line is worth"),
    Coefficient("silence_ready_value", 0.3, 0.0, 1.5,
                "lives a charged SILENCE kept at the end of our line is worth"),
    Coefficient("path_depth", 5, 1, 8,
                "moves ahead the minefield search looks (cheapest path through the opponent's mines)", integer=True),
    Coefficient("path_danger_weight", 1.0, 0.0, 4.0,
                "weight of the discounted mine damage along the cheapest path ahead of where we end"),
    Coefficient("dead_end_cost", 2.0, 0.0, 6.0,
                "lives lost when the path ahead ends before path_depth moves (a forced SURFACE or worse)"),
    Coefficient("mine_fear_cells", 225, 1, 225,
                "the opponent's mines are feared in full while it believes us on at most this many cells, less beyond",
                integer=True),
    Coefficient("silence_after_torpedo", 1.0, 0.0, 1.0,
                "share of silence_cost a SILENCE costs in a line that fires a TORPEDO (the shot gave us away)"),
    Coefficient("attack_mine_value", 10.0, 0.1, 10.0,
                "a MINE is laid where its blast is worth at least this many lives against the opponent, spacing aside "
                "(seed 002's attack mines; 10: never, a blast is worth at most 2 + kill_bonus)"),
    Coefficient("plausible_cells", 30, 0, 225,
                "the opponent's states are weighted by plausibility once they cover at most this many cells (0: never)",
                integer=True),
    Coefficient("plausible_horizon", 20, 4, 60,
                "free cells counted from each opponent state to weigh the room it kept", integer=True),
    Coefficient("plausible_room_weight", 1.0, 0.0, 4.0,
                "power of the share of plausible_horizon an opponent state can still reach in its weight"),
    Coefficient("plausible_wall_weight", 3.0, 0.0, 4.0,
                "weight of the share of an opponent state's path that hugged islands or edges"),
)
INDEX_V2 = slots(COEFFICIENTS_V2)  # the v2 bot's slots

# The v3 bot (ocean/bots/v3/) reads v2's numbers, with v2's defaults, but those its exact model
# of the opponent's answer replaces (the radius, the cell limit and estimate, the factor while
# its TORPEDO is not charged: v3 counts the opponent's charges and reach instead) and the SONAR
# window (v3 values a SONAR by what its answer adds to our next shot). Its own defaults were
# chosen by measurement against patient-v1 and balanced-v2 on maps 30000..31999 and 40000..40999,
# which no reported figure uses (docs/benchmarks.md, "The v3 bot"): a SILENCE before the MOVE,
# the opponent's SILENCE before its shot and its answer two turns ahead were each feared or
# considered and measured no better, so their defaults leave them off; an 80-trial SPSA study
# of 25 coefficients around these defaults found none better.
_REPLACED_IN_V3 = ("opponent_unready_factor", "retaliation_radius", "exact_retaliation_cells", "retaliation_estimate",
                   "sonar_window")
COEFFICIENTS_V3: tuple[Coefficient, ...] = tuple(c for c in COEFFICIENTS_V2 if c.name not in _REPLACED_IN_V3) + (
    Coefficient("opponent_fire_threshold", 0.5, 0.05, 2.0,
                "expected lives the opponent's best TORPEDO must take from us for it to fire (how we model it)"),
    Coefficient("death_weight", 2.0, 0.0, 6.0,
                "lives the opponent's shot costs beyond its damage per unit of chance that it takes our last lives"),
    Coefficient("silence_before_move", 0, 0, 1,
                "1: also consider lines that SILENCE before their MOVE (more lines, more time per turn)", integer=True),
    Coefficient("opponent_silence_attack", 0.0, 0.0, 1.0,
                "chance the opponent SILENCEs closer before firing, while its SILENCE may be charged"),
    Coefficient("later_answer_weight", 0.0, 0.0, 1.0,
                "share of the opponent's answer feared when its TORPEDO can be charged only by the turn after next"),
    Coefficient("counter_value", 0.3, 0.0, 2.0,
                "lives per unit of chance that the opponent fires at us while our TORPEDO is ready to answer the shot"),
    Coefficient("sonar_min_gain", 0.15, 0.0, 2.0,
                "lives a SONAR's answer must be expected to add to our best TORPEDO for it to be used"),
    Coefficient("mine_traffic_depth", 3, 0, 8,
                "moves ahead the opponent's likely cells are spread to find where its paths go (for MINE)", integer=True),
    Coefficient("mine_traffic_weight", 10.0, 0.0, 20.0,
                "weight of the opponent's likely presence under a MINE's blast beside its distance to our other mines"),
)


slots(COEFFICIENTS)
INDEX_V3 = slots(COEFFICIENTS_V3)  # the v3 bot's slots
TUNABLE_BOTS: tuple[str, ...] = _policies.TUNABLE_POLICIES  # the policies that read coefficients


def registry(policy: str = V1) -> tuple[Coefficient, ...]:
    """The coefficients of a tunable policy, in vector order."""
    if policy not in TUNABLE_BOTS:
        raise ParamsError(f"bot {policy!r} reads no coefficients; tunable bots: {', '.join(TUNABLE_BOTS)}")
    return _policies.policy(policy).coefficient_registry()


def names(policy: str = V1) -> tuple[str, ...]:
    """Coefficient names of a tunable policy, in vector order."""
    return tuple(c.name for c in registry(policy))


class ParamsError(ValueError):
    """A coefficient set or file that cannot be used; the message is one line."""


def defaults(policy: str = V1) -> dict[str, float]:
    """The default coefficients of a tunable policy by name."""
    return {c.name: c.default for c in registry(policy)}


def _check_value(c: Coefficient, value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParamsError(f"{where}{c.name} = {value!r} is not a number; expected {c.describe_range()}")
    value = float(value)
    if not math.isfinite(value) or value < c.low or value > c.high:
        raise ParamsError(f"{where}{c.name} = {_fmt(value)} is out of bounds; expected {c.describe_range()}")
    if c.integer and not value.is_integer():
        raise ParamsError(f"{where}{c.name} = {value!r} is not whole; expected {c.describe_range()}")
    return value


def validate(values: Mapping[str, object], *, partial: bool = False, where: str = "",
             policy: str = V1) -> dict[str, float]:
    """Check names, types and bounds against ``policy``'s registry; returns the full set
    (missing names take their defaults when ``partial``, else they are refused). ``where``
    prefixes messages (e.g. a file name)."""
    prefix = f"{where}: " if where else ""
    coefs = registry(policy)
    known = {c.name for c in coefs}
    for name in values:
        if name not in known:
            raise ParamsError(f"{prefix}unknown coefficient {name!r}; known: {', '.join(c.name for c in coefs)} "
                              f"(the coefficients of bot {policy})")
    out = {}
    for c in coefs:
        if c.name in values:
            out[c.name] = _check_value(c, values[c.name], prefix)
        elif partial:
            out[c.name] = float(c.default)
        else:
            raise ParamsError(f"{prefix}missing coefficient {c.name!r} ({c.describe_range()}; default {_fmt(c.default)})")
    return out


def vector(values: Mapping[str, float] | None = None, policy: str = V1) -> np.ndarray:
    """A full, validated set as the float64 vector compiled code reads (defaults if None):
    registry order, zeros after the registry up to ``VECTOR_SIZE``."""
    full = validate(values if values is not None else defaults(policy), policy=policy)
    vec = np.zeros(VECTOR_SIZE, dtype=np.float64)
    for i, c in enumerate(registry(policy)):
        vec[i] = full[c.name]
    return vec


def read_params_file(path: str | Path) -> tuple[str, dict[str, float]]:
    """Read a coefficient file: (the bot it was tuned for, its coefficients). The file holds
    ``bot = "..."`` (none: the v1 bot, ``tunable``) and a ``[coefficients]`` table with every
    coefficient of that bot (other tables, such as ``[provenance]``, are kept for people and
    ignored here)."""
    import tomllib  # here: ``ocean bot`` with a policy's defaults reads no file before its first answer

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
    policy = data.get("bot", V1)
    if policy not in TUNABLE_BOTS:
        raise ParamsError(f"{path}: bot = {policy!r} is not a tunable bot; write one of "
                          f"{', '.join(map(repr, TUNABLE_BOTS))} (no bot line: a v1 file, {V1!r})")
    return policy, validate(table, where=str(path), policy=policy)


def params_toml(values: Mapping[str, float], provenance: Mapping[str, object] | None = None,
                policy: str = V1) -> str:
    """TOML text of a full coefficient set of ``policy``, each line with its meaning and
    range; it names the bot it plays (``bot = ...``)."""
    full = validate(values, policy=policy)
    lines = ["# Ocean of Code bot coefficients (play them with: ocean bot --params THIS_FILE)", "",
             f"bot = {toml_value(policy)}", ""]
    if provenance:
        lines.append("[provenance]")
        for key, value in provenance.items():
            lines.append(f"{key} = {toml_value(value)}")
        lines.append("")
    lines.append("[coefficients]")
    for c in registry(policy):
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


def save_params(values: Mapping[str, float], path: str | Path, provenance: Mapping[str, object] | None = None,
                policy: str = V1) -> None:
    """Write a full coefficient set as TOML (``read_params_file`` reads it back unchanged)."""
    Path(path).write_text(params_toml(values, provenance, policy))
