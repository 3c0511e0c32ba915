"""Opponents that lose games to their clock or a crash: counted, and a run stopped when one
does it too often.

Such a game says nothing about the bot it played (``ocean.match.play_pairs`` plays it again, then
sets it aside). An opponent that needs it in a large share of its games is a machine too busy
for it, or a broken program: the study would measure that, so it stops with one line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tuning.errors import TuningError

__all__ = ["FAULT_SHARE", "FAULT_MIN_GAMES", "BOT_ERROR_WARN", "OpponentFaults", "too_unreliable"]

# An opponent failing (late, crashed) in more than this share of its games stops the run: a
# program losing three games in ten to the clock is not the opponent it was frozen as, and every
# failure costs a replay. Below it, the replays keep the scores clean (a frozen Python opponent
# on a loaded machine was measured failing 6% of its games).
FAULT_SHARE = 0.3
FAULT_MIN_GAMES = 40  # never judged on fewer games (two or three failures in a handful are noise)
# The tuned program's own disqualifications stay losses; above this share of a trial's games a
# run says so once (at 5% the study measures its timeouts as much as its parameters).
BOT_ERROR_WARN = 0.05


def too_unreliable(games: int, failed: int) -> bool:
    """Whether a program that failed (late, crashed) in ``failed`` of its ``games`` games fails
    more often than a run accepts: above ``FAULT_SHARE`` of at least ``FAULT_MIN_GAMES`` games.
    The one rule for a study's opponents and a test's two bots (``tuning.driver.bottest``)."""
    return games >= FAULT_MIN_GAMES and failed > FAULT_SHARE * games


@dataclass
class _Count:
    games: int = 0
    faulted: int = 0
    first: str | None = None


@dataclass
class OpponentFaults:
    """Per opponent, over one run: games played and games it failed at least once."""

    carry_on: str  # the command that carries the run on, for the refusal's line
    counts: dict[str, _Count] = field(default_factory=dict)

    def add(self, opponent: str, games: int, faulted: int, first: str | None) -> None:
        """Count a batch against ``opponent``; ``TuningError`` (one line) once it failed in more
        than ``FAULT_SHARE`` of at least ``FAULT_MIN_GAMES`` games."""
        c = self.counts.setdefault(opponent, _Count())
        c.games += games
        c.faulted += faulted
        c.first = c.first or first
        if too_unreliable(c.games, c.faulted):
            raise TuningError(
                f"opponent {opponent} lost {c.faulted} of {c.games} games to its clock or a crash "
                f"({c.faulted / c.games:.0%}; first: {c.first}), more than the {FAULT_SHARE:.0%} a run accepts: "
                "those games were played again or set aside, but an opponent this unreliable measures the "
                "machine, not the bot; give programs more time on this machine ([time] machine_scale, "
                f"--machine-scale), free the machine, or take it out of the panel; then: {self.carry_on}")
