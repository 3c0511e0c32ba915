"""The opponents of a study: a panel name (``ocean.bots.panel``) or a list of bot names, where
``self`` names the bot the study tunes at its reference parameters (its defaults, or the start
file of a warm study) and ``self:FILE`` the same bot with a coefficient file's values (for a
program, a file ``tune export`` wrote: its ``[parameters]``). The studied bot is not frozen, but a
study pins the code it plays (``tuning.storage.provenance``), so it stays the same opponent for
the study's whole life, as the winner of Ocean of Code tuned against his own versions."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Sequence

import ocean.bots as bots
from ocean.bots import PROGRAM, BotSpec, Frozen, ProgramSpec
from ocean.bots.panel import panel_names
from tuning.errors import SpecError
from tuning.study.space import build_space

__all__ = ["resolve_panel", "study_opponents", "panel_to_json", "panel_from_json", "study_bot", "study_programs",
           "checked_bots", "SELF"]

SELF = "self"  # the studied bot as an opponent: ``self`` (its reference) or ``self:FILE``


def resolve_panel(panel: str | Sequence[str], study=None) -> list[BotSpec]:
    """The panel's bots; raises ``SpecError`` (one line) for an unknown panel or bot. ``study``:
    the ``StudySpec`` whose bot ``self`` names (only a study's panels take it)."""
    if isinstance(panel, str):
        return _named_panel(panel)
    out = []
    for name in panel:
        if name == SELF or name.startswith(SELF + ":"):
            out.append(_self(name, study))
            continue
        try:
            out.append(bots.resolve_bot(name))
        except ValueError as exc:
            raise SpecError(f"panel: {exc}") from None
    if len({b.name for b in out}) != len(out):
        raise SpecError(f"panel: two opponents are named {_twice([b.name for b in out])!r}")
    return out


def study_opponents(spec) -> tuple[list[BotSpec], list[BotSpec] | None]:
    """(the study's panel, its held-out panel or None), resolved; ``SpecError`` (one line)."""
    held_out = None if spec.validation.panel is None else resolve_panel(spec.validation.panel, spec)
    return resolve_panel(spec.panel, spec), held_out


def _twice(names: list[str]) -> str:
    return next(n for n in names if names.count(n) > 1)


def _self(name: str, study) -> BotSpec:
    """``self`` (the studied bot at its reference) or ``self:FILE`` (with the file's values)."""
    if study is None:
        raise SpecError(f"panel: {name!r} names the bot a study tunes: only a study's panel takes it")
    bot = study_bot(study)
    if name == SELF:
        return bot.with_params(bot.params, name=SELF)
    path = Path(name[len(SELF) + 1:])
    if study.bot is None:
        try:
            policy, values = bots.coefficients.read_params_file(path)
        except ValueError as exc:
            raise SpecError(f"panel: {name}: {exc}") from None
        if policy != study.policy:
            raise SpecError(f"panel: {name}: {path} holds coefficients of {policy!r}, the study tunes {study.policy!r}")
        return bot.with_params(values, name=f"{SELF}:{path.stem}")
    values = _program_values(name, path)
    unknown = set(values) - set(bot.params)
    if unknown:
        raise SpecError(f"panel: {name}: {path} sets {', '.join(sorted(unknown))}, which the study's program does "
                        f"not take (its parameters: {', '.join(sorted(bot.params))})")
    return bot.with_params({**bot.params, **values}, name=f"{SELF}:{path.stem}")


def _program_values(name: str, path: Path) -> dict:
    """The ``parameters`` of a file ``tune export --format toml|json`` wrote for a program."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as exc:
        raise SpecError(f"panel: {name}: cannot read {path} ({exc.strerror})") from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"panel: {name}: {path} is not a parameters file ({exc})") from None
    values = data.get("parameters") if isinstance(data, dict) else None
    if not isinstance(values, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                               for v in values.values()):
        raise SpecError(f"panel: {name}: {path} has no [parameters] table of numbers (write one with "
                        "tune export NAME --format toml)")
    return values


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
