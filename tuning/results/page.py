"""The frame of the small report pages (a test's, a learning run's): one self-contained HTML
document with the same plain style."""
from __future__ import annotations

import html
from pathlib import Path
from typing import Callable

__all__ = ["html_page", "figure_path", "duel_table", "DUEL_NOTE"]

_STYLE = """body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; vertical-align: top; }
img { max-width: 100%; display: block; margin: 8px 0; } .note { color: #666; }"""


def html_page(title: str, body: str) -> str:
    """A whole HTML document titled ``title`` (escaped here) around ``body`` (HTML as given)."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
{_STYLE}
</style></head><body>
{body}
</body></html>
"""


def figure_path(out: Path, name: str) -> Path:
    """Where the PNG of figure ``name`` of page ``out`` goes: in a folder beside the page, named
    after it (``report.html`` -> ``report_figures/history.png``), created if missing. The page
    itself carries every figure inside it: it opens without the folder."""
    folder = out.with_name(f"{out.stem}_figures")
    folder.mkdir(exist_ok=True)
    return folder / f"{name}.png"



DUEL_NOTE = ("each figure as {a} / {b}: who dealt the game's first damage (share of games), games won after "
             "dealing it and lost after taking it (shares of those games), torpedoes and direct hits (on the "
             "opponent's cell) per game, the direct hits' share of the torpedoes, damage per torpedo, torpedo and "
             "mine damage dealt, mine damage taken, and surfaces under fire (the opponent took a life in one of its "
             "last two turns before the SURFACE), per game.")


def duel_table(duels: dict, point: Callable[[int], str], opponent: Callable[[str], str]) -> str:
    """The duel figures (``ocean.duel``) as one HTML table, id "duel": a row per (point, opponent)
    key of ``duels`` in its order, each holding {"games", "a": figures, "b": figures}; each cell
    "a / b". ``point`` and ``opponent`` name a row's point and opponent (text, escaped here)."""
    from ocean.duel import DUEL_NAMES

    esc = html.escape

    def num(x) -> str:
        return "–" if x is None else f"{x:.3f}"

    rows = "<tr><th>bot</th><th>opponent</th><th>games</th>" + "".join(
        f"<th>{esc(k.replace('_', ' '))}</th>" for k in DUEL_NAMES) + "</tr>"
    for (trial, name), sides in duels.items():
        cells = "".join(f"<td>{num(sides['a'][k])} / {num(sides['b'][k])}</td>" for k in DUEL_NAMES)
        rows += (f"<tr><td>{esc(point(trial))}</td><td>{esc(opponent(name))}</td><td>{sides['games']}</td>"
                 f"{cells}</tr>")
    return f'<table id="duel">{rows}</table>'
