"""``ocean panel add``: freeze a coefficient set or a program as a named bot in the user's panel
file, with what makes it checkable later (``ocean.fingerprint``).

A coefficient set is frozen only for a policy whose code is frozen (``ocean.bots.registry.
FROZEN_POLICIES``): a bot of a policy that still changes would change with it. A program is
frozen with its time control (it always plays with it) and its fingerprint: its lines on fixed
games, played twice; a program whose lines differ between the two runs is refused unless it is
declared not reproducible, and then its fingerprint is the content of the files it runs.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from ocean.bots import PROGRAM, BotSpec, coefficients
from ocean.bots.external import RESERVED, ProgramSpec
from ocean.bots.panel import check_new_name, params_entry, program_entry, write_user_bot
from ocean.bots.registry import FROZEN_POLICIES, is_frozen
from ocean.fingerprint import behaviour_fingerprint, coefficients_digest, files_fingerprint, program_files, \
    program_fingerprint
from ocean.timecontrol import DEFAULT_TIME, TimeControl

__all__ = ["add_user_bot", "add_program_bot"]


def add_user_bot(name: str, params: dict, style: str = "", panel: str | None = None,
                 policy: str = coefficients.V1) -> Path:
    """Freeze ``params`` as bot ``name`` of tunable policy ``policy`` in the user's panel file
    (and append it to the user panel ``panel``, created if new), with the fingerprint of its
    lines and the digest of its coefficients. Refuses (ValueError, one line) a name that exists
    (frozen bots never change) and a policy that is not frozen. Returns the panel file."""
    if not is_frozen(policy):
        frozen = [p for p in FROZEN_POLICIES if p in coefficients.TUNABLE_BOTS]
        raise ValueError(f"policy {policy!r} is not frozen (its code still changes), so a bot of it cannot be "
                         f"frozen: it would change with it; freeze a set of {', '.join(frozen)}")
    check_new_name(name, panel)
    full = coefficients.validate(params, policy=policy)
    spec = BotSpec(name, policy, full)
    entry = params_entry(name, policy, full, style, behaviour_fingerprint(spec), coefficients_digest(spec))
    return write_user_bot(name, entry, panel)


def add_program_bot(name: str, command: str, cwd: str | None = None, style: str = "", panel: str | None = None,
                    *, time: TimeControl = DEFAULT_TIME, nondeterministic: bool = False, files=()
                    ) -> tuple[Path, ProgramSpec]:
    """Freeze an external program as bot ``name`` in the user's panel file, with ``time`` (the
    time control it always plays with) and its fingerprint. Its lines on the fingerprint games
    are played twice: a program whose lines differ is refused (it could never be checked) unless
    ``nondeterministic``; then it is fingerprinted by the files it runs (``program_files``: the
    ones its command names, plus ``files``). Returns (panel file, the frozen ``ProgramSpec``)."""
    check_new_name(name, panel)
    folder = os.path.abspath(os.path.expanduser(cwd)) if cwd is not None else os.getcwd()
    if not os.path.isdir(folder):
        raise ValueError(f"--cwd {cwd!r} is not a folder")
    if files and not nondeterministic:
        raise ValueError("--files goes with --nondeterministic (a reproducible program is fingerprinted by its lines)")
    program = ProgramSpec(command, cwd=folder, time=time)
    extra = program.placeholders() - set(RESERVED)
    if extra:
        raise ValueError(f"a frozen program takes no parameters: put values in place of "
                         f"{', '.join('{' + n + '}' for n in sorted(extra))} ({{game_seed}}, {{turn_ms}} and "
                         "{first_turn_ms} are allowed)")
    if "params_file" in program.placeholders():
        raise ValueError("a frozen program takes no parameters file: put the values in its command")
    spec = BotSpec(name, PROGRAM, {}, program)
    try:
        first, problem = program_fingerprint(spec)
        if problem is not None:
            raise ValueError(f"program {command!r} was disqualified in a fingerprint game ({problem}); "
                             "fix it before freezing it")
        if nondeterministic:
            runs = program_files(command, folder, files)
            if not runs:
                raise ValueError(f"program {command!r} names no file of its own to fingerprint (its executable "
                                 "or script); name the files it runs with --files")
            frozen = dataclasses.replace(program, fingerprint=files_fingerprint(runs), deterministic=False,
                                         files=tuple(runs))
        else:
            second, _ = program_fingerprint(spec)
            if first != second:
                raise ValueError(f"program {command!r} played different lines in two runs of the same games: it is "
                                 "not deterministic, so its lines could never be checked; seed its randomness from "
                                 "{game_seed} and search a fixed budget instead of a timer, or freeze it with "
                                 "--nondeterministic (fingerprinted by its files)")
            frozen = dataclasses.replace(program, fingerprint=first)
    except OSError as exc:
        raise ValueError(str(exc)) from None
    return write_user_bot(name, program_entry(name, frozen, style), panel), frozen
