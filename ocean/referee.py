"""``ocean referee``: two external programs play over the CodinGame protocol, the way
cg-brutaltester drives the official referee."""
from __future__ import annotations

from ocean._process import BotClosed, BotProcess, BotTimeout
from ocean.constants import ERR_NONE, ERR_TIMEOUT
from ocean.game import Game
from ocean.replay import ReplayRecorder

__all__ = ["referee_game", "FIRST_TIMEOUT_MS", "TURN_TIMEOUT_MS"]

FIRST_TIMEOUT_MS = 1000  # CodinGame's limit for the first answer
TURN_TIMEOUT_MS = 50  # and for every answer after it


def _answer(bot: BotProcess, timeout_ms: int) -> tuple[str | None, str | None]:
    """(line, None) or (None, why) for a bot that timed out, crashed or closed its output."""
    try:
        return bot.read_line(timeout_ms), None
    except BotTimeout:
        return None, "Timeout!"
    except BotClosed:
        return None, "Timeout! (the program exited or closed its output)"


def referee_game(seed: int, commands: tuple[str, str], *, first_timeout_ms: int = FIRST_TIMEOUT_MS,
                 timeout_ms: int = TURN_TIMEOUT_MS, stderr_paths: tuple[str | None, str | None] = (None, None),
                 ) -> tuple[dict, dict]:
    """Play one game between two programs. Returns (verdict, replay data).

    The verdict is the referee's: ``winner`` (0, 1, -1 draw), ``scores`` (lives, -1 if
    disqualified), ``reason``, ``turns``, ``disqualified`` (why, per player, or None)."""
    game = Game(seed)
    recorder = ReplayRecorder(game, list(commands))
    bots = []
    why = [None, None]
    try:
        for p in range(2):
            bots.append(BotProcess(commands[p], stderr_path=stderr_paths[p]))
        for p in range(2):
            bots[p].send(game.init_lines(p))
        answers = [None, None]
        for p in range(2):
            answers[p], why[p] = _answer(bots[p], first_timeout_ms)
        if why[0] or why[1]:
            errors = tuple(ERR_TIMEOUT if why[p] else ERR_NONE for p in range(2))
            recorder.start(answers[0], answers[1], errors=errors)
        else:
            recorder.start(answers[0], answers[1])
        while game.begin_turn():
            p = game.active
            lines = game.turn_input()
            bots[p].send(lines)
            line, why[p] = _answer(bots[p], timeout_ms)
            recorder.turn(lines, line)
    finally:
        for bot in bots:
            bot.close()
    data = recorder.finish()
    verdict = game.result()
    # Say why a program lost its answer (crash vs late), where the referee only says Timeout.
    verdict["disqualified"] = [why[p] if why[p] and verdict["disqualified"][p] else verdict["disqualified"][p]
                               for p in range(2)]
    data["result"] = verdict
    return verdict, data
