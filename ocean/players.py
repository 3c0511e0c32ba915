"""Players of a refereed game: an external program behind pipes, or an in-process bot behind
the text door in the referee's own process (no second process, no ``ocean bot`` start-up).

Both answer the referee the same way: ``send`` the input lines, ``read_line`` the answer within
a deadline, ``close``. An in-process bot answers at once and is never timed out: its lines are
the ones it plays in compiled games. A program carries the time control it is told and held to
(``time``: a frozen program's own, else the game's) and may be pinned to one CPU.
"""
from __future__ import annotations

import os
import tempfile
from collections import deque

from ocean._process import STDERR_TAIL_BYTES, BotClosed, BotProcess
from ocean.bots import BotSpec
from ocean.bots.external import render_params_file
from ocean.program import TextBot
from ocean.progenv import program_environment
from ocean.timecontrol import DEFAULT_TIME, TimeControl

__all__ = ["InProcessPlayer", "open_player", "stderr_tail"]


class InProcessPlayer:
    """An in-process bot speaking the text protocol, as a referee sees a program."""

    timed = False  # compiled answers: the referee does not time them
    time = None  # in-process bots ignore time: their budgets count work

    def __init__(self, spec: BotSpec, game_seed: int) -> None:
        self.bot = TextBot(spec, game_seed)
        self.command = spec.name
        self._lines: deque[str] = deque()
        self._started = False
        self._answers: deque[str] = deque()

    def send(self, lines: list[str]) -> None:
        self._lines.extend(lines)

    def read_line(self, timeout_ms: int) -> str:
        if not self._answers:
            self._answer()
        if not self._answers:
            raise BotClosed("the in-process bot was given no complete input")
        return self._answers.popleft()

    def _answer(self) -> None:
        if not self._started:
            if not self._lines:
                return
            height = int(self._lines[0].split()[1])
            if len(self._lines) < 1 + height:
                return
            init = [self._lines.popleft() for _ in range(1 + height)]
            self._answers.append(self.bot.start(init))
            self._started = True
        elif len(self._lines) >= 3:
            self._answers.append(self.bot.turn([self._lines.popleft() for _ in range(3)]))

    def close(self) -> None:
        self._lines.clear()

    def stderr_tail(self) -> str:
        return ""


class _ProgramPlayer(BotProcess):
    """A program started for one game, with its parameters file in a scratch folder removed at
    close; of its stderr only the tail is kept, in memory (``STDERR_TAIL_BYTES``): a program
    flooding it fills neither the disk nor the memory."""

    timed = True

    def __init__(self, spec: BotSpec, game_seed: int, time: TimeControl, cpu: int | None) -> None:
        program = spec.program
        self.time = program.time_for(time)
        self._scratch = tempfile.mkdtemp(prefix="ocean-game-")
        try:
            params_path = None
            if program.params_file is not None:
                params_path = os.path.join(self._scratch, f"params.{program.params_file}")
                told = {**spec.params, **{k: int(v) for k, v in self.time.values().items()}}
                with open(params_path, "w") as fh:
                    fh.write(render_params_file(told, program.params_file))
            argv, env = program.render(spec.params, game_seed, params_path, self.time)
            super().__init__(argv, cwd=program.cwd, env=program_environment(env),
                             stderr_tail=STDERR_TAIL_BYTES, cpu=cpu, sandbox=self.time.sandbox)
        except BaseException:
            _remove(self._scratch)  # whatever failed, a game never leaves its folder behind
            raise

    def stderr_tail(self) -> str:
        return last_line(self.stderr_text())

    def close(self) -> None:
        super().close()
        _remove(self._scratch)


def _remove(folder: str) -> None:
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def stderr_tail(path: str, limit: int = 4096) -> str:
    """The last non-empty line a program wrote to its stderr log ("" if none)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            data = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return last_line(data)


def last_line(text: str) -> str:
    """The last non-empty line of ``text``, at most 300 characters ("" if none)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def open_player(spec: BotSpec, game_seed: int, *, time: TimeControl = DEFAULT_TIME, cpu: int | None = None):
    """A player for ``spec`` in one game: an ``InProcessPlayer`` or a started program, told
    ``time`` (a frozen program: its own) and run on ``cpu`` if given. Raises
    FileNotFoundError/PermissionError (one line) for a program that cannot start, ValueError
    for a placeholder without a value."""
    if spec.is_program:
        return _ProgramPlayer(spec, game_seed, time, cpu)
    return InProcessPlayer(spec, game_seed)
