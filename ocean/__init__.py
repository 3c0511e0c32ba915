"""Ocean of Code: the exact engine, the CodinGame protocol, in-process bots and replays.

Public surface (everything else is an implementation detail):

- ``Game``: one game over the compiled rules, fed text lines or encoded actions.
- ``generate_map`` / ``map_rows``: the referee's map for a signed 64-bit seed.
- ``play`` / ``play_with_replay``: a game between in-process bots.
- ``referee_game``: a game between two external programs.
"""
from ocean._cache import configure_cache

configure_cache()  # before any kernel is defined

from ocean.game import Game  # noqa: E402
from ocean.maps import generate_map, map_rows  # noqa: E402
from ocean.play import play, play_with_replay  # noqa: E402
from ocean.referee import referee_game  # noqa: E402

__all__ = ["Game", "generate_map", "map_rows", "play", "play_with_replay", "referee_game"]
