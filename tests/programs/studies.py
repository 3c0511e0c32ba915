"""Study files for a program tuned at a time control (the drills of issue 24 and
``benchmarks/timecontrol.py``)."""
from __future__ import annotations

import textwrap

__all__ = ["timed_study"]


def timed_study(name: str, command: str, search: str, *, turn_ms: int, panel: tuple[str, ...] = ("random", "chaser"),
                n_trials: int = 2, first_map: int = 10, maps: int = 4, batch_pairs: int = 2, sampler_seed: int = 1,
                validation_maps: int = 4, validation_games: int = 4, writable_folder: bool = False) -> str:
    """A study file tuning the program ``command`` (its placeholders as written) over ``search``
    (one TOML line, e.g. ``skill = { low = 0.5, high = 1.0, default = 0.9 }``) at
    ``[time] turn_ms``, with the random sampler, no pruning and the best trial validated.
    Limits are the times told x 20: a machine shared with other work must not time it out.
    ``writable_folder``: the programs may write to their folder, the study file's (a log there)."""
    members = ", ".join(f'"{m}"' for m in panel)
    return textwrap.dedent(f"""
        name = "{name}"
        n_trials = {n_trials}
        trials_in_flight = 2
        panel = [{members}]
        seed_bank = {{ start = {first_map}, count = {maps} }}
        batch_pairs = {batch_pairs}
        timeout_scale = 20

        [time]
        turn_ms = {turn_ms}

        [bot]
        command = "{command}"

        [search]
        {search}

        [sampler]
        kind = "random"
        seed = {sampler_seed}

        [pruning]
        enabled = false

        [validation]
        seeds = {{ start = 900000, count = {validation_maps} }}
        games = {validation_games}
        top_k = 1
    """) + ("\n[sandbox]\nwritable_folder = true\n" if writable_folder else "")
