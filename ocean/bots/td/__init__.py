"""The learned bot (policy ``tunable-td``): v3's search, with every line's end scored by a
linear advantage over named features of both sides, A = sum w_i (x_i - y_i), read as a win
rate 1 / (1 + exp(-A)) (seed 003). The weights are its coefficients (``coefficients``), so
everything that plays a tunable bot plays it; ``tune learn`` learns them by TD(lambda) from
self-play. Compiled on first use (``bots.registry``).

Stages, each a compiled kernel a test calls on a hand-built board:

- v3's observe stage (``bots/v3/_observe``: v2's trackers, the opponent's charge counts) and
  v3's lines (``bots/v3/_lines``), reused as they are;
- ``_features``: what the bot believes at the end of a line, ours (x) and the opponent's (y),
  one named feature per slot (``FEATURES``), from its trackers, never the truth;
- ``_turn``: every line, holding fire or firing its best TORPEDO, scored by the advantage;
  the best one (or, while learning, a random one with chance epsilon) written, then v3's MINE
  and SONAR with v3's default coefficients;
- ``_selfplay``: whole self-play games that keep each side's chosen feature rows for learning;
- ``_learn``: the TD(lambda) update over one game's feature rows.

Deterministic: the rng breaks exact ties and draws the exploration; work per turn is
bounded by the line count, never by a clock.
"""
