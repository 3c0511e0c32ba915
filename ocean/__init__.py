"""Ocean of Code: the exact engine, the CodinGame protocol, in-process bots and replays.

Public surface (everything else is an implementation detail):

- ``Game``: one game over the compiled rules, fed text lines or encoded actions.
- ``generate_map`` / ``map_rows``: the referee's map for a signed 64-bit seed.
- ``play`` / ``play_with_replay``: a game between in-process bots.
- ``referee_game``: a game between two external programs.

They load on first use: a bot program (``ocean bot``) must answer within a second and
imports only what it plays with.
"""
from importlib import import_module

__all__ = ["Game", "generate_map", "map_rows", "play", "play_with_replay", "referee_game"]

_HOME = {"Game": "ocean.game", "generate_map": "ocean.maps", "map_rows": "ocean.maps", "play": "ocean.play",
         "play_with_replay": "ocean.play", "referee_game": "ocean.referee"}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module 'ocean' has no attribute {name!r}")
