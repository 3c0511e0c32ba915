"""A replay as one self-contained HTML page: the board on a canvas, both submarines with
their paths, mines, blasts, lives and charges, each turn's orders, a step slider, and
optionally the opponent tracker's beliefs as a heat map. The page works offline (inline CSS
and JS, no fonts, scripts or images from anywhere); ``ocean replay`` writes it."""
from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

__all__ = ["render_replay_html"]

CELLS = 225
_PLACEHOLDER = re.compile(r"__(TITLE|REPLAY_DATA|BELIEFS_DATA)__")


def render_replay_html(data: dict, beliefs: list | None = None) -> str:
    """The HTML document that replays ``data`` (an ``ocean-replay/1`` dict).

    ``beliefs``, when given, has one entry per element of ``data["turns"]``: None, or a
    list of two items (index = observing player), each None or 225 probabilities (index
    y*15+x) of where that player believes the opponent is at the start of that turn.
    Raises ValueError when ``beliefs`` does not have that shape.
    """
    fills = {
        "TITLE": html.escape(_title(data)),
        "REPLAY_DATA": _embed_json(data),
        "BELIEFS_DATA": _embed_json(_normalise_beliefs(beliefs, len(data.get("turns", [])))),
    }
    template = resources.files("ocean").joinpath("data/replay_template.html").read_text(encoding="utf-8")
    # One pass over the template only: text from the replay (a player named
    # "__BELIEFS_DATA__") is never scanned for placeholders.
    return _PLACEHOLDER.sub(lambda m: fills[m.group(1)], template)


def _title(data: dict) -> str:
    players = data.get("players") or ["player 0", "player 1"]
    return f"Ocean of Code replay: {players[0]} vs {players[1]} (seed {data.get('seed', '?')})"


def _embed_json(value: Any) -> str:
    """JSON that is safe inside <script type="application/json">: "</" cannot close the
    tag, and "<!--" cannot switch the HTML parser into its script-escape states."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _normalise_beliefs(beliefs: list | None, turns: int) -> list | None:
    """Check the shape and turn every probability into a short float (numpy arrays welcome)."""
    if beliefs is None:
        return None
    if len(beliefs) != turns:
        raise ValueError(f"beliefs has {len(beliefs)} entries but the replay has {turns} turns")
    return [_normalise_turn(entry, t) for t, entry in enumerate(beliefs)]


def _normalise_turn(entry: Any, turn: int) -> list | None:
    if entry is None:
        return None
    if len(entry) != 2:
        raise ValueError(f"beliefs[{turn}] must hold one item per player (2), got {len(entry)}")
    out = []
    for viewer, probs in enumerate(entry):
        if probs is None:
            out.append(None)
            continue
        if len(probs) != CELLS:
            raise ValueError(f"beliefs[{turn}][{viewer}] must have {CELLS} cells, got {len(probs)}")
        # Three significant digits are plenty for a heat map and keep long games small.
        out.append([float(f"{float(p):.3g}") for p in probs])
    return out
