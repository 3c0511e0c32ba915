"""The v4 tunable bot (policy ``tunable-v4``): seed 002's tree search over v3's lines.
Compiled on first use (``bots.registry``), like v3.

- ``_greedy``: v3's one-turn scoring of every line (its kernels, its order), keeping every
  candidate with its score and its shot's expected value: the greedy of each node and its
  evaluation.
- ``_tree``: the tree in preallocated arrays: UCB1 descent, the opponent drawn at the root from
  the tracker's weighted cells and inherited by the children, lines played through the rules,
  the greedy's best score backed up.
- ``_opponent``: the opponent's turn in a transition (``opponent_turn``): its mine, its MOVE,
  its TORPEDO by v3's answer model from the drawn cell, from what it shows only.
- ``_turn``: one decision for an iteration budget (``iterations``: work, never time, so
  in-process games reproduce); ``_clock``: the same in slices under a wall-clock guard, for
  ``ocean bot --turn-ms``.
- ``coefficients``: v3's coefficients (defaults of its own), then the search's.

With ``iterations = 1`` it plays exactly v3's move (v3 reading v4's evaluation coefficients; v4's
defaults are studies/tuned-v4.toml's, ``coefficients.EVALUATION``).
"""
