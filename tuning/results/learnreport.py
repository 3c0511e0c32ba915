"""``tune report NAME`` for a learning run: its settings, its learning curve (the figure and
its table) and the last checkpoint's weights, as one self-contained HTML page with the curve
as a PNG file beside it."""
from __future__ import annotations

import base64
import html
from pathlib import Path

from tuning.results.learncurve import curve_table, draw_curve, matches_text, trust_table
from tuning.results.page import html_page
from tuning.storage.learnstore import LearnStore
from tuning.storage.provenance import describe_code

__all__ = ["write_learn_report"]


def _score(cell: dict | None) -> str:
    if cell is None:
        return "-"
    return f"{cell['score']:.3f} [{cell['low']:.3f}, {cell['high']:.3f}] on {cell['maps']} maps x 2"


def _setting(value) -> str:
    if isinstance(value, dict):  # the starting weights
        if not any(value.values()):
            return "all-zero weights"
        return ", ".join(f"{k} {v:g}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _page(store: LearnStore, image: str) -> str:
    esc = html.escape
    definition = store.definition() or {}
    checkpoints = store.checkpoints()
    last = checkpoints[-1] if checkpoints else None
    rows = curve_table(store)
    yardsticks = sorted({k for r in rows for k in r if k not in ("round", "games")})
    summary = [("learning run", store.name), ("storage", store.storage.masked),
               ("self-play games", f"{last.games:,} in {last.round} rounds" if last else "none yet")]
    summary += [(key, _setting(definition[key])) for key in sorted(definition)]
    summary.append(("code", describe_code(store.code(), unit="round")))
    head = "".join(f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>" for k, v in summary)
    curve = ("<tr><th>self-play games</th>" + "".join(f"<th>vs {esc(n)}</th>" for n in yardsticks) + "</tr>"
             + "".join(f"<tr><td>{r['games']:,}</td>" + "".join(f"<td>{esc(_score(r.get(n)))}</td>" for n in yardsticks)
                       + "</tr>" for r in rows))
    weights = "" if last is None else (
        f"<h2>Weights after {last.games:,} games</h2><table id=\"weights\"><tr><th>feature</th><th>weight</th></tr>"
        + "".join(f"<tr><td>{esc(k)}</td><td>{v:+.4f}</td></tr>" for k, v in last.weights.items()) + "</table>")
    trust = trust_table(store)
    trusted = "" if not trust else (
        "<h2>Trust step</h2><p class=note>After the TD games, the learner played itself with the weight of "
        "<code>v3_regret</code> scaled (each scale against the best so far, paired games on learning maps) and "
        "kept the winner; the trusted weights then played the yardsticks on the held-out maps. Each trust step "
        "(one per <code>--trust-games</code> a checkpoint was given) is a row of its own.</p>"
        "<table id=\"trust\"><tr><th>after games</th><th>trust games</th><th>self-play matches</th>"
        "<th>scale chosen</th>" + "".join(f"<th>trusted vs {esc(n)}</th>" for n in yardsticks)
        + "<th>--out</th></tr>"
        + "".join(f"<tr><td>{r['games']:,}</td><td>{r['trust_games']:,}</td><td>"
                  + esc(matches_text(r))
                  + f"</td><td>x{r['scale']:g}</td>" + "".join(f"<td>{esc(_score(r.get(n)))}</td>" for n in yardsticks)
                  + f"<td>{esc(str(r['out'])) + ' received these weights' if r['out'] else ''}</td>"
                  + "</tr>" for r in trust) + "</table>")
    figure = f'<img src="data:image/png;base64,{image}" alt="learning curve">' if image else \
        "<p class=note>No checkpoint scored yet (--score-every).</p>"
    return html_page(f"Learning run {store.name}", f"""<h1>Learning run <code>{esc(store.name)}</code></h1>
<p class=note>Written by <code>tune report</code> from the study database: TD(lambda) self-play of the
<code>tunable-td</code> bot (<code>tune learn</code>); each scored checkpoint played the yardstick bots on
held-out maps, each map twice with sides swapped.</p>
<table id="summary">{head}</table>
<h2>Strength against self-play games</h2>{figure}
<table id="curve">{curve}</table>
{trusted}
{weights}""")


def write_learn_report(store: LearnStore, out: Path) -> dict:
    """Write ``out`` (HTML) and ``<out stem>_curve.png`` beside it (when a checkpoint was
    scored); returns what was written."""
    pngs, image = [], ""
    if curve_table(store) or trust_table(store):
        png = draw_curve(store, out.with_name(f"{out.stem}_curve.png"))
        pngs.append(png)
        image = base64.b64encode(png.read_bytes()).decode("ascii")
    out.write_text(_page(store, image), encoding="utf-8")
    return {"html": out, "pngs": pngs}
