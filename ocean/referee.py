"""The referee around players that speak the CodinGame protocol: external programs (``ocean
referee``, the way cg-brutaltester drives the official referee) and in-process bots behind the
text door (``ocean.players``), in any mix.

Each player answers within the limits of its own time control (``player.time``, else the
game's): a frozen program keeps the one it was frozen with. In-process players (``timed``
False) are never timed. Players are asked one at a time, the first answers too, so a program
thinks only while the other waits, and its clock starts when it has its whole input.
"""
from __future__ import annotations

import signal
import statistics
import time
from dataclasses import dataclass, field

from ocean._process import BotClosed, BotLineTooLong, BotTimeout
from ocean.bots import PROGRAM, BotSpec, ProgramSpec
from ocean.constants import ERR_NONE, ERR_TIMEOUT
from ocean.game import Game
from ocean.players import open_player
from ocean.protocol import parse_start
from ocean.replay import ReplayRecorder
from ocean.timecontrol import DEFAULT_TIME, TimeControl

__all__ = ["referee_game", "referee_players", "first_answer", "RefereedGame", "TIMEOUT", "FAILURE_KINDS",
           "failure_kind", "failure_kinds"]

TIMEOUT = "Timeout!"  # the official referee's reason for a missing answer, late or not
_UNTIMED_MS = 10**9  # an in-process player's "limit": it answers at once, its budget counts work
# What a disqualification was, in a word, for counts people read (``failure_kind``): late, ended
# (crashed, killed, closed its output), out of memory, an illegal line (the rules' own messages),
# an answer line too long to read.
FAILURE_KINDS = ("timeout", "crash", "memory", "illegal", "output")
# After a missed deadline, how long a program may take to exit for its end to count as the crash it
# is (issue 49 item 6): the game is lost either way, this only names the reason.
CRASH_GRACE_S = 0.5


@dataclass
class RefereedGame:
    """A finished game: the ``Game`` (final state), the verdict, why each player lost its
    answer (None if it did not), each player's answer times (``answer_ms``: None for an
    in-process player) and, when asked for, every line each player printed."""

    game: Game
    verdict: dict
    why: list
    outputs: list = field(default_factory=lambda: [[], []])
    answer_ms: list = field(default_factory=lambda: [None, None])
    failed: list = field(default_factory=lambda: [None, None])  # the answer lost, and after how long


def _answer(bot, timeout_ms: int) -> tuple[str | None, str | None]:
    """(line, None) or (None, why) for a bot that timed out, crashed or closed its output; then
    ``bot.failed`` says which answer it lost and how long the referee had waited for it."""
    start = time.monotonic()
    late = False
    waited_ms = None
    try:
        return bot.read_line(timeout_ms), None
    except BotTimeout as exc:
        why, late = TIMEOUT, True
        # the program's clock started when the pipe took its input, before this call: the wait
        # said is the one its deadline counted (never a timeout "after" less than its limit)
        waited_ms = exc.waited_ms
    except BotLineTooLong as exc:
        why = f"{exc}: disqualified (official reason: {TIMEOUT})"
    except BotClosed:
        why = _crash(bot)
    bot.failed = {"answer": len(getattr(bot, "answer_ms", None) or ()) + 1,
                  "after_ms": round(waited_ms if waited_ms is not None else (time.monotonic() - start) * 1000.0, 2)}
    # A program that fails just after its deadline (one dying at its start on a busy machine)
    # crashed: its exit code and stderr say why, where "Timeout!" would hide it. One that ends
    # well (exit code 0) after its deadline was late: its answer came after it.
    if late and hasattr(bot, "exited_within") and bot.exited_within(CRASH_GRACE_S) \
            and _exit_code(bot) not in (None, 0):
        why = _crash(bot)
    return None, why


def _crash(bot) -> str:
    return _closed_reason(_exit_code(bot), bot.stderr_tail() if hasattr(bot, "stderr_tail") else "",
                          bot.out_of_memory() if hasattr(bot, "out_of_memory") else "")


def _closed_reason(code: int | None, tail: str, memory: str = "") -> str:
    """Why a program that closed its output lost its answer: what happened first (crashed, with
    its exit code or signal, ``memory`` if its memory limit is why, and stderr's last line), then
    the official reason, which the referee gives for any missing answer."""
    if code is None:
        what = "closed its output without answering"
    elif code > 0:
        what = f"crashed, exit code {code}"
    elif code < 0:
        try:
            name = f" ({signal.Signals(-code).name})"
        except ValueError:
            name = ""
        what = f"crashed, killed by signal {-code}{name}"
    else:
        what = "exited (exit code 0) before the game ended"
    if memory and code:
        what = f"out of memory, {memory}: {what}"
    if tail:
        what += f"; stderr: {tail}"
    return f"{what} (official reason: {TIMEOUT})"


def failure_kind(reason: str) -> str:
    """The kind (``FAILURE_KINDS``) of a disqualification ``reason`` as this module and the rules
    write it: "Timeout!" a late answer; one naming memory (a program over its memory limit) before
    any other crash; "crashed, ..." or an output closed or exited a crash; a line too long
    "output"; anything else is one of the rules' messages for an illegal line."""
    if reason == TIMEOUT:
        return "timeout"
    if "memory" in reason.lower():
        return "memory"
    if reason.startswith(("crashed", "closed its output", "exited")):
        return "crash"
    if "answer line over" in reason:
        return "output"
    return "illegal"


def failure_kinds(reasons) -> dict[str, int]:
    """Counts by kind (in ``FAILURE_KINDS`` order, kinds never seen left out) of ``reasons``: a
    mapping reason -> games."""
    counts = dict.fromkeys(FAILURE_KINDS, 0)
    for reason, games in reasons.items():
        counts[failure_kind(reason)] += int(games)
    return {kind: n for kind, n in counts.items() if n}


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


def _limits(player, time_control: TimeControl) -> tuple[int, int]:
    """(first answer's limit, later answers' limit) in ms for ``player``."""
    if not getattr(player, "timed", True):
        return _UNTIMED_MS, _UNTIMED_MS
    own = getattr(player, "time", None) or time_control
    return own.first_limit_ms, own.turn_limit_ms


def _answer_times(player) -> dict | None:
    """A program's answer times in ms: its first answer, the longest and the mean of the others
    (None for a player that is not timed, or gave no answer)."""
    times = getattr(player, "answer_ms", None)
    if not getattr(player, "timed", True) or not times:
        return None
    rest = times[1:]
    return {"first": round(times[0], 2), "max": round(max(rest), 2) if rest else None,
            "mean": round(statistics.fmean(rest), 2) if rest else None, "answers": len(times)}


def first_answer(player, seed: int, timeout_ms: int | None = None) -> tuple[str | None, str | None]:
    """Show ``player`` the init lines of ``seed``'s map as player 0 and wait for its start cell
    (within ``timeout_ms``, default its own first answer's limit): (line, None), or (None, why)
    if it timed out, crashed or closed its output."""
    player.send(Game(seed).init_lines(0))
    return _answer(player, _limits(player, DEFAULT_TIME)[0] if timeout_ms is None else timeout_ms)


def referee_players(seed: int, players, *, time: TimeControl = DEFAULT_TIME, recorder: ReplayRecorder | None = None,
                    game: Game | None = None, keep_outputs: bool = False) -> RefereedGame:
    """Play one game on ``seed``'s map between two started players (``send``/``read_line``/
    ``close``); the caller closes them. Each player answers within its own time control
    (``player.time``) or else ``time``; players whose ``timed`` is False (in-process bots) get
    no deadline. ``recorder`` (over ``game``) writes a replay as the game goes. Beside the
    verdict (a pure function of the lines played) the result holds each program's answer times
    (``answer_ms``: first, longest and mean of the others, in ms; None for an in-process player)."""
    game = game if game is not None else Game(seed)
    why = [None, None]
    outputs = [[], []]
    limits = [_limits(p, time) for p in players]
    answers = [None, None]
    for p in range(2):
        players[p].send(game.init_lines(p))
        answers[p], why[p] = _answer(players[p], limits[p][0])
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
    while game.begin_turn():
        p = game.active
        lines = game.turn_input()
        players[p].send(lines)
        line, why[p] = _answer(players[p], limits[p][1])
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
    return RefereedGame(game, verdict, why, outputs, [_answer_times(p) for p in players],
                        [getattr(players[p], "failed", None) if why[p] else None for p in range(2)])


def referee_game(seed: int, commands: tuple[str, str], *, time: TimeControl = DEFAULT_TIME,
                 cpu: int | None = None) -> tuple[dict, dict]:
    """Play one game between two programs (commands; ``{game_seed}`` is ``seed``, ``{turn_ms}``
    and ``{first_turn_ms}`` the time told). Returns (verdict, replay data).

    The verdict is the referee's: ``winner`` (0, 1, -1 draw), ``scores`` (lives, -1 if
    disqualified), ``reason``, ``turns``, ``disqualified`` (why, per player, or None). The
    replay data holds each program's answer times too (``answer_ms``, as ``RefereedGame``).
    ``cpu``: run both programs on that CPU."""
    game = Game(seed)
    recorder = ReplayRecorder(game, list(commands))
    players = []
    try:
        for command in commands:
            spec = BotSpec(command, PROGRAM, {}, ProgramSpec(command))
            players.append(open_player(spec, seed, time=time, cpu=cpu))
        played = referee_players(seed, players, time=time, recorder=recorder, game=game)
    finally:
        for player in players:
            player.close()
    data = recorder.finish()
    data["result"] = played.verdict
    data["answer_ms"] = played.answer_ms
    data["failed"] = played.failed
    return played.verdict, data
