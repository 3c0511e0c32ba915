"""The bot registry: every in-process policy in one table, and everything derived from it.

One ``Policy`` per policy: the name users write (panels.toml, ``--p0``, ``--name``, a study's
``policy``), its kind (the integer a kinds array carries), its three kernels, its memory size,
its coefficient registry (or none), whether it is frozen, and a line saying what it is.
Kernels, memory size and coefficients are named by ``"module:attribute"`` and imported only
when a game needs them: naming a policy imports and compiles nothing.

Every policy reaches the games loop (``ocean._match``) and ``ocean bot`` (``ocean.program``)
the same way, through three function-pointer slots of fixed signature (``bots._slots``):

- start ``f(board, rng) -> cell``: the start cell;
- reset ``f(board, mem) -> 0``: prepare ``mem`` for a new game;
- turn ``f(state, board, p, mem, rng, out, coefs) -> rows``: the encoded line written to
  ``out`` for player ``p``; ``coefs`` is the coefficient vector in registry order.

So the loop's compiled code holds no bot (but for the random bot's turn, called directly for
speed: ``ocean._match``): a bot's kernels compile (or load from the cache) on their own, never
into the loop, and only when a game or ``ocean warmup`` asks for them.

Derived here: ``POLICIES`` (name -> kind), ``TUNABLE_POLICIES`` (those that read
coefficients), ``STUDY_POLICIES`` (those a study file may tune), ``WARMUP_POLICIES`` (what
``ocean warmup`` compiles), ``FIRST_USE_POLICIES`` (compiled when a game first names them, or
by ``ocean warmup --all``), ``mem_size`` (the memory every bot gets) and ``is_frozen``. The
games loop's slots, ``ocean bot``'s kernels, ``ocean warmup``'s list, the coefficient
registries of ``bots.coefficients``, panels' policy checks, study files and the command
line's lists all read them.

How to add a bot (say ``tunable-td``, in ``ocean/bots/td/``):

1. In its own package, write kernels with the three slot signatures above (``@kernel`` from
   ``ocean._jit``; a reset returns 0, a turn the rows it wrote). A start cell rule can be an
   existing one (``ocean.bots._tunable_v1:roomy_start``, ``ocean.bots._baselines:random_start``).
   Put its memory size (int64 words) in a module constant, and, if it reads coefficients, a
   tuple of ``coefficients.Coefficient`` (at most ``coefficients.VECTOR_SIZE`` of them) in a
   module of its own package.
2. Add one ``Policy(...)`` line to ``TABLE`` below, with a new name and the next kind.
   ``frozen=False`` until panel members freeze it; ``warmup=False`` keeps it out of the cold
   ``ocean warmup`` (it compiles when a game first names it, or with ``ocean warmup --all``).
3. Run ``python -m pytest -q tests/ocean/bots/test_registry.py``: it compiles the new entry's
   kernels and plays it against ``random`` through both doors.

Nothing else changes: no other file, and the games loop is never compiled with it.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

__all__ = ["Policy", "TABLE", "POLICIES", "TUNABLE_POLICIES", "STUDY_POLICIES", "WARMUP_POLICIES", "FIRST_USE_POLICIES", "FROZEN_POLICIES",
           "policy", "policy_of_kind", "is_frozen", "mem_size", "resolve"]

# Modules the built-in entries name (a new bot's entry names its own package's modules).
_BASELINES = "ocean.bots._baselines"
_V1 = "ocean.bots._tunable_v1"
_ADAPT = "ocean.bots._adapters"  # the slot signatures for the bots written before the slots
_COEFS = "ocean.bots.coefficients"


@dataclass(frozen=True)
class Policy:
    """One in-process policy. ``start``, ``reset``, ``turn``, ``memory`` and ``coefficients``
    are ``"module:attribute"`` references, imported on first use (``resolve``)."""

    name: str  # as users write it
    kind: int  # the id a kinds array carries; never reused for another policy
    start: str  # kernel f(board, rng) -> start cell
    reset: str  # kernel f(board, mem) -> 0
    turn: str  # kernel f(state, board, p, mem, rng, out, coefs) -> rows written to out
    memory: str  # int: words of ``mem`` the policy uses
    coefficients: str | None  # tuple of Coefficient the policy reads (vector order), or None
    frozen: bool  # plays exactly as when its panel members were frozen; never changes again
    description: str  # one line
    warmup: bool = True  # compiled by ``ocean warmup``; else on first use or by ``ocean warmup --all``
    studies: bool = True  # a study file may tune it (``policy = ...``), if it reads coefficients
    # A search that can also stop on the wall clock: "module:attribute" of a Python function
    # f(state, board, p, mem, rng, out, coefs, seconds) -> rows that ``ocean bot --turn-ms`` calls
    # instead of the turn kernel, stopping its search ``seconds`` from now; None: none. Its module
    # (imported without Numba) also names the kernels it calls (``KERNELS``), builds the same
    # function over any of them (``clocked``) and gives their pycc exports (``aot_exports``), so
    # that the policy's ahead-of-time module (``ocean._aot``) serves ``--turn-ms`` too.
    clock: str | None = None

    @property
    def tunable(self) -> bool:
        """Whether the policy reads a coefficient vector."""
        return self.coefficients is not None

    def kernels(self) -> tuple:
        """The (start, reset, turn) kernels (dispatchers, not compiled by this call)."""
        return resolve(self.start), resolve(self.reset), resolve(self.turn)

    def coefficient_registry(self) -> tuple:
        """The coefficients the policy reads, in vector order (empty if none)."""
        return resolve(self.coefficients) if self.coefficients is not None else ()


TABLE: tuple[Policy, ...] = (
    Policy("random", kind=0, start=f"{_BASELINES}:random_start", reset=f"{_ADAPT}:baseline_reset",
           turn=f"{_ADAPT}:random_turn", memory=f"{_BASELINES}:BASELINE_MEM", coefficients=None, frozen=True,
           description="a random legal line every turn"),
    Policy("chaser", kind=1, start=f"{_BASELINES}:random_start", reset=f"{_ADAPT}:chaser_reset",
           turn=f"{_ADAPT}:chaser_turn", memory=f"{_BASELINES}:BASELINE_MEM", coefficients=None, frozen=True,
           description="moves towards the opponent's likely cells and fires at them"),
    Policy("tunable", kind=3, start=f"{_V1}:roomy_start", reset=f"{_ADAPT}:v1_reset", turn=f"{_V1}:tunable_turn",
           memory=f"{_V1}:TUNABLE_MEM", coefficients=f"{_COEFS}:COEFFICIENTS", frozen=True,
           description="the v1 bot: scores every sensible line with its coefficients (bots/_tunable_v1.py)"),
    Policy("tunable-v1", kind=2, start=f"{_BASELINES}:random_start", reset=f"{_ADAPT}:v1_reset",
           turn=f"{_V1}:tunable_turn", memory=f"{_V1}:TUNABLE_MEM", coefficients=f"{_COEFS}:COEFFICIENTS",
           frozen=True, studies=False, description="the v1 bot starting on any water cell, as frozen in panel v1"),
    Policy("tunable-v2", kind=4, start=f"{_V1}:roomy_start", reset=f"{_ADAPT}:v2_reset",
           turn="ocean.bots.v2._turn:v2_turn", memory="ocean.bots.v2._observe:V2_MEM",
           coefficients=f"{_COEFS}:COEFFICIENTS_V2", frozen=True,
           description="the v2 search: minefield paths, kill shots, life lead (bots/v2/)"),
    Policy("tunable-v3", kind=5, start=f"{_V1}:roomy_start", reset="ocean.bots.v3._observe:v3_reset",
           turn="ocean.bots.v3._turn:v3_turn", memory="ocean.bots.v3._observe:V3_MEM",
           coefficients=f"{_COEFS}:COEFFICIENTS_V3", frozen=False, warmup=False,
           description="the v3 search: the opponent's answer and ours (bots/v3/)"),
    Policy("tunable-td", kind=6, start=f"{_V1}:roomy_start", reset="ocean.bots.v3._observe:v3_reset",
           turn="ocean.bots.td._turn:td_turn", memory="ocean.bots.td._turn:TD_MEM",
           coefficients="ocean.bots.td.coefficients:COEFFICIENTS_TD", frozen=False, warmup=False,
           description="v3's search scored by a linear advantage learned by TD self-play (bots/td/)"),
    Policy("tunable-v4", kind=7, start=f"{_V1}:roomy_start", reset="ocean.bots.v3._observe:v3_reset",
           turn="ocean.bots.v4._turn:v4_turn", memory="ocean.bots.v4._turn:V4_MEM",
           coefficients="ocean.bots.v4.coefficients:COEFFICIENTS_V4", frozen=False, warmup=False,
           clock="ocean.bots.v4._clock:clocked_turn",
           description="seed 002's tree search over v3's lines, for an iteration budget (bots/v4/)"),
)

POLICIES: dict[str, int] = {p.name: p.kind for p in TABLE}
TUNABLE_POLICIES: tuple[str, ...] = tuple(p.name for p in TABLE if p.tunable)
STUDY_POLICIES: tuple[str, ...] = tuple(p.name for p in TABLE if p.tunable and p.studies)
WARMUP_POLICIES: tuple[str, ...] = tuple(p.name for p in TABLE if p.warmup)
FIRST_USE_POLICIES: tuple[str, ...] = tuple(p.name for p in TABLE if not p.warmup)
FROZEN_POLICIES: tuple[str, ...] = tuple(p.name for p in TABLE if p.frozen)
_BY_NAME = {p.name: p for p in TABLE}
_BY_KIND = {p.kind: p for p in TABLE}


def policy(name: str) -> Policy:
    """The entry of policy ``name``; ValueError (one line naming the choices) otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; policies: {', '.join(POLICIES)}") from None


def policy_of_kind(kind: int) -> Policy:
    """The entry whose kind is ``kind``."""
    try:
        return _BY_KIND[int(kind)]
    except KeyError:
        raise ValueError(f"no policy has kind {kind}; kinds: "
                         f"{', '.join(f'{p.kind} ({p.name})' for p in TABLE)}") from None


def is_frozen(name: str) -> bool:
    """Whether policy ``name`` is frozen (its code never changes again, so panel members that
    play it can be frozen with it)."""
    return policy(name).frozen


@cache
def mem_size(name: str | None = None) -> int:
    """Words of memory policy ``name`` uses; with no name, the most any policy uses: what
    every bot's memory array holds in a game."""
    if name is not None:
        return int(resolve(policy(name).memory))
    return max(mem_size(p.name) for p in TABLE)


def resolve(reference: str):
    """The object a ``"module:attribute"`` reference names (importing its module)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
