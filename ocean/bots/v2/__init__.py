"""The v2 tunable bot (policy ``tunable-v2``): the 2020 winner's search (shared/seeds/000) as
stages, each a compiled kernel a test can call on a hand-built board. Frozen since 2026-11-25
with the v2 panel members whose fingerprints check it: this package never changes again; a
stronger search is a package of its own.

- ``_observe``: memory layout and the observe stage (three trackers: the opponent, safe and
  assuming; ourselves as the opponent can track us).
- ``_fields``: per-cell fields from the trackers: where the opponent is, what a blast on each
  cell is worth (expected lives plus the chance it kills, read from the opponent's life), the
  mine danger on each cell.
- ``_minefield``: the cheapest path ``path_depth`` moves ahead through the mine danger,
  discounted, with the cost of a dead end (step 1 of the winner's search).
- ``_plausible``: the opponent's states weighted by how plausible their paths are (seed 002:
  room kept, islands hugged), once the tracker has narrowed them down.
- ``_retaliation``: what the opponent can believe about us after a line and its best shot.
- ``_turn``: enumerate the lines (SURFACE, MOVE, SILENCE, a TORPEDO before, between or after
  them), score them (damage, retaliation by life lead, minefield, room, charges kept), choose,
  and write the actions (then TRIGGER, MINE, SONAR).

Every weight is a named coefficient of ``coefficients.COEFFICIENTS_V2``. Deterministic: the
rng only breaks exact ties, and the work per turn is bounded by the line count and
``path_depth``, never by a clock.
"""
