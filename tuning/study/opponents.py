"""The opponents of a study: a panel name (``ocean.bots.panel``) or a list of bot names."""
from __future__ import annotations

from typing import Sequence

import ocean.bots as bots
from ocean.bots import PROGRAM, BotSpec, Frozen, ProgramSpec
from ocean.bots.panel import panel_names
from tuning.errors import SpecError
from tuning.study.space import build_space

__all__ = ["resolve_panel", "panel_to_json", "panel_from_json", "study_bot", "study_programs", "checked_bots"]


def resolve_panel(panel: str | Sequence[str]) -> list[BotSpec]:
    """The panel's bots; raises ``SpecError`` (one line) for an unknown panel or bot."""
    if isinstance(panel, str):
        return _named_panel(panel)
    out = []
    for name in panel:
        try:
            out.append(bots.resolve_bot(name))
        except ValueError as exc:
            raise SpecError(f"panel: {exc}") from None
    return out


def _named_panel(name: str) -> list[BotSpec]:
    try:
        known = panel_names()
    except ValueError as exc:  # the user's panel file is broken
        raise SpecError(f"panel: {exc}") from None
    if name not in known:
        raise SpecError(f"panel: unknown panel {name!r}; known panels: {', '.join(known)}; "
                        f"or list bot names, e.g. panel = [\"random\", \"chaser\"]")
    try:
        members = list(bots.panel(name))
    except (ValueError, KeyError) as exc:
        raise SpecError(f"panel: unknown panel {name!r} ({exc})") from None
    if len({b.name for b in members}) != len(members):
        raise SpecError(f"panel {name!r} holds two bots of the same name")
    return members


def panel_to_json(panel: Sequence[BotSpec]) -> list[dict]:
    """The panel as stored with a study, so a resumed study plays exactly the same opponents
    even if a named panel or a params file changed since (a program is stored with its
    fingerprint, checked again before it plays)."""
    out = []
    for b in panel:
        entry = {"name": b.name, "policy": b.policy, "params": dict(b.params)}
        if b.program is not None:
            entry["program"] = b.program.as_json()
        if b.frozen is not None:  # checked again wherever it plays (ocean.fingerprint.check_frozen)
            entry["frozen"] = {"fingerprint": b.frozen.fingerprint,
                               "coefficients_digest": b.frozen.coefficients_digest, "source": b.frozen.source}
        out.append(entry)
    return out


def panel_from_json(data: Sequence[dict]) -> list[BotSpec]:
    """Inverse of ``panel_to_json``."""
    return [BotSpec(d["name"], d["policy"], dict(d["params"]),
                    ProgramSpec.from_json(d["program"]) if d.get("program") else None,
                    frozen=Frozen(**d["frozen"]) if d.get("frozen") else None) for d in data]


def study_bot(spec) -> BotSpec:
    """The bot a study tunes, with its reference parameters: the in-process tunable bot its
    ``policy`` names, or
    the program of the study file's ``[bot]`` table."""
    space = build_space(spec)
    params = space.full_params(space.reference_params())
    if spec.bot is None:
        return BotSpec(spec.policy, spec.policy, params)
    return BotSpec("program", PROGRAM, params, spec.bot.program())


def study_programs(spec, panel: Sequence, held_out: Sequence | None) -> list:
    """Every external program a study plays: its own bot if it is one, then its opponents'."""
    out = [study_bot(spec)] if spec.bot is not None else []
    seen = set()
    for bot in list(panel) + list(held_out or []):
        if bot.is_program and bot.name not in seen:
            seen.add(bot.name)
            out.append(bot)
    return out


def checked_bots(spec, panel: Sequence, held_out: Sequence | None) -> list:
    """What is checked on every node before a study plays (``tuning.driver.programs``): its
    programs (``study_programs``), then its frozen in-process opponents."""
    out = study_programs(spec, panel, held_out)
    seen = {b.name for b in out}
    for bot in list(panel) + list(held_out or []):
        if bot.frozen is not None and bot.name not in seen:
            seen.add(bot.name)
            out.append(bot)
    return out
