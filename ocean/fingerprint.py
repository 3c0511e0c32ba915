"""Fingerprints of frozen bots, and the check that a frozen bot is still the bot it was.

A frozen in-process bot is fingerprinted by every line it plays on fixed games against
``random-v1`` (four maps, both sides); one frozen by ``ocean panel add --params`` also by a
digest of its coefficients, so an edit of the panel file is caught even where the fixed games
do not show it. A frozen program is fingerprinted by its lines on the same games (its stderr and
timing do not count) or, for a program that is not reproducible (its own timer, threads,
unseeded randomness), by the content of the files it runs. A fingerprint game a program loses to
its clock is played again (``FINGERPRINT_PLAYS``): only clean plays are hashed, so a busy machine
never passes for a program that changed; a game never clean is refused for the clock.

``check_frozen(spec)`` refuses, with one line naming the bot, a frozen bot that changed, that
plays a policy whose code is not frozen, or a program that vanished or cannot start. It checks
each frozen bot once per process: arenas call it before they play, and a worker before its first
game with a bot.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex

import numpy as np

from ocean import _match, _rules
from ocean.bots import BotSpec, resolve_bot
from ocean.bots.registry import FROZEN_POLICIES, TUNABLE_POLICIES, is_frozen
from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS
from ocean.match import boards_for_seeds
from ocean.players import open_player
from ocean.referee import TIMEOUT, first_answer, referee_players
from ocean.timecontrol import DEFAULT_TIME

__all__ = ["FingerprintError", "FINGERPRINT_SEEDS", "FINGERPRINT_TIME_SCALE", "FINGERPRINT_PLAYS",
           "behaviour_fingerprint",
           "coefficients_digest", "program_fingerprint", "program_files", "files_fingerprint", "check_frozen"]

FINGERPRINT_SEEDS = (11, 22, 33, 44)  # the fixed games of a fingerprint, each played on both sides
# A program's fingerprint games get its limits times this: a fingerprint is about what a program
# plays, not about how fast a loaded machine runs it. The times it is told stay its own.
FINGERPRINT_TIME_SCALE = 20.0
# A fingerprint game the program loses to its clock is played up to this many times: only clean
# plays count, so a busy machine never makes a deterministic program look non-deterministic.
FINGERPRINT_PLAYS = 4
_OPPONENT = "random-v1"
_checked: set = set()  # the frozen bots this process has checked (their whole description)


class FingerprintError(ValueError):
    """A frozen bot that changed, vanished, cannot start, or is of a policy that is not frozen."""


def behaviour_fingerprint(spec: BotSpec) -> str:
    """A hash of every line in-process bot ``spec`` plays on the fingerprint games against
    ``random-v1`` (four maps, both sides): any change to its behaviour changes it."""
    opponent = resolve_bot(_OPPONENT)
    digest = hashlib.sha256()
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    seeds = list(FINGERPRINT_SEEDS)
    for seed, board in zip(seeds, boards_for_seeds(seeds)):
        for bots in ((spec, opponent), (opponent, spec)):
            kinds = np.array([b.kind for b in bots], dtype=np.int64)
            coefs = np.stack([b.vector() for b in bots])
            turns = _match.play_game(board, kinds, coefs, np.int64(seed), state, log, counts)
            digest.update(log[:turns].tobytes())
            digest.update(counts[:turns].tobytes())
    return digest.hexdigest()[:16]


def coefficients_digest(spec: BotSpec) -> str:
    """A hash of an in-process bot's policy and coefficients as its kernel reads them."""
    digest = hashlib.sha256(spec.policy.encode() + b"\x00")
    if spec.policy in TUNABLE_POLICIES:
        digest.update(np.ascontiguousarray(spec.vector(), dtype=np.float64).tobytes())
    return digest.hexdigest()[:16]


def program_fingerprint(spec: BotSpec) -> tuple[str, str | None]:
    """(hash of program ``spec``'s lines on the fingerprint games against ``random-v1``, the
    first disqualification reason or None), played at its time control (its own, else
    CodinGame's) with limits ``FINGERPRINT_TIME_SCALE`` times longer.

    A game the program loses to its clock (``Timeout!``: late, not crashed) says how busy the
    machine was, not what the program plays: it is played again, up to ``FINGERPRINT_PLAYS``
    times, and only the lines of a clean play are hashed. A game never clean in as many plays
    raises ``FingerprintError`` (one line: the clock, never "plays differently")."""
    time = spec.program.time_for(DEFAULT_TIME).scaled(FINGERPRINT_TIME_SCALE)
    opponent = resolve_bot(_OPPONENT)
    digest = hashlib.sha256()
    problem = None
    for seed in FINGERPRINT_SEEDS:
        for side in range(2):
            for _ in range(FINGERPRINT_PLAYS):
                played = _fingerprint_game(spec, opponent, seed, side, time)
                if played.why[side] != TIMEOUT:
                    break
            else:
                raise FingerprintError(_clock_message(spec, seed, side, time))
            for line in played.outputs[side]:
                digest.update(b"\x00" if line is None else line.encode() + b"\n")
            why = played.why[side]
            if why and problem is None:
                problem = f"seed {seed}: {why}"
    return digest.hexdigest()[:16], problem


def _fingerprint_game(spec: BotSpec, opponent: BotSpec, seed: int, side: int, time):
    """One fingerprint game, program ``spec`` on ``side``, every line kept."""
    specs = (spec, opponent) if side == 0 else (opponent, spec)
    players = []
    try:
        for s in specs:
            players.append(open_player(s, seed, time=time))
        return referee_players(seed, players, time=time, keep_outputs=True)
    finally:
        for player in players:
            player.close()


def _who(spec: BotSpec) -> str:
    """How a refusal names a program: by its panel name once frozen, else by its command."""
    if spec.program.fingerprint is None:
        return f"program {spec.program.command!r}"
    return f"panel program {spec.name!r} ({spec.program.command})"


def _clock_message(spec: BotSpec, seed: int, side: int, time) -> str:
    fix = ("try again on a quieter machine, or freeze it with a larger --time-scale"
           if spec.program.fingerprint is None else
           "its lines could not be checked; try again on a quieter machine")
    return (f"{_who(spec)} lost fingerprint game seed {seed} (as player {side}) to its clock in all "
            f"{FINGERPRINT_PLAYS} plays, with limits of {time.turn_limit_ms} ms a turn and {time.first_limit_ms} ms "
            f"the first ({FINGERPRINT_TIME_SCALE:g} times its own): the machine is too busy for it, or it is too "
            f"slow for its time control; {fix}")


def program_files(command: str, cwd: str, extra=()) -> list[str]:
    """The files a program runs, as absolute paths: the executable when the command names it by
    a path, every other word of the command that names a file (a script, a jar; relative to
    ``cwd``), and ``extra`` (files or folders, relative to ``cwd``; ValueError, one line, for one
    that does not exist). A first word without a slash is found on the PATH (an interpreter, a
    system program) and is not the bot's own."""
    found = []
    for i, word in enumerate(shlex.split(command)):
        if "{" in word or (i == 0 and "/" not in word):
            continue
        path = os.path.join(cwd, os.path.expanduser(word))
        if os.path.isfile(path):
            found.append(os.path.realpath(path))
    for item in extra:
        path = os.path.join(cwd, os.path.expanduser(item))
        if not os.path.exists(path):
            raise ValueError(f"--files {item!r}: no such file or folder (in {cwd})")
        found.append(os.path.realpath(path))
    return list(dict.fromkeys(found))


def files_fingerprint(files) -> str:
    """A hash of the content of ``files`` (a folder: every file under it, by its path inside).
    FileNotFoundError (one line) for one that is missing."""
    digest = hashlib.sha256()
    for root in sorted(files):
        if os.path.isdir(root):
            inside = []
            for folder, subfolders, names in os.walk(root):
                subfolders.sort()
                inside += [os.path.join(folder, n) for n in sorted(names)]
            members = [(os.path.relpath(p, root), p) for p in inside]
        elif os.path.isfile(root):
            members = [(os.path.basename(root), root)]
        else:
            raise FileNotFoundError(f"{root} is missing")
        digest.update(os.path.basename(root).encode() + b"\x00")
        for name, path in members:
            with open(path, "rb") as fh:
                digest.update(name.encode() + b"\x00" + hashlib.sha256(fh.read()).digest())
    return digest.hexdigest()[:16]


def _key(spec: BotSpec):
    """What identifies a frozen bot for the per-process cache; None for a bot that is not frozen."""
    if spec.is_program:
        if spec.program.fingerprint is None:
            return None
        return "program", spec.name, json.dumps(spec.program.as_json(), sort_keys=True)
    if spec.frozen is None:
        return None
    return ("bot", spec.name, spec.policy, spec.frozen.fingerprint, spec.frozen.coefficients_digest,
            json.dumps(spec.params, sort_keys=True))


def check_frozen(spec: BotSpec, *, fresh: bool = False) -> None:
    """Refuse (``FingerprintError``, one line naming the bot) a frozen bot that is not the bot
    it was frozen as: an in-process bot whose lines or stored coefficients changed, or whose
    policy is not frozen; a program whose lines (or, if not reproducible, whose files) changed,
    that vanished or cannot start. Bots that are not frozen pass. Each frozen bot is checked
    once per process (a worker before its first game with it); ``fresh`` checks it again (a
    long-lived process checking before a study starts or resumes: the files may have changed)."""
    key = _key(spec)
    if key is None or (key in _checked and not fresh):
        return
    if spec.is_program:
        _check_program(spec)
    else:
        _check_in_process(spec)
    _checked.add(key)


def _check_in_process(spec: BotSpec) -> None:
    frozen = spec.frozen
    if not is_frozen(spec.policy):
        raise FingerprintError(f"frozen bot {spec.name!r} ({frozen.source}) plays policy {spec.policy!r}, whose code "
                               f"is not frozen, so it would change with it; freeze a set of a frozen policy "
                               f"({', '.join(FROZEN_POLICIES)}) instead")
    if frozen.coefficients_digest is not None:
        found = coefficients_digest(spec)
        if found != frozen.coefficients_digest:
            raise FingerprintError(f"frozen bot {spec.name!r} has other coefficients than when it was frozen "
                                   f"(edited in {frozen.source}?); restore them, or freeze the new set under "
                                   "a new name with ocean panel add")
    found = behaviour_fingerprint(spec)
    if found != frozen.fingerprint:
        raise FingerprintError(f"frozen bot {spec.name!r} ({frozen.source}) plays differently than when it was "
                               f"frozen (fingerprint {found}, frozen {frozen.fingerprint}); its code or its "
                               "coefficients changed: restore them, or freeze the new version under a new name")


def _check_program(spec: BotSpec) -> None:
    program = spec.program
    if not program.deterministic:
        try:
            found = files_fingerprint(program.files)
        except OSError as exc:
            raise FingerprintError(f"panel program {spec.name!r} cannot start: {exc}") from None
        if found != program.fingerprint:
            raise FingerprintError(
                f"panel program {spec.name!r} ({program.command}) runs other files than when it was frozen "
                f"(fingerprint {found}, frozen {program.fingerprint}); restore them, or freeze the new version "
                "under a new name with ocean panel add")
        _check_start(spec)
        return
    try:
        found, _ = program_fingerprint(spec)
    except FingerprintError:
        raise
    except (OSError, ValueError) as exc:
        raise FingerprintError(f"panel program {spec.name!r} cannot start: {exc}") from None
    if found != program.fingerprint:
        raise FingerprintError(
            f"panel program {spec.name!r} ({program.command}) plays differently than when it was frozen "
            f"(fingerprint {found}, frozen {program.fingerprint}); restore it, or freeze the new "
            f"version under a new name with ocean panel add")


def _check_start(spec: BotSpec) -> None:
    """A program that is not reproducible still has to start and answer its first line (a first
    answer lost to the clock is asked again, up to ``FINGERPRINT_PLAYS`` times in all)."""
    time = spec.program.time_for(DEFAULT_TIME).scaled(FINGERPRINT_TIME_SCALE)
    for _ in range(FINGERPRINT_PLAYS):
        try:
            player = open_player(spec, FINGERPRINT_SEEDS[0], time=time)
        except (OSError, ValueError) as exc:
            raise FingerprintError(f"panel program {spec.name!r} cannot start: {exc}") from None
        try:
            _, why = first_answer(player, FINGERPRINT_SEEDS[0])
        finally:
            player.close()
        if why != TIMEOUT:
            break
    if why == TIMEOUT:
        raise FingerprintError(
            f"panel program {spec.name!r} ({spec.program.command}) did not answer its first line within "
            f"{time.first_limit_ms} ms ({FINGERPRINT_TIME_SCALE:g} times its limit) in {FINGERPRINT_PLAYS} starts: the "
            "machine is too busy for it, or it is too slow to start; try again on a quieter machine")
    if why is not None:
        raise FingerprintError(f"panel program {spec.name!r} ({spec.program.command}) does not answer its first "
                               f"line: {why}")
