"""Where a ``tune test`` stands, as one JSON-able dict, and its report: an HTML page with the ratio
over games, the Elo estimate over games, the pentanomial table, for a gauntlet each opponent, and
the duel of each bot with each opponent (first damage, direct hits, ...: ``ocean.duel``).
Everything is read from the database; the verdict is recomputed from the games (``judge``).
"""
from __future__ import annotations

import base64
import html
import io
import math
from pathlib import Path

import numpy as np

from tuning.driver.bottest import ROLES, MatchTally, Tally, Verdict, bot_failures, failures_seen, judge, read_prefix
from tuning.driver.faults import FAULT_SHARE
from tuning.results.page import DUEL_NOTE, duel_table, figure_path, html_page
from tuning.stats.sprt import GAUNTLET, PENTANOMIAL_NAMES, estimate
from tuning.storage.provenance import describe_code
from tuning.storage.teststore import TestHandle
from tuning.study.testspec import BASE, NEW, TEST_PHASE, TestSpec

__all__ = ["test_status", "verdict_line", "failures_line", "write_test_report", "RESULTS"]

RESULTS = {"H1": "H1 accepted", "H0": "H0 accepted", "max": "max games reached", None: "running"}


def _num(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else round(float(x), 6) + 0.0  # no -0.0


def _gauntlet_names() -> list[str]:
    return [f"{d:+g}" for d in (GAUNTLET - 0.5)]


def _sum_matches(tallies: list[Tally]) -> dict[tuple[int, str], MatchTally]:
    total: dict[tuple[int, str], MatchTally] = {}
    for t in tallies:
        for key, m in t.matches.items():
            total.setdefault(key, MatchTally()).add(m)
    return total


def _match_dict(m: MatchTally) -> dict:
    score = (m.wins + 0.5 * m.draws) / m.games if m.games else None
    return {"games": m.games, "wins": m.wins, "draws": m.draws, "losses": m.losses, "score": _num(score),
            "pentanomial": [int(x) for x in m.pentanomial], "disqualified": m.errors,
            "opponent_disqualified": m.opponent_errors}


def _estimate_dict(counts, support) -> dict:
    e = estimate(counts, support)
    return {"pairs": e.pairs, "score": _num(e.score), "score_ci": [_num(e.score_low), _num(e.score_high)],
            "elo": _num(e.elo), "elo_ci": [_num(e.elo_low), _num(e.elo_high)], "nelo": _num(e.nelo),
            "nelo_ci": [_num(e.nelo_low), _num(e.nelo_high)]}


def _reported_estimate(spec: TestSpec, verdict: Verdict) -> dict:
    """The test's Elo as reported: after a stop at H1 or H0 the stop-adjusted estimate and interval
    (``tuning.stats.sprtelo``: the fixed-sample interval covers less than it says after a
    sequential stop, and a stop at H1 reads too high), else the fixed-sample one; the fixed-sample
    one always under ``fixed_*``, and ``estimate`` says which the plain keys hold."""
    from tuning.stats.sprtelo import stopped_estimate

    fixed = _estimate_dict(verdict.counts, spec.support)
    out = {**fixed, "estimate": "fixed-sample", **{f"fixed_{k}": v for k, v in fixed.items() if k != "pairs"}}
    stopped = stopped_estimate(verdict.counts, spec.settings, verdict.result, spec.support)
    if stopped is not None:
        out.update({"estimate": "stop-adjusted", "score": _num(stopped.score),
                    "score_ci": [_num(stopped.score_low), _num(stopped.score_high)], "elo": _num(stopped.elo),
                    "elo_ci": [_num(stopped.elo_low), _num(stopped.elo_high)], "nelo": _num(stopped.nelo),
                    "nelo_ci": [_num(stopped.nelo_low), _num(stopped.nelo_high)]})
    return out


def _opponent_rows(spec: TestSpec, used: list[Tally]) -> list[dict]:
    """Per opponent of a gauntlet: each bot's games and score, and the paired difference's Elo."""
    matches = _sum_matches(used)
    rows = []
    for o in spec.opponents:
        diff = np.sum([t.by_opponent[o.name] for t in used], axis=0) if used else np.zeros(len(GAUNTLET))
        rows.append({"opponent": o.name, "new": _match_dict(matches.get((NEW, o.name), MatchTally())),
                     "base": _match_dict(matches.get((BASE, o.name), MatchTally())),
                     "difference": [int(x) for x in diff], **_estimate_dict(diff, GAUNTLET)})
    return rows


def _failures(handle: TestHandle, used: list[Tally], batches: int) -> dict:
    """Each bot's failures in the games counted: how many, their share, by kind (timeout, crash,
    memory, illegal, output: ``ocean.referee.failure_kind``) and the first one stored; and the
    share above which a test stops."""
    from ocean.referee import failure_kinds

    spec = handle.spec
    out: dict = {}
    for role, (failed, games) in bot_failures(spec, used).items():
        reasons, first = failures_seen(handle, role, batches) if failed else ({}, None)
        bot = spec.new if role == "new" else spec.base
        out[role] = {"bot": bot.name, "program": bot.is_program, "games": games, "failed": failed,
                     "rate": _num(failed / games) if games else None, "reasons": failure_kinds(reasons),
                     "first": first}
    out["stop_share"] = FAULT_SHARE
    return out


def test_status(handle: TestHandle) -> dict:
    """The test's definition, verdict (or where it stands), Elo with intervals, outcome table,
    W/D/L, each bot's failures, per-opponent rows of a gauntlet, games stored and their rate."""
    spec = handle.spec
    tallies, _ = read_prefix(handle)
    verdict = judge(spec, tallies)
    used = tallies[:verdict.batches]
    lower, upper = spec.settings.bounds
    matches = _sum_matches(used)
    games = handle.store.games
    rate, last = games.recent_rate()
    new = [m for (trial, _), m in matches.items() if trial == NEW]
    wdl_new = [sum(m.wins for m in new), sum(m.draws for m in new), sum(m.losses for m in new)]
    out = {
        "test": handle.name,
        "storage": handle.storage.masked,
        "new": spec.new.name,
        "base": spec.base.name,
        "panel": spec.panel,
        "opponents": None if spec.opponents is None else [o.name for o in spec.opponents],
        "result": verdict.result,
        "finished": verdict.result is not None,
        "llr": round(verdict.llr, 6),
        "bounds": [round(lower, 6), round(upper, 6)],
        "elo0": spec.settings.elo0, "elo1": spec.settings.elo1, "alpha": spec.settings.alpha,
        "beta": spec.settings.beta, "normalized": spec.settings.normalized,
        "games": verdict.games,
        "pairs": verdict.units,
        "batches": verdict.batches,
        "max_batches": spec.max_batches,
        "max_games": spec.max_games,
        **_reported_estimate(spec, verdict),
        "outcomes": dict(zip(_gauntlet_names() if spec.gauntlet else PENTANOMIAL_NAMES,
                             (int(x) for x in verdict.counts))),
        "wdl": wdl_new,  # the new bot's wins, draws and losses in the games counted
        "history": [[g, round(r, 6)] for g, r in verdict.history],
        "games_stored": games.count_games(phase=TEST_PHASE),
        "code": describe_code(handle.store.code(), unit="game"),
        "games_per_second": _num(rate),
        "last_batch_at": _num(last),
        "seeds": f"{spec.seed}..{spec.seed + spec.max_batches * spec.batch_pairs - 1}",
        "batch_pairs": spec.batch_pairs,
        "time_control": {"turn_ms": spec.turn_ms, "first_turn_ms": spec.first_turn_ms,
                         "time_scale": spec.time_scale, "machine_scale": spec.machine_scale},
        "disqualified": {"new": sum(m.errors for m in new),
                         "base": sum(m.errors for (t, _), m in matches.items() if t == BASE) if spec.gauntlet
                         else sum(m.opponent_errors for m in new)},
        # each bot's failures, counted by one rule (a loss for the one that failed): docs/testing.md
        "failures": _failures(handle, used, verdict.batches),
    }
    # each bot's duel with each opponent, both sides, over every game stored: {role: {opponent: ...}}
    out["duel"] = _duel(handle)
    if spec.gauntlet:
        base = [m for (trial, _), m in matches.items() if trial == BASE]
        out["wdl_base"] = [sum(m.wins for m in base), sum(m.draws for m in base), sum(m.losses for m in base)]
        out["per_opponent"] = _opponent_rows(spec, used)
    return out


def _duel(handle: TestHandle) -> dict:
    from ocean.duel import duel_figures

    out: dict = {}
    for (role, opponent), sides in handle.store.games.duel_sums([NEW, BASE], TEST_PHASE).items():
        out.setdefault(str(role), {})[opponent] = {"games": sides["a"]["games"], "a": duel_figures(sides["a"]),
                                                   "b": duel_figures(sides["b"])}
    return out


def _elo_text(value, ci) -> str:
    def one(x):
        return "-" if x is None else f"{x:+.1f}"
    return f"{one(value)} [{one(ci[0])}, {one(ci[1])}]"


def verdict_line(s: dict) -> str:
    """The one line that says how the test ended (or stands): result, ratio, games, Elo."""
    unit = "nElo" if s["normalized"] else "Elo"
    head = f"{RESULTS[s['result']]}" if s["result"] else "no verdict yet"
    hypotheses = f"H0 {s['elo0']:g} against H1 {s['elo1']:g} {unit}"
    units = "(opponent, map) units" if s["opponents"] else "pairs"
    return (f"{head}: {s['new']} against {s['base']} ({hypotheses}): LLR {s['llr']:+.2f} in "
            f"[{s['bounds'][0]:.2f}, {s['bounds'][1]:.2f}] after {s['games']:,} games ({s['pairs']:,} {units}); "
            f"Elo {_elo_text(s['elo'], s['elo_ci'])}, nElo {_elo_text(s['nelo'], s['nelo_ci'])} "
            f"(95%{_kind(s)})")


def failures_line(s: dict) -> str | None:
    """Each bot's failures in the games counted, one line: ``failures: new bot (X) 9 of 80 games
    (11%: crash 9), base bot (Y) 0 of 80; a test stops above 30%``; None when neither failed and
    neither is a program (an in-process bot never does)."""
    f = s.get("failures")
    if not f or not any(f[r]["failed"] or f[r]["program"] for r in ROLES):
        return None

    def one(role: str) -> str:
        r = f[role]
        kinds = ", ".join(f"{kind} {n}" for kind, n in r["reasons"].items())
        share = f" ({r['failed'] / r['games']:.0%}{': ' + kinds if kinds else ''})" if r["failed"] else ""
        return f"{role} bot ({r['bot']}) {r['failed']} of {r['games']:,} games{share}"

    return f"failures: {one('new')}, {one('base')}; a test stops above {f['stop_share']:.0%}"


def _kind(s: dict) -> str:
    """What the verdict line's Elo is: the stop-adjusted one names the fixed-sample one beside it."""
    if s.get("estimate") != "stop-adjusted":
        return ", fixed-sample"
    return f", stop-adjusted; fixed-sample Elo {_elo_text(s['fixed_elo'], s['fixed_elo_ci'])}"


# --- the report ------------------------------------------------------------------------------

def _elo_track(spec: TestSpec, tallies: list[Tally], verdict: Verdict) -> list[tuple[int, float, float, float]]:
    """(games, Elo, low, high) after each batch of the verdict's."""
    out = []
    counts = np.zeros(len(spec.support), dtype=np.int64)
    for i, t in enumerate(tallies[:verdict.batches]):
        counts = counts + t.counts
        e = estimate(counts, spec.support)
        out.append(((i + 1) * spec.games_per_batch, e.elo, e.elo_low, e.elo_high))
    return out


def _figures(spec: TestSpec, status: dict, tallies: list[Tally], verdict: Verdict) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})
    figs = {}
    fig, ax = plt.subplots(figsize=(8, 3.4))
    games = [0] + [g for g, _ in verdict.history]
    ratios = [0.0] + [r for _, r in verdict.history]
    ax.plot(games, ratios, color="#1f77b4", lw=1.5, marker="." if len(games) < 60 else None, label="LLR")
    lower, upper = status["bounds"]
    ax.axhline(upper, color="#2ca02c", ls="--", lw=1, label=f"H1 bound {upper:+.2f}")
    ax.axhline(lower, color="#d62728", ls="--", lw=1, label=f"H0 bound {lower:+.2f}")
    ax.axhline(0.0, color="#999999", lw=0.6)
    if verdict.result is not None and verdict.history:
        ax.plot([games[-1]], [ratios[-1]], "*", ms=14, color="#ff7f0e", mec="white",
                label=f"{status['result']}: {'accepted' if status['result'] != 'max' else 'max games'}")
    ax.set_xlabel("games")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"{spec.new.name} against {spec.base.name}: the test's ratio after each batch")
    ax.legend(fontsize=8, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    figs["llr"] = fig

    track = _elo_track(spec, tallies, verdict)
    if track:
        fig, ax = plt.subplots(figsize=(8, 3.0))
        g = [t[0] for t in track]
        ax.plot(g, [t[1] for t in track], color="#9467bd", lw=1.5, label="Elo")
        ax.fill_between(g, [max(-1000, t[2]) for t in track], [min(1000, t[3]) for t in track], color="#9467bd",
                        alpha=0.2, lw=0, label="95% interval (fixed-sample)")
        if status["estimate"] == "stop-adjusted" and None not in (status["elo"], *status["elo_ci"]):
            low, high = status["elo_ci"]
            ax.errorbar([g[-1]], [status["elo"]], yerr=[[status["elo"] - low], [high - status["elo"]]], fmt="D",
                        color="#ff7f0e", ms=5, capsize=3, label="stop-adjusted, 95%")
        for elo, name in ((spec.settings.elo0, "elo0"), (spec.settings.elo1, "elo1")):
            if not spec.settings.normalized:
                ax.axhline(elo, color="#555555", ls=":", lw=0.8)
                ax.annotate(name, (g[-1], elo), fontsize=7, color="#555555", ha="right", va="bottom")
        ax.set_xlabel("games")
        ax.set_ylabel("Elo (new - base)")
        ax.set_title("Elo estimate over the test")
        ax.legend(fontsize=8, frameon=False, loc="best")
        fig.tight_layout()
        figs["elo"] = fig

    if spec.gauntlet and status.get("per_opponent"):
        rows = status["per_opponent"]
        fig, ax = plt.subplots(figsize=(8, 3.0))
        x = np.arange(len(rows))
        for shift, role, colour in ((-0.2, "new", "#1f77b4"), (0.2, "base", "#aaaaaa")):
            scores = [r[role]["score"] if r[role]["score"] is not None else math.nan for r in rows]
            ax.bar(x + shift, scores, 0.4, color=colour, label=f"{role}: {spec.new.name if role == 'new' else spec.base.name}")
        ax.set_xticks(x, [r["opponent"] for r in rows])
        ax.set_ylim(0, 1.05)
        ax.axhline(0.5, color="#555555", lw=0.6, ls=":")
        ax.set_ylabel("score against the opponent")
        ax.set_title("Both bots against each opponent (same maps, same sides)")
        ax.legend(fontsize=8, frameon=False)
        fig.tight_layout()
        figs["opponents"] = fig
    return figs


def _page(spec: TestSpec, s: dict, images: dict[str, str]) -> str:
    esc = html.escape
    unit = "normalized Elo" if s["normalized"] else "Elo (logistic)"
    head = [("test", s["test"]), ("storage", s["storage"]), ("new bot", s["new"]), ("base bot", s["base"]),
            ("opponents", "head to head" if not s["opponents"] else f"gauntlet: {', '.join(s['opponents'])}"),
            ("hypotheses", f"H0: {s['elo0']:g}, H1: {s['elo1']:g} {unit}; alpha {s['alpha']:g}, beta {s['beta']:g}"),
            ("verdict", verdict_line(s)),
            ("LLR", f"{s['llr']:+.3f} in [{s['bounds'][0]:.3f}, {s['bounds'][1]:.3f}]"),
            ("score" + (" (stop-adjusted)" if s["estimate"] == "stop-adjusted" else ""),
             f"{s['score']:.4f} [{s['score_ci'][0]:.4f}, {s['score_ci'][1]:.4f}]" if s["score"] is not None
             else "-"),
            ("fixed-sample Elo", f"{_elo_text(s['fixed_elo'], s['fixed_elo_ci'])}, nElo "
                                 f"{_elo_text(s['fixed_nelo'], s['fixed_nelo_ci'])} (95%; covers less after a "
                                 "sequential stop)"),
            ("games counted", f"{s['games']:,} in {s['batches']} batches of {s['batch_pairs']} maps "
                              f"(max {s['max_games']:,}); {s['games_stored']:,} stored"),
            ("W/D/L of the new bot", "/".join(str(x) for x in s["wdl"])),
            ("failures (a loss for the bot that failed)", failures_line(s) or "none"),
            ("maps", s["seeds"]),
            ("time control", f"turn {s['time_control']['turn_ms']} ms, first turn "
                             f"{s['time_control']['first_turn_ms']} ms, scale {s['time_control']['time_scale']:g}"
                             f"{_machine(s)}")]
    summary = "".join(f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>" for k, v in head)
    outcomes = "<tr>" + "".join(f"<th>{esc(k)}</th>" for k in s["outcomes"]) + "</tr><tr>" + \
        "".join(f"<td>{v}</td>" for v in s["outcomes"].values()) + "</tr>"
    label = ("new's pair score minus base's, against the same opponent on the same map" if s["opponents"]
             else "the new bot's two games of a map: L loss, D draw, W win")
    opponents = ""
    if s.get("per_opponent"):
        opponents = ("<h2>Opponent by opponent</h2><table id=\"opponents\"><tr><th>opponent</th><th>new W/D/L</th>"
                     "<th>new score</th><th>base W/D/L</th><th>base score</th><th>Elo of the difference</th></tr>")
        for r in s["per_opponent"]:
            n, b = r["new"], r["base"]
            opponents += (f"<tr><td>{esc(r['opponent'])}</td><td>{n['wins']}/{n['draws']}/{n['losses']}</td>"
                          f"<td>{n['score'] if n['score'] is not None else '-'}</td>"
                          f"<td>{b['wins']}/{b['draws']}/{b['losses']}</td>"
                          f"<td>{b['score'] if b['score'] is not None else '-'}</td>"
                          f"<td>{esc(_elo_text(r['elo'], r['elo_ci']))}</td></tr>")
        opponents += "</table>" + _img(images, "opponents")
    if s.get("duel"):
        names = {NEW: f"new: {s['new']}", BASE: f"base: {s['base']}"}
        duels = {(role, o): d for role in (NEW, BASE) for o, d in s["duel"].get(str(role), {}).items()}
        note = DUEL_NOTE.format(a="the bot", b="its opponent")
        opponents += f"<h2>The duel</h2><p class=note>Over every game stored, {note}</p>" + duel_table(duels, names.get, str)
    return html_page(f"Test {s['test']}", f"""<h1>Test <code>{esc(s['test'])}</code></h1>
<p class=note>Written by <code>tune report</code> from the study database: a sequential test (pentanomial
GSPRT) of the new bot against the base bot on pairs of games (each map played twice, sides swapped).</p>
<table id="summary">{summary}</table>
<h2>The ratio over the test</h2>{_img(images, "llr")}
<h2>Outcomes counted ({esc(label)})</h2><table id="outcomes">{outcomes}</table>
<h2>Elo over the test</h2>{_img(images, "elo")}
{opponents}""")


def _machine(s: dict) -> str:
    machine = s["time_control"].get("machine_scale", 1.0)
    return "" if machine == 1.0 else f", machine scale {machine:g}"


def _img(images: dict[str, str], name: str) -> str:
    if name not in images:
        return ""
    return f'<img src="data:image/png;base64,{images[name]}" alt="{html.escape(name)}">'


def write_test_report(handle: TestHandle, out: Path) -> dict:
    """Write ``out`` (HTML) and each figure's PNG in ``<out stem>_figures/`` beside it; returns what was written."""
    import matplotlib.pyplot as plt

    spec = handle.spec
    status = test_status(handle)
    tallies, _ = read_prefix(handle)
    verdict = judge(spec, tallies)
    images, pngs = {}, []
    for name, fig in _figures(spec, status, tallies, verdict).items():
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
        path = figure_path(out, name)
        path.write_bytes(buf.getvalue())
        pngs.append(path)
        images[name] = base64.b64encode(buf.getvalue()).decode("ascii")
    out.write_text(_page(spec, status, images), encoding="utf-8")
    return {"html": out, "pngs": pngs, "status": status}
