"""The fixed opponent panel: frozen bots by stable name, and named panels of them, read
from ocean/data/panels.toml (the file says how bots are versioned)."""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources

from ocean.bots import coefficients

__all__ = ["PanelBot", "panel_file_text", "panel_bots", "panel_names", "panel_members", "latest_version"]

_NAME = re.compile(r"^(?P<family>[a-z][a-z0-9_]*)-v(?P<version>[0-9]+)$")


class PanelBot(dict):
    """One frozen bot: ``name``, ``policy``, ``style``, ``params`` (None for baselines),
    ``fingerprint`` (hash of its lines on fixed games; see tests)."""


def panel_file_text() -> str:
    return resources.files("ocean").joinpath("data/panels.toml").read_text()


@lru_cache(maxsize=1)
def _load() -> tuple[dict, dict]:
    data = tomllib.loads(panel_file_text())
    bots = {}
    for name, entry in data["bots"].items():
        if not _NAME.match(name):
            raise ValueError(f"panels.toml: bot name {name!r} must look like family-vN")
        params = None
        if entry["policy"] == "tunable":
            params = coefficients.validate(entry["coefficients"], where=f"panels.toml [bots.{name}]")
        bots[name] = PanelBot(name=name, policy=entry["policy"], style=entry.get("style", ""),
                              params=params, fingerprint=entry.get("fingerprint"))
    panels = dict(data["panels"])
    for panel, members in panels.items():
        for member in members:
            if member not in bots:
                raise ValueError(f"panels.toml: panel {panel!r} lists unknown bot {member!r}")
    return bots, panels


def panel_bots() -> dict[str, PanelBot]:
    """Every frozen bot by name."""
    return dict(_load()[0])


def panel_names() -> list[str]:
    """The names of the panels."""
    return list(_load()[1])


def panel_members(name: str) -> list[str]:
    """Bot names of panel ``name``; ValueError naming the panels if there is none."""
    panels = _load()[1]
    if name not in panels:
        raise ValueError(f"unknown panel {name!r}; panels: {', '.join(panels)}")
    return list(panels[name])


def latest_version(family: str) -> str | None:
    """Full name of the highest version of a bot family (``hunter`` -> ``hunter-v1``)."""
    best = None
    for name in _load()[0]:
        m = _NAME.match(name)
        if m and m["family"] == family and (best is None or int(m["version"]) > best[0]):
            best = (int(m["version"]), name)
    return best[1] if best else None


def behaviour_fingerprint(spec) -> str:
    """A hash of every line ``spec`` plays on fixed games against ``random-v1`` (four
    maps, both sides): any change to a bot's behaviour changes it."""
    import hashlib

    import numpy as np

    from ocean import _match, _rules
    from ocean.bots import resolve_bot
    from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS
    from ocean.match import boards_for_seeds

    opponent = resolve_bot("random-v1")
    digest = hashlib.sha256()
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    seeds = [11, 22, 33, 44]
    for seed, board in zip(seeds, boards_for_seeds(seeds)):
        for bots in ((spec, opponent), (opponent, spec)):
            kinds = np.array([b.kind for b in bots], dtype=np.int64)
            coefs = np.stack([b.vector() for b in bots])
            turns = _match.play_game(board, kinds, coefs, np.int64(seed), state, log, counts)
            digest.update(log[:turns].tobytes())
            digest.update(counts[:turns].tobytes())
    return digest.hexdigest()[:16]
