"""Duel statistics: how two bots trade damage, summed over paired games (``ocean arena``).

The engine counts, per player and game (``ocean._layout``, statistics after ``ST_MOVES``):
whether its torpedo or mine took the game's first life from the opponent (``first_damage``),
its torpedoes that exploded on the opponent's cell (``direct_hits``, 2 damage) and its SURFACEs
under fire (the opponent took one of its lives in one of the opponent's last two turns before
the SURFACE). What a bot dealt is what its opponent took, so both sides' figures come from the
same rows. Hit probabilities at the moment of firing are not here: they are the shooter's own
belief, which the engine does not see.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the study report reads these figures without loading the engine
    from ocean.match import PairResults

__all__ = ["DUEL_NAMES", "DUEL_SUMS", "DuelTally", "duel_figures"]

# The figures, per bot (docs/commands-ocean.md, `ocean arena`, says what each one means).
DUEL_NAMES = ("first_damage", "won_after_first_damage", "lost_after_first_damage_taken", "torpedoes",
              "direct_hits", "direct_hit_rate", "damage_per_shot", "torpedo_damage_dealt", "mine_damage_dealt",
              "mine_damage_taken", "surfaces_under_fire")
# What the figures are computed from, per bot: games; games it dealt the first damage in, and won;
# games its opponent did, and it lost; then sums over its games.
DUEL_SUMS = ("games", "first", "first_won", "first_taken", "first_taken_lost", "torpedoes", "direct_hits",
             "torpedo_damage_dealt", "mine_damage_dealt", "mine_damage_taken", "surfaces_under_fire")


def _share(part: float, whole: float) -> float | None:
    return round(part / whole, 3) if whole else None


class DuelTally:
    """One bot's duel sums over the games it played (any opponents)."""

    def __init__(self):
        self.sums = dict.fromkeys(DUEL_SUMS, 0)

    def add(self, result: PairResults, bot: int) -> None:
        """Add every game of ``result`` from the side of bot 0 (A) or 1 (B)."""
        mine, theirs = result.stats(bot), result.stats(1 - bot)
        score = result.score_a() if bot == 0 else 1.0 - result.score_a()
        first, taken = mine["first_damage"] == 1, theirs["first_damage"] == 1
        s = self.sums
        s["games"] += len(result)
        s["first"] += int(first.sum())
        s["first_won"] += int((first & (score == 1.0)).sum())
        s["first_taken"] += int(taken.sum())
        s["first_taken_lost"] += int((taken & (score == 0.0)).sum())
        for key, values in (("torpedoes", mine["torpedoes"]), ("direct_hits", mine["direct_hits"]),
                            ("torpedo_damage_dealt", theirs["torpedo_damage_taken"]),
                            ("mine_damage_dealt", theirs["mine_damage_taken"]),
                            ("mine_damage_taken", mine["mine_damage_taken"]),
                            ("surfaces_under_fire", mine["surfaces_under_fire"])):
            s[key] += int(np.asarray(values).sum())

    def figures(self) -> dict:
        """The ``DUEL_NAMES`` figures of the games added (``duel_figures``)."""
        return duel_figures(self.sums)


def duel_figures(sums: dict) -> dict:
    """The ``DUEL_NAMES`` figures from one bot's sums (keys ``DUEL_SUMS``): shares of games
    (``first_damage``), of the games it dealt the first damage in (``won_after_first_damage``)
    or took it in (``lost_after_first_damage_taken``), per torpedo fired (``direct_hit_rate``,
    ``damage_per_shot``), else means per game; None where there is nothing to divide by."""
    s = sums
    games = s["games"]
    out = {"first_damage": _share(s["first"], games),
           "won_after_first_damage": _share(s["first_won"], s["first"]),
           "lost_after_first_damage_taken": _share(s["first_taken_lost"], s["first_taken"]),
           "torpedoes": _share(s["torpedoes"], games),
           "direct_hits": _share(s["direct_hits"], games),
           "direct_hit_rate": _share(s["direct_hits"], s["torpedoes"]),
           "damage_per_shot": _share(s["torpedo_damage_dealt"], s["torpedoes"])}
    for key in ("torpedo_damage_dealt", "mine_damage_dealt", "mine_damage_taken", "surfaces_under_fire"):
        out[key] = _share(s[key], games)
    return {k: out[k] for k in DUEL_NAMES}
