"""The v3 tunable bot (policy ``tunable-v3``): v2's search with step 3 of the winner's search
(seed 000) made exact — the opponent's answer from where it can fire, with the charges it
can have — and our answer to its answer. Compiled on first use (``bots.registry``): when a game
first names it, never by ``ocean warmup`` alone (``ocean warmup --all`` compiles it too).

Stages, each a compiled kernel a test calls on a hand-built board:

- ``_observe``: v2's three trackers (reused as they are: ``bots/v2`` never changes), the
  opponent's MOVEs since its last SILENCE, and the map's answer tables.
- ``_lines``: the lines (SURFACE, a MOVE or none, a SILENCE before or after it) and what the
  opponent can believe about us after each, in the line's order (a SURFACE's sector, a
  TORPEDO's reach, the MOVE's direction, the SILENCE's spread).
- ``_minefield``: v2's cheapest path ahead through the opponent's mines, over the cells
  each layer reaches (same value, a fraction of the work).
- ``_answer``: where the opponent can fire from after a MOVE (or a MOVE and a SILENCE), its
  best TORPEDO against where it believes we are, whether it fires at all.
- ``_powers``: TRIGGER (before, between or after the movement), MINE where the opponent's paths go,
  SONAR by what its answer adds to our next shot.
- ``_turn``: fields (v2's), score every line with its best TORPEDO and TRIGGER against the
  opponent's answer, choose, write the actions, then MINE and SONAR.

Every weight is a named coefficient of ``coefficients.COEFFICIENTS_V3``. Deterministic: the
rng only breaks exact ties, and the work per turn is bounded by the line count and
``path_depth``, never by a clock.
"""
