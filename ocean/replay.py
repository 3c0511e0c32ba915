"""Replays: the whole game as JSON — seed, map, start cells, every line each program
received and printed, and the state after every action — for ``ocean track`` and
``ocean replay``."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ocean import _state as S
from ocean.constants import MAX_LINE_ACTIONS
from ocean.game import Game, state_snapshot
from ocean.protocol import format_line, parse_start

__all__ = ["ReplayRecorder", "load_replay", "REPLAY_FORMAT"]

REPLAY_FORMAT = "ocean-replay/1"


class ReplayRecorder:
    """Plays lines into a ``Game`` while writing down everything a replay holds."""

    def __init__(self, game: Game, players: list[str]):
        self.game = game
        self._trace = np.zeros((MAX_LINE_ACTIONS + 1, S.STATE_SIZE + 4), dtype=np.int64)
        self.data = {
            "format": REPLAY_FORMAT,
            "seed": game.seed,
            "map": game.rows,
            "players": players,
            "init_input": [game.init_lines(0), game.init_lines(1)],
            "start_output": [None, None],
            "start": [None, None],
            "turns": [],
            "result": None,
        }

    def start(self, answer0: str | None, answer1: str | None, errors: tuple[int, int] | None = None) -> None:
        """Start from raw answers (None = no answer); ``errors`` overrides parsing (timeouts)."""
        self.data["start_output"] = [answer0, answer1]
        if errors is None:
            self.game.start(answer0, answer1)
        else:
            cells = [parse_start(a, self.game.board)[0] if a is not None else -1 for a in (answer0, answer1)]
            self.game.start_with_errors(cells[0], errors[0], cells[1], errors[1])
        snap = state_snapshot(self.game.state)
        self.data["start"] = [[pl["x"], pl["y"]] for pl in snap["players"]]
        self.data["state_after_start"] = snap

    def turn(self, input_lines: list[str], output: str | None) -> None:
        """Record and play the active player's turn (``output`` None = it timed out)."""
        game = self.game
        entry = {"turn": game.turns, "player": game.active, "input": input_lines, "output": output, "actions": []}
        if output is None:
            game.timeout(game.active)
        else:
            done = game.play_text(output, self._trace)
            for k in range(min(done, len(self._trace))):
                row = self._trace[k]
                entry["actions"].append({
                    "action": format_line(np.array([[row[0], row[1], row[2], 0]])),
                    "fallback": bool(row[3]),
                    "state": state_snapshot(row[4:]),
                })
        self.data["turns"].append(entry)

    def finish(self) -> dict:
        """Close the replay with the verdict and the final state; returns the data."""
        self.data["result"] = self.game.result()
        self.data["final_state"] = state_snapshot(self.game.state)
        return self.data

    def write(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.data, separators=(",", ":")))


def load_replay(path: str | Path) -> dict:
    """Read a replay, refusing files that are not one with a one-line ValueError."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable replay JSON file ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != REPLAY_FORMAT:
        raise ValueError(f"{path}: not an {REPLAY_FORMAT} replay (written by `ocean referee --replay` or `ocean play --replay`)")
    return data
