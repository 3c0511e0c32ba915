"""The referee around players that speak the CodinGame protocol: external programs (``ocean
referee``, the way cg-brutaltester drives the official referee) and in-process bots behind the
text door (``ocean.players``), in any mix."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ocean._process import BotClosed, BotProcess, BotTimeout
from ocean.constants import ERR_NONE, ERR_TIMEOUT
from ocean.game import Game
from ocean.protocol import parse_start
from ocean.replay import ReplayRecorder

__all__ = ["referee_game", "referee_players", "first_answer", "RefereedGame", "FIRST_TIMEOUT_MS", "TURN_TIMEOUT_MS"]

FIRST_TIMEOUT_MS = 1000  # CodinGame's limit for the first answer
TURN_TIMEOUT_MS = 50  # and for every answer after it


@dataclass
class RefereedGame:
    """A finished game: the ``Game`` (final state), the verdict, why each player lost its
    answer (None if it did not) and, when asked for, every line each player printed."""

    game: Game
    verdict: dict
    why: list
    outputs: list = field(default_factory=lambda: [[], []])


def _answer(bot, timeout_ms: int) -> tuple[str | None, str | None]:
    """(line, None) or (None, why) for a bot that timed out, crashed or closed its output."""
    try:
        return bot.read_line(timeout_ms), None
    except BotTimeout:
        return None, "Timeout!"
    except BotClosed:
        code = _exit_code(bot)
        tail = bot.stderr_tail() if hasattr(bot, "stderr_tail") else ""
        detail = "the program exited or closed its output"
        if code is not None:
            detail += f", exit code {code}"
        if tail:
            detail += f"; stderr: {tail}"
        return None, f"Timeout! ({detail})"


def _exit_code(bot) -> int | None:
    """The exit code of a program that just closed its output: it may still be exiting, so
    wait a few milliseconds for it (bounded: a program may close stdout and live on)."""
    if not hasattr(bot, "returncode"):
        return None
    for _ in range(20):
        code = bot.returncode
        if code is not None:
            return code
        time.sleep(0.002)
    return None


def first_answer(player, seed: int, timeout_ms: int) -> tuple[str | None, str | None]:
    """Show ``player`` the init lines of ``seed``'s map as player 0 and wait for its start cell:
    (line, None), or (None, why) if it timed out, crashed or closed its output."""
    player.send(Game(seed).init_lines(0))
    return _answer(player, timeout_ms)


def referee_players(seed: int, players, *, first_timeout_ms: int = FIRST_TIMEOUT_MS,
                    timeout_ms: int = TURN_TIMEOUT_MS, recorder: ReplayRecorder | None = None,
                    game: Game | None = None, keep_outputs: bool = False) -> RefereedGame:
    """Play one game on ``seed``'s map between two started players (``send``/``read_line``/
    ``close``); the caller closes them. Players whose ``timed`` is False (in-process bots) get
    no deadline. ``recorder`` (over ``game``) writes a replay as the game goes."""
    game = game if game is not None else Game(seed)
    why = [None, None]
    outputs = [[], []]
    limits = [first_timeout_ms if getattr(p, "timed", True) else 10**9 for p in players]
    for p in range(2):
        players[p].send(game.init_lines(p))
    answers = [None, None]
    for p in range(2):
        answers[p], why[p] = _answer(players[p], limits[p])
        if keep_outputs:
            outputs[p].append(answers[p])
    errors = None
    if why[0] or why[1]:
        errors = tuple(ERR_TIMEOUT if why[p] else ERR_NONE for p in range(2))
    if recorder is not None:
        recorder.start(answers[0], answers[1], errors=errors)
    elif errors is None:
        game.start(answers[0], answers[1])
    else:
        cells = [parse_start(a, game.board)[0] if a is not None else -1 for a in answers]
        game.start_with_errors(cells[0], errors[0], cells[1], errors[1])
    limits = [timeout_ms if getattr(p, "timed", True) else 10**9 for p in players]
    while game.begin_turn():
        p = game.active
        lines = game.turn_input()
        players[p].send(lines)
        line, why[p] = _answer(players[p], limits[p])
        if keep_outputs:
            outputs[p].append(line)
        if recorder is not None:
            recorder.turn(lines, line)
        elif line is None:
            game.timeout(p)
        else:
            game.play_text(line)
    verdict = game.result()
    # Say why a program lost its answer (crash vs late), where the referee only says Timeout.
    verdict["disqualified"] = [why[p] if why[p] and verdict["disqualified"][p] else verdict["disqualified"][p]
                               for p in range(2)]
    return RefereedGame(game, verdict, why, outputs)


def referee_game(seed: int, commands: tuple[str, str], *, first_timeout_ms: int = FIRST_TIMEOUT_MS,
                 timeout_ms: int = TURN_TIMEOUT_MS, stderr_paths: tuple[str | None, str | None] = (None, None),
                 ) -> tuple[dict, dict]:
    """Play one game between two programs. Returns (verdict, replay data).

    The verdict is the referee's: ``winner`` (0, 1, -1 draw), ``scores`` (lives, -1 if
    disqualified), ``reason``, ``turns``, ``disqualified`` (why, per player, or None)."""
    game = Game(seed)
    recorder = ReplayRecorder(game, list(commands))
    bots = []
    try:
        for p in range(2):
            bots.append(BotProcess(commands[p], stderr_path=stderr_paths[p]))
        played = referee_players(seed, bots, first_timeout_ms=first_timeout_ms, timeout_ms=timeout_ms,
                                 recorder=recorder, game=game)
    finally:
        for bot in bots:
            bot.close()
    data = recorder.finish()
    data["result"] = played.verdict
    return played.verdict, data
